/**
 * askUser for durable functions, in process with the durable SDK's own test runner and a stand-in ask use
 * case: what it registers under the callback id, and the result of each way a wait ends.
 */
import { withDurableExecution } from "@aws/durable-execution-sdk-js";
import { LocalDurableTestRunner, WaitingOperationStatus } from "@aws/durable-execution-sdk-js-testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AskQuestionInput } from "#lib/app/ask-question.ts";
import { SessionBusyError } from "#lib/app/errors.ts";
import { waiterOf } from "#lib/callbacks/waiter.ts";
import {
  ASK_USER_OPERATION,
  createDurableAskUser,
  type DurableExecutionBounds,
} from "#lib/durable/ask-user.ts";
import { createExecutionStarts } from "#lib/durable/execution-starts.ts";
import { questionIdFor, ToolInputError } from "#lib/questions/index.ts";
import type { QuestionRecord } from "#lib/questions/question-record.ts";

const args = {
  questions: [{ id: "q", header: "H", question: "Which?", options: [{ label: "A" }, { label: "B" }] }],
};
const limits = { minTimeoutSeconds: 1, maxTimeoutSeconds: 3600 };

beforeAll(() => LocalDurableTestRunner.setupTestEnvironment({ skipTime: true }));
afterAll(() => LocalDurableTestRunner.teardownTestEnvironment());

/** A durable handler asking once through a stand-in ask use case; what it returned or threw. */
function harness(status: QuestionRecord["status"] | Error = "pending", execution?: DurableExecutionBounds) {
  const asked: AskQuestionInput[] = [];
  const askUser = createDurableAskUser({
    limits,
    execution,
    askQuestion: async (input) => {
      asked.push(input);
      if (status instanceof Error) throw status;
      return {
        id: input.id ?? "ask_x",
        status,
        questions: [],
        owner: input.owner,
        deliveries: [],
        createdAtMs: 0,
        expiresAtMs: 1,
      };
    },
  });
  const handler = withDurableExecution(async (event: { args: unknown }, context) => {
    try {
      return {
        result: await askUser(context, event.args, {
          owner: "web:ann",
          deliverTo: [],
          sessionKey: "s",
          remindAfterSeconds: [600],
          escalate: { afterSeconds: 900, owner: "web:bob", deliverTo: [] },
          requestedBy: "web:carol",
          context: "Nightly release job",
        }),
      };
    } catch (error) {
      return { thrown: (error as Error).name };
    }
  });
  const runner = new LocalDurableTestRunner({ handlerFunction: handler as never });
  return { runner, asked };
}

describe("askUser (durable)", () => {
  it("registers the question under the callback id, and returns the answers the callback brings", async () => {
    const { runner, asked } = harness();
    const execution = runner.run({ payload: { args } });
    const operation = runner.getOperation(ASK_USER_OPERATION);
    await operation.waitForData(WaitingOperationStatus.SUBMITTED);
    const callbackId = operation.getCallbackDetails()?.callbackId as string;
    const [input] = asked;
    expect(waiterOf(input?.taskToken ?? "")).toEqual({ kind: "durable", callbackId });
    expect(input).toMatchObject({ args, owner: "web:ann", sessionKey: "s", toolCallId: callbackId });
    // Its reminders and escalation go to the ask as a state machine's AskUser task passes them (docs/timers.md).
    expect(input).toMatchObject({
      remindAfterSeconds: [600],
      escalate: { afterSeconds: 900, owner: "web:bob", deliverTo: [] },
    });
    // Asked by a run, for the person the run acts for, saying who asks and why.
    expect(input).toMatchObject({ askedBy: "run", requestedBy: "web:carol", context: "Nightly release job" });
    // A retried registration of the same execution and callback finds the same question.
    expect(questionIdFor({ runId: input?.runId, toolCallId: callbackId })).toMatch(/^ask_[0-9a-f]{32}$/);
    const answered = { status: "answered", answers: { q: ["B"] }, resolvedBy: "telegram:42" };
    await operation.sendCallbackSuccess(JSON.stringify(answered));
    // The result names who answered.
    expect((await execution).getResult()).toEqual({ result: answered });
  });

  it.each([
    ["Handraise.Skipped", { status: "no_answer", reason: "skipped" }],
    ["Handraise.Cancelled", { status: "no_answer", reason: "cancelled" }],
  ])("turns a callback failure %s into its no-answer result", async (name, expected) => {
    const { runner } = harness();
    const execution = runner.run({ payload: { args } });
    const operation = runner.getOperation(ASK_USER_OPERATION);
    await operation.waitForData(WaitingOperationStatus.SUBMITTED);
    await operation.sendCallbackFailure({ ErrorType: name, ErrorMessage: "ended", ErrorData: name });
    expect((await execution).getResult()).toEqual({ result: expected });
  });

  it("returns delivery_failed at once when no target took the question (nothing to wait for)", async () => {
    const { runner } = harness("delivery_failed");
    expect((await runner.run({ payload: { args } })).getResult()).toEqual({
      result: { status: "delivery_failed" },
    });
  });

  it("throws ToolInputError for invalid arguments before any durable operation or question", async () => {
    const { runner, asked } = harness();
    const result = await runner.run({ payload: { args: { questions: [] } } });
    expect(result.getResult()).toEqual({ thrown: ToolInputError.name });
    expect(asked).toEqual([]);
  });

  it("gives a busy session back by name, unretried", async () => {
    const { runner, asked } = harness(new SessionBusyError("ask_other"));
    expect((await runner.run({ payload: { args } })).getResult()).toEqual({ thrown: "SessionBusyError" });
    expect(asked).toHaveLength(1);
  });
});

describe("askUser (durable) within its execution", () => {
  const T0 = Date.UTC(2030, 0, 1);
  /** An execution of `timeoutSeconds` that started `elapsedSeconds` ago (its start unknown: undefined). */
  const execution = (timeoutSeconds: number, elapsedSeconds: number | undefined): DurableExecutionBounds => ({
    timeoutSeconds,
    startedAtMs: () => (elapsedSeconds === undefined ? undefined : T0),
    now: () => T0 + (elapsedSeconds ?? 0) * 1000,
  });
  const askedTimeout = async (bounds: DurableExecutionBounds, timeoutSeconds: number) => {
    const { runner, asked } = harness("delivery_failed", bounds);
    await runner.run({ payload: { args: { ...args, timeoutSeconds } } });
    return asked[0]?.args as { timeoutSeconds: number; questions: unknown };
  };

  it("caps the question at the time its execution has left, the grace included", async () => {
    const registered = await askedTimeout(execution(600, 100), 3600);
    expect(registered).toEqual({ ...args, timeoutSeconds: 600 - 100 - 10 });
  });

  it("caps it at the whole execution when the execution's start is unknown, and says so by question id", async () => {
    const warnings: unknown[] = [];
    const warn = (message: string, fields: { questionId: string }) => warnings.push({ message, fields });
    expect((await askedTimeout({ ...execution(300, undefined), warn }, 3600)).timeoutSeconds).toBe(290);
    expect(warnings).toEqual([
      { message: expect.stringContaining("start unknown"), fields: { questionId: "ask_x" } },
    ]);
    warnings.length = 0;
    await askedTimeout({ ...execution(300, 10), warn }, 3600);
    expect(warnings).toEqual([]);
  });

  it("leaves a question that fits as it was asked, and never goes below the deployment's minimum", async () => {
    expect((await askedTimeout(execution(86_400, 100), 900)).timeoutSeconds).toBe(900);
    expect((await askedTimeout(execution(600, 595), 900)).timeoutSeconds).toBe(limits.minTimeoutSeconds);
  });

  it("learns each execution's start from the durable SDK, for that invocation only", async () => {
    const starts = createExecutionStarts();
    const seen: (number | undefined)[] = [];
    const arns: string[] = [];
    const handler = withDurableExecution(
      async (_event: unknown, context) => {
        arns.push(context.executionContext.durableExecutionArn);
        seen.push(starts.startedAtMs(context.executionContext.durableExecutionArn));
        return {};
      },
      { plugins: [starts.plugin] },
    );
    const result = await new LocalDurableTestRunner({ handlerFunction: handler as never }).run({
      payload: {},
    });
    expect(result.getStatus()).toBe("SUCCEEDED");
    expect(seen).toHaveLength(1);
    // The test environment skips time, so its clock is not this process's: a start is all there is to check.
    expect(Number.isFinite(seen[0])).toBe(true);
    // Forgotten once the invocation ended.
    expect(starts.startedAtMs(arns[0] ?? "")).toBeUndefined();
  });
});
