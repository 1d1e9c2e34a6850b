/**
 * Google Chat on the local stack: what only the real wiring proves — an agent run asks, the card is posted
 * to the Chat API's fake, a click carrying a token signed as Google signs it answers, and the Step Functions
 * run resumes (or takes the skip through its Catch); the same click twice at once is settled by DynamoDB's
 * conditional writes. The rest of Google Chat's behaviour runs in process: gchat.test.ts.
 */
import { generateKeyPair } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakePlatform, type RecordedCall, startFakePlatform } from "./support/fake-platform.ts";
import {
  googleChatCertificate,
  googleChatSettings,
  googleChatToken,
  type Key,
} from "./support/google-chat-signing.ts";
import { singleQuestion as single } from "./support/sample-questions.ts";
import {
  replyOf as replyOfRun,
  startAskingRun,
  startTestStack,
  type TestStack,
  waitFor,
} from "./support/test-stack.ts";

const PROJECT = "123456789012";
const OWNER = "users/111111111111111111111";

let stack: TestStack;
let google: FakePlatform;
let signing: { privateKey: Key; pem: string };
let cards = 0;
let spaces = 0;
/** Each test's shared space. */
let space = "";

function chatReply(call: RecordedCall) {
  if (call.path === "/certs") return { body: { "key-1": signing.pem } };
  if (call.path === "/token") {
    return { body: { access_token: "chat-token-from-the-fake", expires_in: 3599, token_type: "Bearer" } };
  }
  const create = /^\/v1\/(spaces\/[^/]+)\/messages$/.exec(call.path);
  if (call.verb === "POST" && create?.[1]) {
    const id = `m${++cards}`;
    return {
      body: { name: `${create[1]}/messages/${id}.${id}`, thread: { name: `${create[1]}/threads/${id}` } },
    };
  }
  if (call.verb === "PATCH") return { body: {} };
  const get = /^\/v1\/(spaces\/[^/:]+)$/.exec(call.path);
  if (call.verb === "GET" && get?.[1]) return { body: { name: get[1], spaceType: "SPACE" } };
  return { status: 404, body: { error: { code: 404, status: "NOT_FOUND" } } };
}

beforeAll(async () => {
  signing = await googleChatCertificate(Date.now());
  const account = await generateKeyPair("RS256", { extractable: true });
  google = await startFakePlatform(chatReply, { limits: "gchat" });
  stack = await startTestStack(await googleChatSettings(google.url, account.privateKey, PROJECT));
});
afterAll(async () => {
  await stack?.stop();
  await google?.stop();
});
beforeEach(() => {
  spaces += 1;
  space = `spaces/AAAAe2e${spaces}`;
  google.calls.length = 0;
});

/** An agent run that asks the owner in the test's space; resolves once the card is recorded. */
async function startRun() {
  const { executionArn, question } = await startAskingRun(stack, {
    owner: `gchat:${OWNER}`,
    deliverTo: [{ channel: "gchat", chatId: space }],
    questions: [single],
  });
  return { executionArn, id: question.id as string, card: question.deliveries[0].messageId as string };
}

let eventCount = 0;
/** A click on the card's button whose control is `kind|0|option|id`, as Google Chat sends it. */
const click = (card: string, control: string) => ({
  type: "CARD_CLICKED",
  eventTime: new Date(Date.now() + ++eventCount).toISOString(),
  space: { name: space, type: "ROOM", spaceType: "SPACE" },
  user: { name: OWNER, displayName: "Ada Lovelace", type: "HUMAN" },
  message: { name: card },
  common: { invokedFunction: "handraise", parameters: { control }, formInputs: {} },
});

async function send(event: unknown) {
  const token = await googleChatToken({ key: signing.privateKey, aud: PROJECT, nowMs: Date.now() });
  const response = await fetch(`${stack.httpUrl}/webhooks/gchat`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(event),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}
const replyOf = (executionArn: string) => replyOfRun(stack, executionArn);
const patchesOf = (card: string) =>
  google.calls.filter((c) => c.verb === "PATCH" && c.path === `/v1/${card}`);

describe("Google Chat end to end", () => {
  it("a click on an option answers and resumes the run; the card is written over, and retired by the stream", async () => {
    const { executionArn, id, card } = await startRun();
    const answered = await send(click(card, `o|0|1|${id}`));
    expect(answered.status).toBe(200);
    expect(answered.body.actionResponse).toEqual({ type: "UPDATE_MESSAGE" });
    expect(await replyOf(executionArn)).toBe("answered||Production");
    const retire = await waitFor(async () => patchesOf(card)[0], { what: "the card retired" });
    expect(retire.query).toEqual({ updateMask: "cardsV2,text" });
    expect(JSON.stringify(retire.body)).toContain("Answered — Deploy to: Production");
  });

  it("Skip → skipped", async () => {
    const { executionArn, id, card } = await startRun();
    await send(click(card, `s|0|0|${id}`));
    expect(await replyOf(executionArn)).toBe("no_answer|skipped|");
  });

  it("the same click delivered twice at once resumes the run once; one response writes the card over", async () => {
    const { executionArn, id, card } = await startRun();
    const event = click(card, `o|0|1|${id}`);
    const responses = await Promise.all([send(event), send(event)]);
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    expect(await replyOf(executionArn)).toBe("answered||Production");
    expect(responses.filter((r) => r.body.actionResponse?.type === "UPDATE_MESSAGE")).toHaveLength(1);
  });
});
