import type { TaskCallbacks } from "../callbacks/task-callbacks.ts";
import type { ChannelRegistry } from "../channels/chat-channel.ts";
import type { ClosedQuestion } from "../store/question-stream.ts";
import { retireDeliveries } from "./retire-deliveries.ts";
import { resumeRun } from "./run-outcome.ts";

export interface SettleDeps {
  callbacks: TaskCallbacks;
  /** Every enabled channel: a question's copies may be on any platform. */
  channels: ChannelRegistry;
  /** Reports a copy that could not be retired (the outcome stands; it is not retried). */
  onRetireError: (error: unknown, channel: string) => void;
}

/**
 * What follows a question's close, run from the table's stream (at least once, in order per question):
 * 1. the run that waited on it is resumed — again: the closing path's own SendTaskSuccess is the fast path,
 *    this is the durable one, so an answer whose resume was throttled, or whose Lambda died right after the
 *    write, still reaches the run; a second send is answered "no longer waiting";
 * 2. every posted copy on every platform is edited to the outcome without controls. This is the one
 *    function that holds every channel's credentials: a platform's webhook holds only its own.
 * Throttling and 5xx from Step Functions are thrown, so the stream retries the record (retiring comes after,
 * so a retried record does not edit twice).
 *
 * @example
 * const settle = createSettleClosedQuestion({ callbacks, channels, onRetireError });
 * await settle({ record, taskToken }); // → "resumed" | "not_waiting" | "no_run"
 */
export function createSettleClosedQuestion(deps: SettleDeps) {
  return async function settleClosedQuestion(
    closed: ClosedQuestion,
  ): Promise<"resumed" | "not_waiting" | "no_run"> {
    const run =
      closed.taskToken === undefined
        ? "no_run"
        : await resumeRun(deps.callbacks, closed.taskToken, closed.record);
    await retireDeliveries(deps.channels, closed.record, deps.onRetireError);
    return run;
  };
}

export type SettleClosedQuestion = ReturnType<typeof createSettleClosedQuestion>;
