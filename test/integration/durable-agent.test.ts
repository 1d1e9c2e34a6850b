/**
 * The reference agent as a Lambda durable function, end to end: the durable SDK's test runner runs
 * functions/durable-agent.ts in this process against the local stack; the owner answers on (fake) Telegram;
 * the webhook's SendDurableExecutionCallbackSuccess / Failure reaches the local Lambda callback API
 * (infra/local/durable-callbacks.ts), which forwards it to the runner's waiting operation.
 */
import { LocalDurableTestRunner, WaitingOperationStatus } from "@aws/durable-execution-sdk-js-testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import vectors from "../fixtures/signature-vectors.json" with { type: "json" };
import { type FakePlatform, type RecordedCall, startFakePlatform } from "./support/fake-platform.ts";
import { singleQuestion, unique } from "./support/sample-questions.ts";
import { allItems, posted, startTestStack, type TestStack, waitFor } from "./support/test-stack.ts";

const SECRET = vectors.telegram_generated.secret_token;
const HEADER = vectors.telegram_generated.header.toLowerCase();
const OWNER_ID = 42;
let CHAT_ID = -1002000000000;

let stack: TestStack;
let telegram: FakePlatform;
let handler: unknown;
let messageIds = 5000;
let updateId = 9000;

beforeAll(async () => {
  telegram = await startFakePlatform((call) => {
    if (call.method === "sendMessage")
      return { body: { ok: true, result: { message_id: ++messageIds, chat: { id: call.body.chat_id } } } };
    if (call.method === "getMe")
      return { body: { ok: true, result: { id: 123456, is_bot: true, username: "HandraiseBot" } } };
    return { body: { ok: true, result: true } };
  });
  stack = await startTestStack({
    TELEGRAM_BOT_TOKEN: "123456:TEST-token",
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    TELEGRAM_API_BASE: telegram.url,
    HANDRAISE_PUBLIC_URL: "https://handraise.test",
    // As serverless.yml gives the durable agent its durableExecutionTimeout: half an hour here.
    HANDRAISE_DURABLE_EXECUTION_TIMEOUT_SECONDS: "1810",
  });
  // The handler the local stack built: its services point at this stack.
  handler = stack.handler("durableAgent");
  await LocalDurableTestRunner.setupTestEnvironment();
});
afterAll(async () => {
  await LocalDurableTestRunner.teardownTestEnvironment();
  await stack?.stop();
  await telegram?.stop();
});
beforeEach(() => {
  CHAT_ID -= 1;
});

/** Starts the durable agent with one ask_user call, and waits until its question is on Telegram. */
async function startRun(options: { sessionKey?: string; attach?: boolean; timeoutSeconds?: number } = {}) {
  const sessionKey = options.sessionKey ?? unique("durable");
  const runner = new LocalDurableTestRunner({ handlerFunction: handler as never });
  const execution = runner.run({
    payload: {
      sessionKey,
      owner: `telegram:${OWNER_ID}`,
      deliverTo: [{ channel: "telegram", chatId: String(CHAT_ID) }],
      prompt: "test",
      model: {
        provider: "scripted",
        steps: [
          {
            toolCalls: [
              {
                id: "c1",
                name: "ask_user",
                arguments: {
                  questions: [singleQuestion],
                  ...(options.timeoutSeconds !== undefined && { timeoutSeconds: options.timeoutSeconds }),
                },
              },
            ],
          },
          { reply: "{{c1.status}}|{{c1.reason}}|{{c1.deploy_target}}" },
        ],
      },
    },
  });
  const operation = runner.getOperation("ask_user");
  await operation.waitForData(WaitingOperationStatus.SUBMITTED);
  const callbackId = operation.getCallbackDetails()?.callbackId as string;
  if (options.attach !== false) stack.durableCallbacks.attach(callbackId, operation);
  const questionId = await waitFor(
    async () => {
      const [question] = (await stack.api("GET", `/questions?sessionKey=${sessionKey}`)).body.questions;
      return posted(question) >= 1 ? (question.id as string) : undefined;
    },
    { what: "the question posted to Telegram" },
  );
  const post = telegram.callsTo("sendMessage").findLast((call) => call.body.chat_id === String(CHAT_ID));
  return { execution, operation, callbackId, questionId, sessionKey, post: post as RecordedCall };
}

async function reply(execution: Promise<{ getResult(): unknown; getStatus(): unknown }>) {
  const result = await execution;
  expect(result.getStatus()).toBe("SUCCEEDED");
  return (result.getResult() as { reply: string }).reply;
}

function tap(post: RecordedCall, label: string) {
  const button = (post.body.reply_markup.inline_keyboard as { text: string; callback_data?: string }[][])
    .flat()
    .find((b) => b.text === label);
  if (!button?.callback_data) throw new Error(`no button ${label}`);
  return fetch(`${stack.httpUrl}/webhooks/telegram`, {
    method: "POST",
    headers: { "content-type": "application/json", [HEADER]: SECRET },
    body: JSON.stringify({
      update_id: ++updateId,
      callback_query: {
        id: `cb${updateId}`,
        from: { id: OWNER_ID, is_bot: false, first_name: "Ann" },
        message: {
          message_id: Number(post.body.message_id ?? 0),
          chat: { id: CHAT_ID, type: "supergroup" },
          date: 1,
        },
        chat_instance: "1",
        data: button.callback_data,
      },
    }),
  });
}

const statusOf = async (id: string) => (await stack.api("GET", `/questions/${id}`)).body.question;

describe("the durable agent", () => {
  it("asks on Telegram, suspends, and resumes with the owner's answer", async () => {
    const run = await startRun();
    expect(run.post.body.text).toContain("Where should it go?");
    expect((await tap(run.post, "Production")).status).toBe(200);
    expect(await reply(run.execution)).toBe("answered||Production");
    expect(stack.durableCallbacks.calls).toContainEqual({
      action: "succeed",
      callbackId: run.callbackId,
      outcome: "completed",
    });
    // What the callback brought askUser, which it returns: the answers and who gave them.
    expect(run.operation.getCallbackDetails()?.result).toEqual({
      status: "answered",
      answers: { deploy_target: ["Production"] },
      resolvedBy: `telegram:${OWNER_ID}`,
    });
    expect(await statusOf(run.questionId)).toMatchObject({
      status: "answered",
      resolvedBy: `telegram:${OWNER_ID}`,
    });
    // The record never shows its waiter; the item kept it as a durable callback until the close removed it.
    expect(JSON.stringify(await statusOf(run.questionId))).not.toContain(run.callbackId);
  });

  it("an input that does not fit fails the execution as Handraise.InvalidInput, naming each problem", async () => {
    const runner = new LocalDurableTestRunner({ handlerFunction: handler as never });
    const result = await runner.run({
      payload: { sessionKey: unique("durable-bad"), owner: "alice", deliverTo: [], prompt: "test" },
    });
    expect(result.getError()).toMatchObject({
      errorType: "Handraise.InvalidInput",
      errorMessage: expect.stringMatching(
        /^Invalid agent input: owner must be platform-qualified, e\.g\. .*, and 1 more problem\.$/,
      ),
    });
  });

  it("a skip on Telegram and a cancel over the API give the no-answer results", async () => {
    const skipped = await startRun();
    expect((await tap(skipped.post, "Skip")).status).toBe(200);
    expect(await reply(skipped.execution)).toBe("no_answer|skipped|");

    const cancelled = await startRun();
    expect((await stack.api("POST", `/questions/${cancelled.questionId}/cancel`, {})).status).toBe(200);
    expect(await reply(cancelled.execution)).toBe("no_answer|cancelled|");
  });

  it("a question longer than its execution could wait is cut to the time the execution has left", async () => {
    const run = await startRun({ timeoutSeconds: 3600 });
    const question = await statusOf(run.questionId);
    // 1810 s of execution, less the grace and the moment since it started.
    const waits = (question.expiresAtMs - question.createdAtMs) / 1000;
    expect(waits).toBeLessThanOrEqual(1800);
    expect(waits).toBeGreaterThanOrEqual(1790);
    expect((await stack.api("POST", `/questions/${run.questionId}/cancel`, {})).status).toBe(200);
    expect(await reply(run.execution)).toBe("no_answer|cancelled|");
  });

  it("a question nobody answers ends the wait as expired (its timeout and the grace period)", {
    timeout: 40_000,
  }, async () => {
    const run = await startRun({ timeoutSeconds: 1 });
    expect(await reply(run.execution)).toBe("no_answer|expired|");
    expect((await statusOf(run.questionId)).status).toBe("expired");
    // Its expiry timer closed it and retired its copy, as for a Step Functions run's question.
    const stored = (await allItems(stack)).find((i) => i.id === run.questionId && i.entity === "question");
    expect(stored?.status).toBe("expired");
    const messageId = String((await statusOf(run.questionId)).deliveries[0].messageId);
    const retired = await waitFor(
      async () =>
        telegram.callsTo("editMessageText").find((call) => String(call.body.message_id) === messageId),
      { what: "the copy retired" },
    );
    expect(retired.body.text).toContain("Expired: no answer in time.");
    expect(retired.body.reply_markup).toEqual({ inline_keyboard: [] });
  });

  it("an answer to an ended durable callback (CallbackTimeoutException) is taken like one to an ended task token", async () => {
    // The execution no longer waits on this callback (it timed out or was stopped outside Handraise).
    const run = await startRun({ attach: false });
    expect((await tap(run.post, "Staging (Recommended)")).status).toBe(200);
    await stack.streamsDrained();
    expect(await statusOf(run.questionId)).toMatchObject({ status: "answered" });
    const sent = stack.durableCallbacks.calls.filter((call) => call.callbackId === run.callbackId);
    // The webhook's fast path and the stream's second resume: each told "no longer waiting", nothing retried
    // or recorded as a failure.
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(
      sent.every((call) => call.action === "succeed" && call.outcome === "CallbackTimeoutException"),
    ).toBe(true);
    expect(stack.streamFailures).toEqual([]);
    const item = (await allItems(stack)).find((i) => i.id === run.questionId && i.entity === "question");
    expect(item?.resumeFailure).toBeUndefined();
    await run.operation.sendCallbackFailure({
      ErrorType: "Handraise.Cancelled",
      ErrorData: "Handraise.Cancelled",
    });
    await run.execution;
  });

  it("a session held by a question whose durable wait has ended is freed for the next question", async () => {
    const run = await startRun({ attach: false });
    const next = await stack.api("POST", "/questions", {
      questions: [singleQuestion],
      owner: `telegram:${OWNER_ID}`,
      sessionKey: run.sessionKey,
    });
    expect(next.status).toBe(201);
    expect(await statusOf(run.questionId)).toMatchObject({ status: "cancelled", resolvedBy: "wait-ended" });
    expect(stack.durableCallbacks.calls).toContainEqual({
      action: "heartbeat",
      callbackId: run.callbackId,
      outcome: "CallbackTimeoutException",
    });
    await run.operation.sendCallbackFailure({
      ErrorType: "Handraise.Cancelled",
      ErrorData: "Handraise.Cancelled",
    });
    await run.execution;
  });
});
