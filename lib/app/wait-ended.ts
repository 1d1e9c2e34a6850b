import type { Outcome } from "../store/question-store.ts";

/**
 * How a question is closed when the wait on it ended outside Handraise — an operator's SendTaskFailure or
 * SendTaskSuccess with the run's token, a run that moved on after its ask failed halfway: cancelled, and
 * `resolvedBy` says why, so nobody can answer into a run that no longer listens.
 */
export const WAIT_ENDED: Outcome = { status: "cancelled", reason: "cancelled", resolvedBy: "wait-ended" };

/**
 * How the question of a run that stopped (StopExecution, failure, timeout) is closed, whichever path finds
 * it: the run-status consumer (lib/app/cancel-stopped-run.ts) or the ask that stored it after the stop.
 */
export const RUN_STOPPED = { status: "cancelled", reason: "cancelled", resolvedBy: "run-abort" } as const;
