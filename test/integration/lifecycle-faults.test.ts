/**
 * Lifecycle guarantees under faults, against the local stack with AWS's own error responses injected
 * (stack.faults): no lost answers — an answer whose SendTaskSuccess fails, or whose Lambda dies right after
 * the write, still reaches the run through the table's stream (functions/question-events.ts) — and a
 * throttled write changes nothing and can be retried.
 */
import { GetExecutionHistoryCommand, StartExecutionCommand, StopExecutionCommand } from "@aws-sdk/client-sfn";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createDynamoDbQuestionStore } from "#lib/store/dynamodb-question-store.ts";
import { type CapturedLogs, captureLogs } from "./support/captured-logs.ts";
import {
  allItems,
  posted,
  startTestStack,
  type TestStack,
  waitFor,
  waitForExecutionEnd,
} from "./support/test-stack.ts";

let stack: TestStack;
/** Set by a test that reads what the handlers log; restored after it. */
let logs: CapturedLogs;
beforeAll(async () => {
  stack = await startTestStack();
});
afterEach(async () => {
  // Nothing of one test leaks into the next: no pending fault, no stream record still being delivered.
  stack.faults.dynamodb.clear();
  stack.faults.stepFunctions.clear();
  await stack.streamsDrained();
  vi.restoreAllMocks();
});
afterAll(async () => {
  await stack?.stop();
});

let counter = 0;
const unique = (prefix: string) => `${prefix}-${Date.now()}-${++counter}`;

const question = {
  id: "deploy_target",
  header: "Deploy to",
  question: "Where should it go?",
  options: [{ label: "Staging" }, { label: "Production" }],
};

/** Starts an agent run that asks one question, and returns the run and the question once it is delivered. */
async function startAskingRun(): Promise<{ executionArn: string; questionId: string }> {
  const sessionKey = unique("faults");
  const { executionArn } = await stack.sfn.send(
    new StartExecutionCommand({
      stateMachineArn: stack.stateMachineArns.agent,
      input: JSON.stringify({
        sessionKey,
        owner: "web:alice",
        deliverTo: [{ channel: "console", chatId: "terminal" }],
        prompt: "test",
        model: {
          provider: "scripted",
          steps: [
            {
              toolCalls: [
                { id: "call_1", name: "ask_user", arguments: { questions: [question], timeoutSeconds: 60 } },
              ],
            },
            { reply: "{{call_1.status}} {{call_1.reason}} deploy={{call_1.deploy_target}}" },
          ],
        },
      }),
    }),
  );
  if (!executionArn) throw new Error("no execution ARN");
  // Delivered (its copy recorded), so the ask Lambda has made its last write.
  const questionId = await waitFor(
    async () => {
      const listed = await stack.api("GET", `/questions?sessionKey=${encodeURIComponent(sessionKey)}`);
      const id: string | undefined = listed.body.questions[0]?.id;
      if (!id) return undefined;
      const read = await stack.api("GET", `/questions/${id}`);
      return posted(read.body.question) > 0 ? id : undefined;
    },
    { what: `the question of ${sessionKey}` },
  );
  return { executionArn, questionId };
}

async function storedItem(questionId: string): Promise<Record<string, any> | undefined> {
  return (await allItems(stack)).find((item) => item.pk === `Q#${questionId}`);
}

async function historyTypes(executionArn: string): Promise<string[]> {
  const history = await stack.sfn.send(new GetExecutionHistoryCommand({ executionArn, maxResults: 1000 }));
  return (history.events ?? []).map((event) => event.type ?? "");
}

const count = (items: string[], value: string) => items.filter((item) => item === value).length;

describe("no lost answers (a closed question's run is resumed durably)", () => {
  it("SendTaskSuccess throttled beyond the SDK's retries: the answer is accepted, the stream resumes the run once", async () => {
    const { executionArn, questionId } = await startAskingRun();
    logs = captureLogs();
    // Step Functions refuses every SendTaskSuccess — the answer's own attempts and the stream consumer's —
    // until the throttling ends below. (A fixed count would race the two against each other.)
    stack.faults.stepFunctions.failNext(10_000, {
      code: "ThrottlingException",
      status: 400,
      operations: ["SendTaskSuccess"],
    });

    const answered = await stack.api("POST", `/questions/${questionId}/answer`, {
      answers: { deploy_target: ["Production"] },
    });

    expect(answered.status).toBe(200);
    expect(answered.body).toEqual({ status: "answered", answers: { deploy_target: ["Production"] } });
    // The fast path did fail (and said so), yet the person's answer was accepted.
    expect(logs.logged("resuming the run (the stream will retry)")).toEqual([
      expect.objectContaining({
        questionId,
        error: expect.objectContaining({ name: "ThrottlingException" }),
      }),
    ]);
    expect((await stack.api("GET", `/questions/${questionId}`)).body.question.status).toBe("answered");
    expect(count(await historyTypes(executionArn), "TaskSucceeded")).toBe(0);

    // Step Functions recovers: the stream's next retry resumes the run, once.
    expect(stack.faults.stepFunctions.clear()).toBeGreaterThan(0);
    const execution = await waitForExecutionEnd(stack, executionArn);
    expect(execution.status).toBe("SUCCEEDED");
    expect(JSON.parse(execution.output ?? "{}")).toEqual({ reply: "answered  deploy=Production" });
    expect(count(await historyTypes(executionArn), "TaskSucceeded")).toBe(1);
  });

  it("the Lambda died right after the write (no SendTaskSuccess at all): the stream resumes the run", async () => {
    const answeredRun = await startAskingRun();
    const skippedRun = await startAskingRun();
    const store = createDynamoDbQuestionStore({
      client: stack.dynamodb,
      tableName: stack.tableName,
      retentionSeconds: 60,
    });

    // Only the conditional write of the answer path: what is left when the Lambda dies after it.
    const closed = await store.close(
      answeredRun.questionId,
      { status: "answered", answers: { deploy_target: ["Staging"] }, resolvedBy: "test" },
      Date.now(),
    );
    const skipped = await store.close(
      skippedRun.questionId,
      { status: "cancelled", reason: "skipped", resolvedBy: "test" },
      Date.now(),
    );
    expect(closed.kind).toBe("closed");
    expect(skipped.kind).toBe("closed");

    const execution = await waitForExecutionEnd(stack, answeredRun.executionArn);
    expect(execution.status).toBe("SUCCEEDED");
    expect(JSON.parse(execution.output ?? "{}")).toEqual({ reply: "answered  deploy=Staging" });
    expect(count(await historyTypes(answeredRun.executionArn), "TaskSucceeded")).toBe(1);
    const skippedExecution = await waitForExecutionEnd(stack, skippedRun.executionArn);
    expect(JSON.parse(skippedExecution.output ?? "{}")).toEqual({ reply: "no_answer skipped deploy=" });
  });

  it("the run no longer waits when the stream consumer sends: done, nothing dropped", async () => {
    const { executionArn, questionId } = await startAskingRun();
    // Step Functions unavailable for every SendTaskSuccess until the run is stopped.
    stack.faults.stepFunctions.failNext(1000, {
      code: "ServiceUnavailable",
      status: 503,
      operations: ["SendTaskSuccess"],
    });
    const answered = await stack.api("POST", `/questions/${questionId}/answer`, {
      answers: { deploy_target: ["Production"] },
    });
    expect(answered.status).toBe(200);
    // The closing write took the token off the item; the stream record's old image carries it.
    expect((await storedItem(questionId))?.taskToken).toBeUndefined();

    await stack.sfn.send(new StopExecutionCommand({ executionArn }));
    expect((await waitForExecutionEnd(stack, executionArn)).status).toBe("ABORTED");
    stack.faults.stepFunctions.clear();

    // The consumer's next retry hears "task does not exist anymore": done, nothing dropped.
    await stack.streamsDrained();
    expect(stack.streamFailures).toEqual([]);
    const item = await storedItem(questionId);
    expect(item).toMatchObject({ status: "answered", answers: { deploy_target: ["Production"] } });
    expect(count(await historyTypes(executionArn), "TaskSucceeded")).toBe(0);
  });

  it("the closing write removes the task token: a closed question never holds one (the second send is harmless)", async () => {
    const { executionArn, questionId } = await startAskingRun();
    expect((await storedItem(questionId))?.taskToken).toEqual(expect.any(String));

    const answered = await stack.api("POST", `/questions/${questionId}/answer`, {
      answers: { deploy_target: ["Staging"] },
    });
    expect(answered.status).toBe(200);
    expect(await storedItem(questionId)).toMatchObject({ status: "answered" });
    expect((await storedItem(questionId))?.taskToken).toBeUndefined();

    expect((await waitForExecutionEnd(stack, executionArn)).status).toBe("SUCCEEDED");
    await stack.streamsDrained();
    expect(count(await historyTypes(executionArn), "TaskSucceeded")).toBe(1);
  });
});

describe("a write DynamoDB applied, whose response was lost", () => {
  it("the answer's UpdateItem applied, its 500 retried by the SDK: the answer is told it won, the stream resumes the run once", async () => {
    const { executionArn, questionId } = await startAskingRun();
    // DynamoDB closes the question, then the response is lost (a 500 may have succeeded): the SDK sends the
    // same UpdateItem again.
    stack.faults.dynamodb.failNext(1, {
      code: "InternalServerError",
      status: 500,
      operations: ["UpdateItem"],
      applied: true,
    });

    const answered = await stack.api("POST", `/questions/${questionId}/answer`, {
      answers: { deploy_target: ["Production"] },
    });

    expect(stack.faults.dynamodb.injected).toBeGreaterThan(0);
    expect(stack.faults.dynamodb.clear()).toBe(0);
    expect(answered.status).toBe(200);
    expect(answered.body).toEqual({ status: "answered", answers: { deploy_target: ["Production"] } });
    expect(await storedItem(questionId)).not.toHaveProperty("taskToken");
    // The token left the item with the first attempt: the stream's old image has it, and resumes the run.
    const execution = await waitForExecutionEnd(stack, executionArn);
    expect(execution.status).toBe("SUCCEEDED");
    expect(JSON.parse(execution.output ?? "{}")).toEqual({ reply: "answered  deploy=Production" });
    expect(count(await historyTypes(executionArn), "TaskSucceeded")).toBe(1);
    // A later answer is told the question has ended.
    const again = await stack.api("POST", `/questions/${questionId}/answer`, {
      answers: { deploy_target: ["Staging"] },
    });
    expect(again.status).toBe(409);
  });
});

describe("a throttled write changes nothing", () => {
  it("DynamoDB throttles the answer's UpdateItem beyond the SDK's retries: 5xx, still pending, a retry succeeds", async () => {
    const { executionArn, questionId } = await startAskingRun();
    logs = captureLogs();
    // The DynamoDB client makes 4 attempts by default (the other clients 3): fail every one of them.
    stack.faults.dynamodb.failNext(4, {
      code: "ProvisionedThroughputExceededException",
      status: 400,
      operations: ["UpdateItem"],
    });

    const refused = await stack.api("POST", `/questions/${questionId}/answer`, {
      answers: { deploy_target: ["Production"] },
    });

    expect(refused.status).toBeGreaterThanOrEqual(500);
    expect(refused.body).toEqual({ error: { code: "INTERNAL", message: "Internal error." } });
    expect(refused.text).not.toMatch(/throughput|dynamodb/i);
    expect(logs.lines().some((line) => line.includes("ProvisionedThroughputExceededException"))).toBe(true);
    // The SDK used all its attempts on it.
    expect(stack.faults.dynamodb.clear()).toBe(0);
    // Nothing changed: still pending, still listed, the run still waits on the same token.
    const read = await stack.api("GET", `/questions/${questionId}`);
    expect(read.body.question.status).toBe("pending");
    expect(read.body.question.answers).toBeUndefined();
    expect(await storedItem(questionId)).toMatchObject({ status: "pending", taskToken: expect.any(String) });
    expect(await historyTypes(executionArn)).not.toContain("TaskSucceeded");

    const retried = await stack.api("POST", `/questions/${questionId}/answer`, {
      answers: { deploy_target: ["Production"] },
    });
    expect(retried.status).toBe(200);
    const execution = await waitForExecutionEnd(stack, executionArn);
    expect(JSON.parse(execution.output ?? "{}")).toEqual({ reply: "answered  deploy=Production" });
    expect(count(await historyTypes(executionArn), "TaskSucceeded")).toBe(1);
  });
});
