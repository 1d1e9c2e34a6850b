import { FinalCallbackError, type TaskCallbacks } from "../callbacks/task-callbacks.ts";
import type { ChannelRegistry } from "../channels/chat-channel.ts";
import type { QuestionStore } from "../store/question-store.ts";
import type { ClosedQuestion } from "../store/question-stream.ts";
import { refOf, type Telemetry } from "../telemetry/telemetry.ts";
import { retireDeliveries } from "./retire-deliveries.ts";
import { resumeRun } from "./run-outcome.ts";

export interface SettleDeps {
  callbacks: TaskCallbacks;
  /** Every enabled channel: a question's copies may be on any platform. */
  channels: ChannelRegistry;
  /** Records a resume that failed for good on the question, for whoever looks into it. */
  store: Pick<QuestionStore, "recordResumeFailure" | "markStreamResume">;
  telemetry: Telemetry;
  now: () => number;
}

export type Settlement = "resumed" | "not_waiting" | "no_run" | "abandoned";

/**
 * What follows a question's close, run from the table's stream (at least once, in order per question):
 * 1. the run that waited on it is resumed — again: the closing path's own SendTaskSuccess is the fast path,
 *    this is the durable one, so an answer whose resume was throttled, or whose Lambda died right after the
 *    write, still reaches the run; a second send is answered "no longer waiting";
 * 2. every posted copy on every platform is edited to the outcome without controls. This is the one
 *    function that holds every channel's credentials: a platform's webhook holds only its own.
 * Throttling, 5xx and network errors are thrown, so the stream retries the record (a bounded number of
 * times, then it goes to the on-failure queue). A refusal no retry can cure (FinalCallbackError: the role
 * may not resume that state machine, …) is recorded on the question and reported, and the record is done:
 * a poison record never holds up the records behind it.
 *
 * @example
 * const settle = createSettleClosedQuestion({ callbacks, channels, store, telemetry, now });
 * await settle({ record, taskToken }); // → "resumed" | "not_waiting" | "no_run" | "abandoned"
 */
export function createSettleClosedQuestion(deps: SettleDeps) {
  const { telemetry } = deps;

  async function resume(closed: ClosedQuestion): Promise<Settlement> {
    // An expired question's run is not sent anything: its AskUser task ends by its own timeout (the deadline
    // plus a grace period), which is the agent's guarantee whether or not a timer closed the question.
    if (closed.taskToken === undefined || closed.record.status === "expired") return "no_run";
    const question = refOf(closed.record);
    // Noted before the send: a closing function that loses the race to it then knows not to say the run
    // stopped (lib/app/resolve-question.ts).
    await deps.store.markStreamResume(closed.record.id, deps.now());
    try {
      const outcome = await resumeRun(deps.callbacks, closed.taskToken, closed.record);
      telemetry.resumed(question, "stream", outcome);
      return outcome;
    } catch (error) {
      if (!(error instanceof FinalCallbackError)) throw error;
      telemetry.resumeAbandoned(question, error);
      await deps.store.recordResumeFailure(closed.record.id, { code: error.code, atMs: deps.now() });
      return "abandoned";
    }
  }

  return async function settleClosedQuestion(closed: ClosedQuestion): Promise<Settlement> {
    const settlement = await resume(closed);
    await retireDeliveries(deps.channels, closed.record, (error, channel) =>
      telemetry.failed("retiring a posted copy", error, { questionId: closed.record.id, channel }),
    );
    return settlement;
  };
}

export type SettleClosedQuestion = ReturnType<typeof createSettleClosedQuestion>;
