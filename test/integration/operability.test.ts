/**
 * What an operator sees, read from what the real handlers write on the local stack: lifecycle log lines that
 * carry the question and run ids and never a task token, a secret, an answer's text or a message body;
 * EMF metrics for every outcome; a stream record that can never succeed recorded and passed, one that can
 * retried, and one that keeps failing sent to the on-failure destination.
 */
import { StartExecutionCommand, StopExecutionCommand } from "@aws-sdk/client-sfn";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type CapturedLogs, captureLogs } from "./support/captured-logs.ts";
import { type FakePlatform, startFakePlatform } from "./support/fake-platform.ts";
import { singleQuestion, unique } from "./support/sample-questions.ts";
import { sendPrivateText } from "./support/telegram-updates.ts";
import {
  allItems,
  posted,
  startTestStack,
  TEST_API_KEY,
  type TestStack,
  taskTokenOf,
  waitFor,
  waitForExecutionEnd,
} from "./support/test-stack.ts";

const BOT_TOKEN = "5151:operability-bot-token-secret";
const SECRET = "operability-webhook-secret";

let stack: TestStack;
let telegram: FakePlatform;
let logs: CapturedLogs | undefined;
let messageIds = 100;

beforeAll(async () => {
  telegram = await startFakePlatform((call) =>
    call.method === "sendMessage"
      ? { body: { ok: true, result: { message_id: ++messageIds, chat: { id: call.body.chat_id } } } }
      : { body: { ok: true, result: true } },
  );
  stack = await startTestStack({
    TELEGRAM_BOT_TOKEN: BOT_TOKEN,
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    TELEGRAM_API_BASE: telegram.url,
    // What an operator sees: every lifecycle line and metric, as deployed.
    POWERTOOLS_LOG_LEVEL: "INFO",
    POWERTOOLS_METRICS_DISABLED: "false",
  });
});
afterAll(async () => {
  await stack?.stop();
  await telegram?.stop();
});
afterEach(() => {
  logs?.stop();
  logs = undefined;
  stack.faults.stepFunctions.clear();
  stack.setStreamRetryDelay(undefined);
});

function startRun(owner: number, timeoutSeconds = 600) {
  const sessionKey = unique("ops");
  return stack.sfn
    .send(
      new StartExecutionCommand({
        stateMachineArn: stack.stateMachineArns.agent,
        input: JSON.stringify({
          sessionKey,
          owner: `telegram:${owner}`,
          deliverTo: [{ channel: "telegram", chatId: String(owner) }],
          prompt: "test",
          model: {
            provider: "scripted",
            steps: [
              {
                toolCalls: [
                  { id: "c1", name: "ask_user", arguments: { questions: [singleQuestion], timeoutSeconds } },
                ],
              },
              { reply: "{{c1.status}}|{{c1.reason}}|{{c1.deploy_target}}" },
            ],
          },
        }),
      }),
    )
    .then(({ executionArn }) => ({ executionArn: executionArn as string, sessionKey }));
}

async function questionOf(sessionKey: string): Promise<{ id: string; runId: string }> {
  return waitFor(
    async () => {
      const [question] = (await stack.api("GET", `/questions?sessionKey=${sessionKey}`)).body.questions;
      return posted(question) > 0 ? question : undefined;
    },
    { what: "the question to be posted" },
  );
}

const typed = (owner: number, text: string, secret = SECRET) =>
  sendPrivateText(stack.httpUrl, secret, owner, text);

describe("lifecycle logs", () => {
  it("ask → answer → resume: each step logged with the question and run ids, never a token, secret, answer or body", async () => {
    logs = captureLogs();
    const owner = 61_001;
    const { executionArn, sessionKey } = await startRun(owner);
    const question = await questionOf(sessionKey);
    const token = await taskTokenOf(stack, question.id);
    const answer = "ship-it-on-friday-7f3a";
    expect((await typed(owner, answer)).status).toBe(200);
    expect((await waitForExecutionEnd(stack, executionArn)).status).toBe("SUCCEEDED");
    await stack.streamsDrained();

    const ids = { questionId: question.id, runId: executionArn };
    expect(logs.logged("question asked")).toEqual([expect.objectContaining({ ...ids, level: "INFO" })]);
    expect(logs.logged("question delivered")).toEqual([
      expect.objectContaining({ ...ids, channel: "telegram" }),
    ]);
    expect(logs.logged("question answered")).toEqual([
      expect.objectContaining({ ...ids, status: "answered", resolvedBy: "telegram" }),
    ]);
    // The run took the answer once; the other send — the answer's own, or the stream's, whichever came
    // second (locally the stream can be first) — found it no longer waiting on that token.
    expect(logs.logged("run resumed")).toEqual([expect.objectContaining(ids)]);
    expect(logs.logged("run no longer waiting")).toEqual([expect.objectContaining(ids)]);
    expect(
      [...logs.logged("run resumed"), ...logs.logged("run no longer waiting")].map((line) => line.via).sort(),
    ).toEqual(["answer", "stream"]);
    // Every line is structured and names its function; the Lambda context is on the handlers' lines.
    const askLine = logs.logged("question asked")[0];
    expect(askLine).toMatchObject({
      service: "handraise",
      function: "ask",
      function_name: expect.any(String),
    });

    // The log lines, that is: the local bus also prints each question event (`event {…}`), whose detail is
    // the question record by contract (docs/events.md).
    const everything = logs
      .lines()
      .filter((line) => !line.startsWith("event "))
      .join("\n");
    for (const forbidden of [token, answer, BOT_TOKEN, SECRET, TEST_API_KEY, singleQuestion.question]) {
      expect(everything).not.toContain(forbidden);
    }
  });

  it("a rejected webhook request is logged with its status and code, never its body", async () => {
    logs = captureLogs();
    expect((await typed(61_002, "body-text-never-logged", "wrong-secret")).status).toBe(401);
    expect(logs.logged("webhook rejected")).toEqual([
      expect.objectContaining({ platform: "telegram", status: 401, reason: "UNAUTHORIZED", level: "WARN" }),
    ]);
    expect(logs.metric("WebhookRejected")).toEqual([
      {
        value: 1,
        unit: "Count",
        dimensions: { service: "handraise", platform: "telegram", reason: "UNAUTHORIZED" },
      },
    ]);
    expect(logs.lines().join("\n")).not.toContain("body-text-never-logged");
  });
});

describe("metrics (CloudWatch EMF, namespace Handraise)", () => {
  it("count every outcome, and time answers", async () => {
    logs = captureLogs();
    // An agent run whose question nobody answers: the task times out (1 s + 10 s grace), the question
    // expires. Started first, so that wait runs while the other outcomes are made.
    const expiring = await startRun(62_006, 1);
    const ask = async (owner: number) => {
      const created = await stack.api("POST", "/questions", {
        questions: [singleQuestion],
        owner: `telegram:${owner}`,
        deliverTo: [{ channel: "telegram", chatId: String(owner) }],
      });
      return created.body.id as string;
    };
    const answered = await ask(62_001);
    await stack.api("POST", `/questions/${answered}/answer`, { answers: { deploy_target: ["Production"] } });
    await stack.api("POST", `/questions/${await ask(62_002)}/cancel`, {});
    await stack.api("POST", `/questions/${await ask(62_003)}/cancel`, { reason: "skipped" });
    // Telegram refuses chat -1.
    telegram.respond((call) =>
      call.method === "sendMessage" && String(call.body.chat_id) === "-1"
        ? { status: 400, body: { ok: false, error_code: 400, description: "Bad Request: chat not found" } }
        : call.method === "sendMessage"
          ? { body: { ok: true, result: { message_id: ++messageIds, chat: { id: call.body.chat_id } } } }
          : { body: { ok: true, result: true } },
    );
    await stack.api("POST", "/questions", {
      questions: [singleQuestion],
      owner: "telegram:62005",
      deliverTo: [{ channel: "telegram", chatId: "-1" }],
    });
    expect((await waitForExecutionEnd(stack, expiring.executionArn, 30_000)).status).toBe("SUCCEEDED");

    const total = (name: string) => logs?.metric(name).reduce((sum, m) => sum + m.value, 0);
    expect(total("QuestionsAsked")).toBe(5);
    expect(total("QuestionsAnswered")).toBe(1);
    expect(total("QuestionsCancelled")).toBe(1);
    expect(total("QuestionsSkipped")).toBe(1);
    expect(total("QuestionsDeliveryFailed")).toBe(1);
    expect(total("QuestionsExpired")).toBe(1);
    expect(logs.metric("TimeToAnswer")).toEqual([
      { value: expect.any(Number), unit: "Seconds", dimensions: { service: "handraise" } },
    ]);
    expect(logs.metric("QuestionsAnswered")[0]?.dimensions).toEqual({ service: "handraise" });
  }, 60_000);
});

describe("stream consumer failures", () => {
  it("a resume that can never succeed (access denied) is recorded on the question and not retried; the next record still resumes", async () => {
    logs = captureLogs();
    const poisoned = await startRun(63_001);
    const poisonedQuestion = await questionOf(poisoned.sessionKey);
    // The answer's own SendTaskSuccess and the stream consumer's are both refused for good.
    stack.faults.stepFunctions.failNext(2, {
      code: "AccessDeniedException",
      status: 400,
      operations: ["SendTaskSuccess"],
    });
    const answered = await stack.api("POST", `/questions/${poisonedQuestion.id}/answer`, {
      answers: { deploy_target: ["Production"] },
    });
    expect(answered.status).toBe(200);
    await stack.streamsDrained();
    expect(stack.faults.stepFunctions.clear()).toBe(0);
    const item = (await allItems(stack)).find((i) => i.id === poisonedQuestion.id);
    expect(item?.resumeFailure).toEqual({ code: "AccessDeniedException", atMs: expect.any(Number) });
    expect(logs.logged("run resume abandoned (final error, not retried)")).toEqual([
      expect.objectContaining({
        questionId: poisonedQuestion.id,
        error: expect.objectContaining({ name: "FinalCallbackError" }),
      }),
    ]);
    expect(logs.metric("ResumeAbandoned")).toHaveLength(1);
    expect(stack.streamFailures).toEqual([]);

    // The records behind it are not held up.
    const next = await startRun(63_002);
    const nextQuestion = await questionOf(next.sessionKey);
    await stack.api("POST", `/questions/${nextQuestion.id}/answer`, {
      answers: { deploy_target: ["Production"] },
    });
    expect((await waitForExecutionEnd(stack, next.executionArn)).status).toBe("SUCCEEDED");
    await stack.sfn.send(new StopExecutionCommand({ executionArn: poisoned.executionArn }));
  });

  it("a transient failure is retried until the run takes the answer (ResumeRetried)", async () => {
    logs = captureLogs();
    const run = await startRun(63_003);
    const question = await questionOf(run.sessionKey);
    // Every SendTaskSuccess is throttled until the answer's own attempts are over (a fixed count would race
    // the answer's attempts against the stream's); then Step Functions recovers and the stream's retry gets
    // through.
    stack.faults.stepFunctions.failNext(10_000, {
      code: "ThrottlingException",
      status: 400,
      operations: ["SendTaskSuccess"],
    });
    const answered = await stack.api("POST", `/questions/${question.id}/answer`, {
      answers: { deploy_target: ["Production"] },
    });
    expect(answered.status).toBe(200);
    stack.faults.stepFunctions.clear();
    expect((await waitForExecutionEnd(stack, run.executionArn)).status).toBe("SUCCEEDED");
    await stack.streamsDrained();
    expect(logs.metric("ResumeRetried")).toHaveLength(1);
    expect(logs.logged("run resumed")).toEqual([
      expect.objectContaining({ questionId: question.id, via: "stream" }),
    ]);
  });

  it("a record that fails every retry goes to the on-failure destination, and the stream moves on", async () => {
    logs = captureLogs();
    // The eleven attempts back off from 1 ms instead of 100 ms (what they are is checked, not how long they
    // wait): about a second of backoff instead of thirteen.
    stack.setStreamRetryDelay(1);
    const run = await startRun(63_004);
    const question = await questionOf(run.sessionKey);
    stack.faults.stepFunctions.failNext(10_000, {
      code: "ServiceUnavailable",
      status: 503,
      operations: ["SendTaskSuccess"],
    });
    await stack.api("POST", `/questions/${question.id}/answer`, {
      answers: { deploy_target: ["Production"] },
    });
    await stack.streamsDrained();
    expect(stack.streamFailures).toEqual([
      expect.objectContaining({ consumer: expect.stringContaining("questionEvents"), attempts: 11 }),
    ]);
    stack.faults.stepFunctions.clear();
    await stack.sfn.send(new StopExecutionCommand({ executionArn: run.executionArn }));
  }, 60_000);
});
