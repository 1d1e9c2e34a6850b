/**
 * A question's timers: its expiry at the deadline, its reminders and its escalation, each a one-time timer
 * that fires the question-timer function (functions/question-timer.ts) with a small event. Which timers a
 * question has is a pure function of its record (`timersOf`); the `Timers` port sets and clears them
 * (deployed: EventBridge Scheduler, lib/timers/scheduler-timers.ts).
 */
import { escalationAtMs, type QuestionRecord, RECORD_ID_PATTERN } from "../questions/question-record.ts";
import * as z from "../zod.ts";

/** What a timer hands the question-timer function when it fires: which question, what to do, when it was due. */
export const timerEventSchema = z.strictObject({
  questionId: z.string().check(z.regex(RECORD_ID_PATTERN)),
  kind: z.enum(["expire", "remind", "escalate"]),
  /** The reminder's position in `remindAfterSeconds` (reminders only). */
  index: z.optional(z.int().check(z.gte(0))),
  /** When it was due (epoch ms); a timer may fire a little early or late. */
  dueAtMs: z.int(),
});
export type TimerEvent = z.infer<typeof timerEventSchema>;

export interface QuestionTimer {
  /**
   * Unique per question and timer, derived from both (`<id>-expire`, `<id>-remind-<n>`, `<id>-escalate`):
   * at most 64 characters of `[0-9A-Za-z_.-]` (a question id is at most 48 of `[A-Za-z0-9_-]`).
   */
  name: string;
  event: TimerEvent;
}

/** A timer's name, from what it does for which question. */
export function timerName(event: Pick<TimerEvent, "questionId" | "kind" | "index">): string {
  return event.kind === "remind"
    ? `${event.questionId}-remind-${event.index ?? 0}`
    : `${event.questionId}-${event.kind}`;
}

/** The timers of a question: its expiry, each reminder, its escalation. */
export function timersOf(
  record: Pick<QuestionRecord, "id" | "createdAtMs" | "expiresAtMs" | "remindAfterSeconds" | "escalate">,
): QuestionTimer[] {
  const events: TimerEvent[] = [
    { questionId: record.id, kind: "expire", dueAtMs: record.expiresAtMs },
    ...(record.remindAfterSeconds ?? []).map(
      (seconds, index): TimerEvent => ({
        questionId: record.id,
        kind: "remind",
        index,
        dueAtMs: record.createdAtMs + seconds * 1000,
      }),
    ),
  ];
  const escalateAt = escalationAtMs(record);
  if (escalateAt !== undefined) events.push({ questionId: record.id, kind: "escalate", dueAtMs: escalateAt });
  return events.map((event) => ({ name: timerName(event), event }));
}

/**
 * A timer that could not be set or cleared and never will be (a refused request: access denied, a
 * malformed schedule): retrying cannot help. Other errors (throttling, 5xx, network) are thrown as they are.
 */
export class FinalTimerError extends Error {
  override readonly name = "FinalTimerError";
  constructor(
    /** The service's error code, e.g. ValidationException. */
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

/**
 * One-time timers, named. At least once: a timer may fire twice, or fire after it was cleared (its question
 * has ended by then), so whatever it fires must check and be idempotent.
 *
 * @example
 * await timers.set({ name: "ask_1-expire", event: { questionId: "ask_1", kind: "expire", dueAtMs } });
 * await timers.clear("ask_1-expire");
 */
export interface Timers {
  /** Sets a timer that fires at `event.dueAtMs`; one already set under the name is kept as it is. */
  set(timer: QuestionTimer): Promise<void>;
  /** Clears a timer; one that has fired, or was never set, is no error. */
  clear(name: string): Promise<void>;
}

/** For deployments without a scheduler: nothing fires, expiry stays derived on read (and the model step's). */
export const NO_TIMERS: Timers = { set: async () => {}, clear: async () => {} };
