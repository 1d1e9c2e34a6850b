import { type CallbackOutcome, TASK_ERRORS, type TaskCallbacks } from "../callbacks/task-callbacks.ts";
import type { QuestionRecord } from "../questions/question-record.ts";
import { idsOf, type Telemetry } from "../telemetry/telemetry.ts";
import { answeredResult, resultOf } from "./question-result.ts";

/** The cause sent with each cancel reason. */
const CANCEL_CAUSES = {
  cancelled: "The question was cancelled.",
  skipped: "The user skipped the question.",
} as const;

/**
 * Sends a waiting run the outcome of its closed question: answered → SendTaskSuccess with the answers and
 * who gave them (`resolvedBy`); cancelled or skipped → SendTaskFailure with Handraise.Cancelled /
 * Handraise.Skipped (the state machine's Catch turns them into no_answer results); no_quorum →
 * SendTaskSuccess with its no_answer result and the votes. A question that ended
 * without an outcome for the run (delivery_failed: the ask itself failed, so nothing waits; expired: the
 * task times out by itself) sends nothing. The one place both the answer path and the stream consumer build
 * what a run receives.
 */
export async function resumeRun(
  callbacks: TaskCallbacks,
  taskToken: string,
  record: QuestionRecord,
): Promise<CallbackOutcome> {
  if (record.status === "answered") {
    return callbacks.succeed(taskToken, answeredResult(record));
  }
  // The result itself, as an answer is sent: it carries the votes, which a task failure's cause could not.
  if (record.status === "no_quorum") return callbacks.succeed(taskToken, resultOf(record));
  if (record.status === "cancelled") {
    const reason = record.reason === "skipped" ? "skipped" : "cancelled";
    return callbacks.fail(taskToken, TASK_ERRORS[reason], CANCEL_CAUSES[reason]);
  }
  return "not_waiting";
}

/**
 * Whether the question's run has ended (Step Functions' DescribeExecution), told apart from a dead token: a
 * retried AskUser task's earlier token no longer waits while its run goes on, and is given the outcome by the
 * retry. False when it cannot be told — no run id, callbacks that cannot ask, a refused or failed call (the
 * failure is reported) — so a caller that acts on "ended" errs on the side of keeping the question.
 */
export async function runHasEnded(
  callbacks: TaskCallbacks,
  record: QuestionRecord,
  telemetry: Pick<Telemetry, "failed">,
): Promise<boolean> {
  const { runId } = record;
  if (runId === undefined || callbacks.runEnded === undefined) return false;
  return callbacks.runEnded(runId).catch((error: unknown) => {
    telemetry.failed("asking whether the run has ended", error, idsOf(record));
    return false;
  });
}
