/**
 * Signed notifications against the local stack: POST /questions with `notify: {url}`, the question closes,
 * the table's stream queues the first attempt, the (local) queue hands it to the notifier, which POSTs it to
 * a receiver on this machine; a refused attempt is queued again for the next one.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { verifyWebhook } from "#lib/notify/standard-webhooks.ts";
import { singleQuestion, unique } from "./support/sample-questions.ts";
import { allItems, startTestStack, type TestStack, waitFor } from "./support/test-stack.ts";

const SECRET = `whsec_${Buffer.from("handraise-notify-test-key-0123456789").toString("base64")}`;

interface Received {
  headers: Record<string, string>;
  body: string;
  at: number;
}

let stack: TestStack;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
/** The status the receiver answers each request with, in order (then 200). */
let answers: number[] = [];

beforeAll(async () => {
  receiver = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    received.push({
      headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
      body: Buffer.concat(chunks).toString("utf8"),
      at: Date.now(),
    });
    res.writeHead(answers.shift() ?? 200).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", () => resolve()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  // Retries 1 s apart here (5 s, 5 min, … deployed).
  stack = await startTestStack({ HANDRAISE_NOTIFY_SECRET: SECRET, HANDRAISE_NOTIFY_RETRY_SECONDS: "1,1,1" });
});
afterAll(async () => {
  await stack?.stop();
  await new Promise<void>((resolve) => {
    receiver?.closeAllConnections();
    receiver?.close(() => resolve());
  });
});
beforeEach(() => {
  received.length = 0;
  answers = [];
});

async function ask(path: string) {
  const created = await stack.api("POST", "/questions", {
    questions: [singleQuestion],
    owner: `web:${unique("notify")}`,
    notify: { url: `${receiverUrl}${path}` },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

const verified = (r: Received, body = r.body) =>
  verifyWebhook(SECRET, r.headers, body, { nowSeconds: Math.floor(Date.now() / 1000) });

describe("signed notifications", () => {
  it("POST the result of a closed question, signed: the receiver verifies it, and a tampered body fails", async () => {
    const id = await ask("/hook?source=handraise");
    await stack.api("POST", `/questions/${id}/answer`, { answers: { deploy_target: ["Production"] } });
    const [notice] = await waitFor(async () => (received.length > 0 ? received : undefined), {
      what: "the notification",
    });
    expect(notice?.headers).toMatchObject({
      "content-type": "application/json",
      "webhook-id": `msg_${id}`,
      "webhook-signature": expect.stringMatching(/^v1,[A-Za-z0-9+/]+=*$/),
    });
    expect(JSON.parse(notice?.body ?? "")).toMatchObject({
      type: "question.closed",
      data: {
        questionId: id,
        status: "answered",
        answers: { deploy_target: ["Production"] },
        resolvedBy: "api",
      },
    });
    expect(verified(notice as Received)).toBe(true);
    expect(verified(notice as Received, (notice?.body ?? "").replace("Production", "Staging"))).toBe(false);
    // GET shows where the result goes.
    expect((await stack.api("GET", `/questions/${id}`)).body.question.notify).toEqual({
      url: `${receiverUrl}/hook?source=handraise`,
    });
  });

  it("POST no_answer expired when the question's expiry timer closes it", async () => {
    const created = await stack.api("POST", "/questions", {
      questions: [singleQuestion],
      owner: `web:${unique("notify")}`,
      timeoutSeconds: 2,
      notify: { url: `${receiverUrl}/expired` },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const [notice] = await waitFor(async () => (received.length > 0 ? received : undefined), {
      timeoutMs: 20_000,
      what: "the notification of the expiry",
    });
    expect(notice?.at).toBeGreaterThanOrEqual(created.body.expiresAtMs);
    expect(JSON.parse(notice?.body ?? "")).toMatchObject({
      type: "question.closed",
      data: { questionId: id, status: "no_answer", reason: "expired" },
    });
    expect(verified(notice as Received)).toBe(true);
  });

  it("retry a receiver that fails twice: the third attempt, same webhook-id, and then no more", async () => {
    answers = [500, 503];
    const id = await ask("/flaky");
    await stack.api("POST", `/questions/${id}/cancel`, { reason: "skipped" });
    await waitFor(async () => (received.length >= 3 ? true : undefined), {
      what: "three attempts",
      timeoutMs: 15_000,
    });
    await stack.streamsDrained();
    await stack.queuesDrained();
    expect(received).toHaveLength(3);
    expect(received.map((r) => r.headers["webhook-id"])).toEqual([`msg_${id}`, `msg_${id}`, `msg_${id}`]);
    expect(received.every((r) => verified(r))).toBe(true);
    expect(new Set(received.map((r) => r.body)).size).toBe(1);
    // Each retry waited for its turn in the queue (1 s here), no Lambda slept.
    expect((received[1]?.at ?? 0) - (received[0]?.at ?? 0)).toBeGreaterThanOrEqual(900);
    expect(JSON.parse(received[2]?.body ?? "").data).toEqual({
      questionId: id,
      status: "no_answer",
      reason: "skipped",
      resolvedBy: "api",
    });
    const log = (await allItems(stack)).find((item) => item.pk === `NOTIFY#${id}`);
    expect(log?.entity).toBe("notification");
    expect(stack.deadLetters).toEqual([]);
  });

  it("refuse a notify URL that is not https (or this machine's, locally) or points at a private address", async () => {
    const owner = `web:${unique("notify-bad")}`;
    for (const url of [
      "http://example.com/hook",
      "https://10.0.0.8/hook",
      "https://169.254.169.254/",
      "hook",
    ]) {
      const refused = await stack.api("POST", "/questions", {
        questions: [singleQuestion],
        owner,
        notify: { url },
      });
      expect(refused.status, url).toBe(400);
      expect(refused.body.error).toMatchObject({
        code: "INVALID_ARGUMENT",
        issues: [{ path: "notify.url" }],
      });
    }
    expect((await allItems(stack)).filter((item) => item.owner === owner)).toEqual([]);
  });

  it("send nothing for a question asked without notify", async () => {
    const created = await stack.api("POST", "/questions", {
      questions: [singleQuestion],
      owner: "web:quiet",
    });
    await stack.api("POST", `/questions/${created.body.id}/cancel`, {});
    await stack.streamsDrained();
    await stack.queuesDrained();
    expect(received).toEqual([]);
  });
});
