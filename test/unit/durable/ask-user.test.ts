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
import { ASK_USER_OPERATION, createDurableAskUser } from "#lib/durable/ask-user.ts";
import { questionIdFor, ToolInputError } from "#lib/questions/index.ts";
import type { QuestionRecord } from "#lib/questions/question-record.ts";

const args = {
  questions: [{ id: "q", header: "H", question: "Which?", options: [{ label: "A" }, { label: "B" }] }],
};
const limits = { minTimeoutSeconds: 1, maxTimeoutSeconds: 3600 };

beforeAll(() => LocalDurableTestRunner.setupTestEnvironment({ skipTime: true }));
afterAll(() => LocalDurableTestRunner.teardownTestEnvironment());

/** A durable handler asking once through a stand-in ask use case; what it returned or threw. */
function harness(status: QuestionRecord["status"] | Error = "pending") {
  const asked: AskQuestionInput[] = [];
  const askUser = createDurableAskUser({
    limits,
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
