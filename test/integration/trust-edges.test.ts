/**
 * The edges a question must not slip through: a channel that is off, a delivery target that does not exist,
 * a delivery nobody took, a reply that arrives while the post is still in flight, and every way a run's wait
 * can end outside Handraise — after each, the record is closed and the session takes the next question.
 * Local stack with Telegram on (a fake Bot API); every other channel off.
 */
import { SendTaskFailureCommand, SendTaskSuccessCommand, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type FakePlatform, type RecordedCall, startFakePlatform } from "./support/fake-platform.ts";
import { singleQuestion, unique } from "./support/sample-questions.ts";
import { sendPrivateText } from "./support/telegram-updates.ts";
import {
  allItems,
  posted,
  replyOf,
  startTestStack,
  statusOf,
  type TestStack,
  taskTokenOf,
  waitFor,
  waitForExecutionEnd,
} from "./support/test-stack.ts";

const BOT_TOKEN = "4242:trust-edges-token";
const SECRET = "trust-edges-secret";
/** A chat the fake Bot API refuses to post in. */
const REFUSING_CHAT = "-1";

let stack: TestStack;
let telegram: FakePlatform;
let messageIds = 500;
/** Milliseconds the fake Bot API holds each sendMessage before answering (a slow platform). */
let sendDelayMs = 0;

beforeAll(async () => {
  telegram = await startFakePlatform(async (call) => {
    if (call.method !== "sendMessage") return { body: { ok: true, result: true } };
    if (String(call.body.chat_id) === REFUSING_CHAT) {
      return {
        status: 400,
        body: { ok: false, error_code: 400, description: "Bad Request: chat not found" },
      };
    }
    if (sendDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, sendDelayMs));
    return { body: { ok: true, result: { message_id: ++messageIds, chat: { id: call.body.chat_id } } } };
  });
  stack = await startTestStack({
    TELEGRAM_BOT_TOKEN: BOT_TOKEN,
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    TELEGRAM_API_BASE: telegram.url,
  });
});
afterAll(async () => {
  await stack?.stop();
  await telegram?.stop();
});
afterEach(() => {
  sendDelayMs = 0;
  stack.faults.dynamodb.clear();
});

const chatOf = (owner: number) => String(owner);

function startRun(owner: number, sessionKey: string, chatId = chatOf(owner)) {
  return stack.sfn.send(
    new StartExecutionCommand({
      stateMachineArn: stack.stateMachineArns.agent,
      input: JSON.stringify({
        sessionKey,
        owner: `telegram:${owner}`,
        deliverTo: [{ channel: "telegram", chatId }],
        prompt: "test",
        model: {
          provider: "scripted",
          steps: [
            { toolCalls: [{ id: "c1", name: "ask_user", arguments: { questions: [singleQuestion] } }] },
            { reply: "{{c1.status}}|{{c1.reason}}|{{c1.deploy_target}}" },
          ],
        },
      }),
    }),
  ) as Promise<{ executionArn: string }>;
}

/** The pending question of a session, once the stack has stored it. */
async function pendingIn(sessionKey: string): Promise<{ id: string; deliveries: { messageId?: string }[] }> {
  return waitFor(
    async () => (await stack.api("GET", `/questions?sessionKey=${sessionKey}`)).body.questions[0],
    { what: `a pending question in ${sessionKey}` },
  );
}

/** The run's task token, as the table holds it (test-only read: the product never exposes it). */
function typed(owner: number, text: string) {
  return sendPrivateText(stack.httpUrl, SECRET, owner, text);
}

/** The next question in the session is accepted: the session is free again. */
async function nextAskAccepted(owner: number, sessionKey: string): Promise<void> {
  const next = await stack.api("POST", "/questions", {
    questions: [singleQuestion],
    owner: `telegram:${owner}`,
    sessionKey,
  });
  expect(next.status, JSON.stringify(next.body)).toBe(201);
  expect(next.body.status).toBe("pending");
}

const editsOf = (messageId: string | undefined) =>
  telegram
    .callsTo("editMessageText")
    .filter((call: RecordedCall) => String(call.body.message_id) === messageId);

describe("a channel that is off", () => {
  it.each(["slack", "discord", "mattermost"])(
    "answers its webhook 404 CHANNEL_DISABLED and stores nothing (%s)",
    async (channel) => {
      const before = (await allItems(stack)).length;
      const response = await fetch(`${stack.httpUrl}/webhooks/${channel}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ type: 1, token: "x", user_id: "u", channel_id: "c", text: "2" }),
      });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({
        error: {
          code: "CHANNEL_DISABLED",
          message: `The ${channel} channel is not enabled in this deployment.`,
        },
      });
      expect((await allItems(stack)).length).toBe(before);
    },
  );
});

describe("POST /questions delivery targets", () => {
  it.each([
    ["an unknown channel", "whatsapp"],
    ["a channel that is off", "slack"],
  ])("%s → 400 INVALID_ARGUMENT at deliverTo.<i>.channel, nothing stored", async (_, channel) => {
    const owner = `telegram:${unique("o")}`;
    const refused = await stack.api("POST", "/questions", {
      id: unique("ask_target").replaceAll("-", "_"),
      questions: [singleQuestion],
      owner,
      deliverTo: [
        { channel: "telegram", chatId: "7" },
        { channel, chatId: "C1" },
      ],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: "INVALID_ARGUMENT",
      issues: [
        { path: "deliverTo.1.channel", message: expect.stringContaining(`"${channel}" is not enabled`) },
      ],
    });
    expect((await stack.api("GET", `/questions?owner=${owner}`)).body.questions).toEqual([]);
    expect(telegram.callsTo("sendMessage").filter((c) => c.body.chat_id === "7")).toEqual([]);
  });

  it("every target refusing → 201 with delivery_failed and the id; the record says so and the session is free", async () => {
    const sessionKey = unique("refused");
    const created = await stack.api("POST", "/questions", {
      questions: [singleQuestion],
      owner: "telegram:7",
      sessionKey,
      deliverTo: [{ channel: "telegram", chatId: REFUSING_CHAT }],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^ask_/), status: "delivery_failed" });
    expect(await statusOf(stack, created.body.id)).toBe("delivery_failed");
    await nextAskAccepted(7, sessionKey);
  });
});

describe("a reply while the post is still in flight", () => {
  it("routes to the question: the record lists its targets from the first write", async () => {
    const owner = 31_001;
    sendDelayMs = 1_500;
    const sessionKey = unique("fast");
    const { executionArn } = await startRun(owner, sessionKey);
    const question = await pendingIn(sessionKey);
    // The post has not come back yet: no message id, only the target.
    expect(question.deliveries).toEqual([{ channel: "telegram", chatId: chatOf(owner) }]);
    expect((await typed(owner, "2")).status).toBe(200);
    expect(await replyOf(stack, executionArn)).toBe("answered||Production");
    // The copy that was posted after the answer is retired too (by the ask, which alone knew of it).
    await waitFor(
      async () => {
        const record = (await stack.api("GET", `/questions/${question.id}`)).body.question;
        return posted(record) === 1 ? record : undefined;
      },
      { what: "the late copy to be recorded" },
    );
    const record = (await stack.api("GET", `/questions/${question.id}`)).body.question;
    await waitFor(async () => (editsOf(record.deliveries[0].messageId).length > 0 ? true : undefined), {
      what: "the late copy to be retired",
    });
    expect(editsOf(record.deliveries[0].messageId)[0]?.body).toMatchObject({
      reply_markup: { inline_keyboard: [] },
    });
  });
});

describe("no question outlives its run's wait", () => {
  it("a delivery that failed halfway (posted, not recorded): closed as delivery_failed, its copy retired, the session free", async () => {
    const owner = 32_001;
    const sessionKey = unique("halfway");
    // The message index write fails every attempt the SDK makes (4) and every retry of the store.
    stack.faults.dynamodb.failNext(50, {
      code: "ProvisionedThroughputExceededException",
      status: 400,
      operations: ["BatchWriteItem"],
    });
    const before = telegram.callsTo("sendMessage").length;
    const { executionArn } = await startRun(owner, sessionKey);
    expect(await replyOf(stack, executionArn)).toBe("delivery_failed||");
    stack.faults.dynamodb.clear();
    const post = telegram.callsTo("sendMessage").slice(before)[0];
    expect(post?.body.chat_id).toBe(chatOf(owner));
    const questionId = (await allItems(stack)).find(
      (i) => i.entity === "question" && i.sessionKey === sessionKey,
    )?.id as string;
    expect(await statusOf(stack, questionId)).toBe("delivery_failed");
    // The copy that did reach the chat lost its buttons.
    await waitFor(
      async () =>
        telegram.callsTo("editMessageText").some((call) => String(call.body.chat_id) === chatOf(owner))
          ? true
          : undefined,
      { what: "the posted copy to be retired" },
    );
    await nextAskAccepted(owner, sessionKey);
  });

  it.each([
    [
      "an outside SendTaskFailure",
      (taskToken: string) =>
        new SendTaskFailureCommand({ taskToken, error: "Ops.Aborted", cause: "by hand" }),
      // The run's Catch reports an unknown error as delivery_failed; the question says what happened.
      "delivery_failed||",
      { status: "cancelled", reason: "cancelled", resolvedBy: "wait-ended" },
    ],
    [
      "an outside SendTaskSuccess",
      (taskToken: string) =>
        new SendTaskSuccessCommand({
          taskToken,
          output: JSON.stringify({
            status: "answered",
            answers: { deploy_target: ["Staging (Recommended)"] },
          }),
        }),
      "answered||Staging (Recommended)",
      // Not "answered": nobody answered it through Handraise.
      { status: "cancelled", reason: "cancelled", resolvedBy: "wait-ended" },
    ],
  ])(
    "%s with the run's token: the question is closed, a late answer changes nothing, the session is free",
    async (_, command, reply, closed) => {
      const owner = 33_000 + Math.floor(Math.random() * 900);
      const sessionKey = unique("outside");
      const { executionArn } = await startRun(owner, sessionKey);
      const question = await pendingIn(sessionKey);
      await stack.sfn.send(command(await taskTokenOf(stack, question.id)) as never);
      const execution = await waitForExecutionEnd(stack, executionArn);
      expect(execution.status).toBe("SUCCEEDED");
      expect(JSON.parse(execution.output ?? "{}").reply).toBe(reply);
      const record = (await stack.api("GET", `/questions/${question.id}`)).body.question;
      expect(record).toMatchObject(closed);
      // Nobody can answer into the run that no longer listens.
      const late = await stack.api("POST", `/questions/${question.id}/answer`, {
        answers: { deploy_target: ["Production"] },
      });
      expect(late.status).toBe(409);
      expect(late.body.status).toBe(closed.status);
      await nextAskAccepted(owner, sessionKey);
    },
  );
});
