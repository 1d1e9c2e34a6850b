/**
 * WhatsApp on the local stack: what only the real wiring proves — an agent run asks, the question is
 * delivered to the Graph API's fake, a notification signed as Meta signs it answers, and the Step Functions
 * run resumes (or takes the skip or cancel through its Catch); the same notification twice at once is settled
 * by DynamoDB's conditional writes. The rest of WhatsApp's behaviour runs in process: whatsapp.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakePlatform, type RecordedCall, startFakePlatform } from "./support/fake-platform.ts";
import { singleQuestion as single } from "./support/sample-questions.ts";
import { metaSignature } from "./support/signing.ts";
import {
  replyOf as replyOfRun,
  startAskingRun,
  startTestStack,
  type TestStack,
} from "./support/test-stack.ts";
import { whatsappNotification } from "./support/whatsapp-notifications.ts";

const APP_SECRET = "0123456789abcdef0123456789abcdef";
const PHONE_NUMBER_ID = "106540352242922";
/** Each test's person has a wa_id of their own: a typed line goes to their oldest waiting question. */
let person = 16505550000;

let stack: TestStack;
let graph: FakePlatform;
let wamids = 0;

beforeAll(async () => {
  graph = await startFakePlatform(
    (call) => ({
      body: {
        messaging_product: "whatsapp",
        contacts: [{ input: call.body.to, wa_id: call.body.to }],
        messages: [{ id: `wamid.OUT${++wamids}` }],
      },
    }),
    { limits: "whatsapp" },
  );
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
  person += 1;
});

const messagesTo = (waId: string) =>
  graph.calls.filter((call) => call.method === "messages" && call.body.to === waId);
const textsTo = (waId: string) =>
  messagesTo(waId)
    .filter((call) => call.body.type === "text")
    .map((call) => call.body.text.body as string);

/** An agent run that asks `owner` (a wa_id) in their own chat; resolves once the copy is recorded. */
async function startRun(owner: string) {
  const { executionArn, question } = await startAskingRun(stack, {
    owner: `whatsapp:${owner}`,
    deliverTo: [{ channel: "whatsapp", chatId: owner }],
    questions: [single],
  });
  return { executionArn, question, prompt: messagesTo(owner)[0] as RecordedCall };
}

let inboundIds = 0;
function notification(from: string, message: Record<string, unknown>) {
  return whatsappNotification(
    {
      contacts: [{ profile: { name: "Sheena Nelson" }, wa_id: from }],
      // Sent just now: the stack's handlers run on the wall clock, and ignore a message days old.
      messages: [
        { from, timestamp: String(Math.floor(Date.now() / 1000)), id: `wamid.IN${++inboundIds}`, ...message },
      ],
    },
    PHONE_NUMBER_ID,
  );
}
const typed = (from: string, text: string) => notification(from, { type: "text", text: { body: text } });
/** A tap on the list row titled `title` of the posted `prompt`. */
function tapped(from: string, prompt: RecordedCall, title: string, context: string) {
  const rows = prompt.body.interactive.action.sections.flatMap((s: { rows: unknown[] }) => s.rows);
  const row = rows.find((r: { title: string }) => r.title === title);
  if (!row) throw new Error(`no row "${title}"`);
  return notification(from, {
    type: "interactive",
    interactive: { type: "list_reply", list_reply: { id: row.id, title } },
    context: { from: "15550783881", id: context },
  });
}

/** Signed with the app secret, as Meta signs it. */
function post(payload: unknown) {
  const body = JSON.stringify(payload);
  return fetch(`${stack.httpUrl}/webhooks/whatsapp`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-hub-signature-256": metaSignature(APP_SECRET, body) },
    body,
  });
}
const replyOf = (executionArn: string) => replyOfRun(stack, executionArn);

describe("WhatsApp end to end", () => {
  it("a tapped list row answers and resumes the run; a later tap is told it is over", async () => {
    const owner = String(person);
    const { executionArn, question, prompt } = await startRun(owner);
    const tap = tapped(owner, prompt, "Production", question.deliveries[0].messageId);
    expect((await post(tap)).status).toBe(200);
    expect(await replyOf(executionArn)).toBe("answered||Production");
    expect(textsTo(owner)).toEqual(["Got it."]);

    await post(tapped(owner, prompt, "Staging (Recommended)", question.deliveries[0].messageId));
    expect(textsTo(owner)).toEqual(["Got it.", "This question has already been answered."]);
    expect(await replyOf(executionArn)).toBe("answered||Production");
  });

  it("Skip → skipped; /cancel → cancelled", async () => {
    const owner = String(person);
    const skipped = await startRun(owner);
    await post(tapped(owner, skipped.prompt, "Skip", skipped.question.deliveries[0].messageId));
    expect(await replyOf(skipped.executionArn)).toBe("no_answer|skipped|");

    const cancelled = await startRun(owner);
    await post(typed(owner, "/cancel"));
    expect(await replyOf(cancelled.executionArn)).toBe("no_answer|cancelled|");
  });

  it("the same notification delivered twice at once resumes the run once and is acknowledged both times", async () => {
    const owner = String(person);
    const { executionArn, question, prompt } = await startRun(owner);
    const tap = tapped(owner, prompt, "Production", question.deliveries[0].messageId);
    const responses = await Promise.all([post(tap), post(tap)]);
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    expect(await replyOf(executionArn)).toBe("answered||Production");
    expect(textsTo(owner)).toEqual(["Got it."]);
  });
});
