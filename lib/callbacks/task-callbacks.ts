import type { AskUserResult } from "../questions/schema.ts";

/**
 * Error names the run's `Catch` turns into no_answer results (docs/architecture.md, "The agent state
 * machine").
 */
export const TASK_ERRORS = { cancelled: "Handraise.Cancelled", skipped: "Handraise.Skipped" } as const;
export type TaskErrorName = (typeof TASK_ERRORS)[keyof typeof TASK_ERRORS];

/**
 * `resumed`: Step Functions took the result. `not_waiting`: the run no longer waits on this token (it timed
 * out, was stopped, or the token was already used) — a normal outcome, not a failure.
 */
export type CallbackOutcome = "resumed" | "not_waiting";

/**
 * Step Functions refused the call for good (access denied, an invalid output, …): sending it again cannot
 * succeed, so it must not be retried. Other errors (throttling, 5xx, network) are thrown as they are.
 */
export class FinalCallbackError extends Error {
  override readonly name = "FinalCallbackError";
  constructor(
    /** The service's error code, e.g. AccessDeniedException. */
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

/**
 * The service answered that the run no longer waits (the token or callback has ended) after an earlier
 * attempt of the same success or failure may have reached it without an answer (cut off after it was sent,
 * its connection lost, a 5xx): that attempt may be what ended it. Thrown, as a failure to reach the service
 * is, rather than `not_waiting`: nothing then records that the run missed the outcome, and the table
 * stream's own send reports what the service says of it.
 */
export class UnconfirmedCallbackError extends Error {
  override readonly name = "UnconfirmedCallbackError";
  constructor(operation: string) {
    super(
      `${operation}: an attempt went unanswered and the run has since stopped waiting; it may have taken it.`,
    );
  }
}

/**
 * Resuming a waiting run. Callers hold the token only between closing the record and this call.
 *
 * @example
 * await callbacks.succeed(token, { status: "answered", answers });
 * await callbacks.fail(token, TASK_ERRORS.skipped, "The user skipped the question.");
 */
export interface TaskCallbacks {
  succeed(taskToken: string, result: AskUserResult): Promise<CallbackOutcome>;
  fail(taskToken: string, error: TaskErrorName, cause: string): Promise<CallbackOutcome>;
  heartbeat(taskToken: string): Promise<CallbackOutcome>;
  /**
   * Whether the run `runId` (a Step Functions execution ARN) has ended: a dead token alone does not say so,
   * since a retried task's earlier token dies while its run goes on. Step Functions only; throws when it
   * cannot tell.
   */
  runEnded?(runId: string): Promise<boolean>;
}
