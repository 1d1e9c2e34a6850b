import type { QuestionRecord } from "../questions/question-record.ts";
import { idsOf, refOf, type Telemetry } from "../telemetry/telemetry.ts";
import { FinalTimerError, type Timers, timersOf } from "../timers/timers.ts";

export interface QuestionTimersDeps {
  timers: Timers;
  telemetry: Telemetry;
}

/**
 * Sets a question's timers when it is stored and clears them when it ends, from the table's stream
 * (lib/app/handle-question-change.ts) — not on the request path: asking and answering wait on no Scheduler
 * call, only the stream consumer's role may create schedules, and every way a question ends (an answer on
 * any path, a cancel, a released wait, its own expiry) clears them the same way.
 *
 * Setting is retried with the stream record when it fails for a while (throttling, 5xx); a refusal no retry
 * can cure is reported and dropped (the question then still reads as expired after its deadline, and an
 * agent run's question is closed by the model step when its task times out). Clearing is best effort: a
 * timer that fires on an ended question does nothing.
 *
 * @example
 * const questionTimers = createQuestionTimers({ timers, telemetry });
 * await questionTimers.start(record); // stored
 * await questionTimers.stop(record); // ended
 */
export function createQuestionTimers(deps: QuestionTimersDeps) {
  const { timers, telemetry } = deps;

  return {
    async start(record: QuestionRecord): Promise<void> {
      await Promise.all(
        timersOf(record).map(async (timer) => {
          try {
            await timers.set(timer);
          } catch (error) {
            if (!(error instanceof FinalTimerError)) throw error;
            telemetry.failed("setting a question's timer (not retried)", error, {
              ...idsOf(refOf(record)),
              timer: timer.event.kind,
            });
          }
        }),
      );
    },

    async stop(record: QuestionRecord): Promise<void> {
      await Promise.all(
        timersOf(record).map(async (timer) => {
          try {
            await timers.clear(timer.name);
          } catch (error) {
            telemetry.failed("clearing a question's timer (it will find the question ended)", error, {
              ...idsOf(refOf(record)),
              timer: timer.event.kind,
            });
          }
        }),
      );
    },
  };
}

export type QuestionTimers = ReturnType<typeof createQuestionTimers>;
