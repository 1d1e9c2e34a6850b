/**
 * WhatsApp's 24-hour window on a deployment without WHATSAPP_TEMPLATE (a stack of its own: handlers read
 * their configuration once per process): a question WhatsApp refuses with 131047 fails that target, with the
 * reason, and is stored as delivery_failed; one WhatsApp takes (200) and fails later, in a signed status, is
 * reported with the reason and nothing is sent. The template fallback itself is in whatsapp.test.ts.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { captureLogs } from "./support/captured-logs.ts";
import { type FakePlatform, startFakePlatform } from "./support/fake-platform.ts";
import { singleQuestion as single } from "./support/sample-questions.ts";
import { metaSignature } from "./support/signing.ts";
import { startTestStack, type TestStack } from "./support/test-stack.ts";
import { failedStatus, statusNotification } from "./support/whatsapp-notifications.ts";

const APP_SECRET = "0123456789abcdef0123456789abcdef";
const PHONE_NUMBER_ID = "106540352242922";

let stack: TestStack;
let graph: FakePlatform;

/** What the Graph API answers a free-form message outside the window: at once, or (usually) 200 and later. */
const refusedAtOnce = () => ({
  status: 400,
  body: { error: { message: "(#131047) Re-engagement message", type: "OAuthException", code: 131047 } },
});
const taken = () => ({ body: { messaging_product: "whatsapp", messages: [{ id: "wamid.TAKEN" }] } });

beforeAll(async () => {
  graph = await startFakePlatform(refusedAtOnce, { limits: "whatsapp" });
  stack = await startTestStack({
    WHATSAPP_ACCESS_TOKEN: "EAAGtest0123456789abcdef",
    WHATSAPP_APP_SECRET: APP_SECRET,
    WHATSAPP_VERIFY_TOKEN: "verify-token-0123456789",
    WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
    WHATSAPP_API_BASE: graph.url,
    HANDRAISE_PUBLIC_URL: "https://handraise.test",
  });
});
afterAll(async () => {
  await stack?.stop();
  await graph?.stop();
});
beforeEach(() => {
  graph.calls.length = 0;
});

const ask = (owner: string) =>
  stack.api("POST", "/questions", {
    questions: [single],
    owner: `whatsapp:${owner}`,
    deliverTo: [{ channel: "whatsapp", chatId: owner }],
  });

it("outside the 24-hour window without a template, the target fails with that reason", async () => {
  graph.respond(refusedAtOnce);
  const logs = captureLogs();
  const created = await ask("16505551234");
  expect(created.status, created.text).toBe(201);
  expect(created.body.status).toBe("delivery_failed");
  // One attempt, the interactive question; no template was tried.
  expect(graph.calls.map((call) => call.body.type)).toEqual(["interactive"]);
  logs.stop();
  const [refused] = logs.logged("delivery refused");
  expect(refused).toMatchObject({ channel: "whatsapp" });
  expect(JSON.stringify(refused)).toContain("WHATSAPP_TEMPLATE is not set");
});

it("a copy failed later (a signed 131047 status) without a template: an ERROR names the question and why; nothing is sent", async () => {
  graph.respond(taken);
  const owner = "16505551235";
  const created = await ask(owner);
  expect(created.body.status).toBe("pending");
  const body = JSON.stringify(statusNotification([failedStatus("wamid.TAKEN", owner)], PHONE_NUMBER_ID));
  const logs = captureLogs();
  const response = await fetch(`${stack.httpUrl}/webhooks/whatsapp`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-hub-signature-256": metaSignature(APP_SECRET, body) },
    body,
  });
  logs.stop();
  expect(response.status).toBe(200);
  expect(graph.calls.map((call) => call.body.type)).toEqual(["interactive"]);
  const [line] = logs.logged("whatsapp copy not delivered");
  expect(line).toMatchObject({ level: "ERROR", questionId: created.body.id });
  expect(line?.error.message).toContain("24-hour window is closed (code 131047)");
  expect(line?.error.message).toContain("WHATSAPP_TEMPLATE is not set");
  expect(JSON.stringify(line)).not.toContain(owner);
  expect(JSON.stringify(line)).not.toContain("/answer/");
  // It stays pending: the person's next message opens the window, and the API may still answer it.
  expect((await stack.api("GET", `/questions/${created.body.id}`)).body.question.status).toBe("pending");
});
