import type { ChannelRegistry } from "../channels/chat-channel.ts";
import { type Delivery, escalationAtMs, type QuestionRecord } from "../questions/question-record.ts";
import { copiesNotRecorded } from "../questions/record-budget.ts";
import { hasVoted } from "../questions/votes.ts";
import type { QuestionStore } from "../store/question-store.ts";
import { idsOf, refOf, type Telemetry } from "../telemetry/telemetry.ts";
import { type TimerEvent, timerName } from "../timers/timers.ts";
import { retireDeliveries } from "./retire-deliveries.ts";

export interface FireQuestionTimerDeps {
  store: QuestionStore;
  /** Every enabled channel: reminders go to every chat the question is in, escalations anywhere. */
  channels: ChannelRegistry;
  telemetry: Telemetry;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/**
 * What became of a timer: the question `expired` (this call closed it), was `reminded` or `escalated`; or
 * nothing happened because it had `ended` (answered, cancelled, expired already), is `not_found`, the timer
 * fired before (`duplicate`), or it fired too early to act (`not_due`).
 */
export type TimerOutcome =
  | "expired"
  | "reminded"
  | "escalated"
  | "ended"
  | "not_found"
  | "duplicate"
  | "not_due";

/**
 * Scheduler fires a one-time schedule within the minute of its time, so up to a minute early: a timer whose
 * time is a rule (the deadline, the escalation time) waits for it, at most this long.
 */
const MAX_EARLY_MS = 60_000;

/** A fired reminder or escalation is claimed for longer than Scheduler and Lambda retry one. */
const CLAIM_TTL_SECONDS = 2 * 86_400;

/**
 * The question-timer function's use case (functions/question-timer.ts): a question's timer has fired.
 * - `expire`: at the deadline, closes the question as expired — one conditional write on `status = pending`
 *   and the deadline, so an answer that came first wins and a second firing changes nothing. The table's
 *   stream then announces it and retires every copy, as for any close. Reported here, once, by the write
 *   that won (the model step closes the question of a timed-out task the same way, if no timer did first).
 * - `remind`: while it waits, posts a reminder in each chat where it was posted, saying how long is left
 *   (not in a person's own conversation once that person has voted).
 * - `escalate`: while it waits, from the escalation time, posts it to the escalation owner's targets and
 *   records those copies with the others (they are retired with them).
 * Reminders and escalations are claimed once (a timer is at least once), and only once they are due: an
 * invocation before the time changes nothing and keeps nothing, so the schedule's own invocation (or a
 * retry of it) at the time still acts. A
 * failure gives the claim back and is thrown, so the invocation is retried.
 *
 * @example
 * const fire = createFireQuestionTimer({ store, channels, telemetry, now, sleep });
 * await fire({ questionId: "ask_…", kind: "expire", dueAtMs }); // → "expired" | "ended" | …
 */
export function createFireQuestionTimer(deps: FireQuestionTimerDeps) {
  const { store, channels, telemetry, now } = deps;

  /** Waits until `atMs` if the timer came early (bounded): whether it was due, had to wait, or is too early. */
  async function waitUntil(atMs: number): Promise<"due" | "waited" | "early"> {
    const early = atMs - now();
    if (early <= 0) return "due";
    if (early > MAX_EARLY_MS) return "early";
    await deps.sleep(early);
    return now() >= atMs ? "waited" : "early";
  }

  async function expire(record: QuestionRecord): Promise<TimerOutcome> {
    // Pending, or pending past its deadline (read as expired until this write stores it).
    if (record.status !== "pending" && record.status !== "expired") return "ended";
    if ((await waitUntil(record.expiresAtMs)) === "early") return "not_due";
    const at = now();
    if (!(await store.expire(record.id, at))) return "ended";
    telemetry.closed({
      ...refOf(record),
      status: "expired",
      createdAtMs: record.createdAtMs,
      resolvedAtMs: at,
    });
    return "expired";
  }

  /**
   * When the record says a reminder or escalation is due; undefined when it asks for none. The time is the
   * record's, not the event's, so an invocation naming another index or time posts nothing the question did
   * not ask for.
   */
  function dueAtMs(record: QuestionRecord, event: TimerEvent): number | undefined {
    if (event.kind === "escalate") return escalationAtMs(record);
    const seconds = event.index === undefined ? undefined : record.remindAfterSeconds?.[event.index];
    return seconds === undefined ? undefined : record.createdAtMs + seconds * 1000;
  }

  async function remind(record: QuestionRecord): Promise<TimerOutcome> {
    const reminder = { leftMs: Math.max(0, record.expiresAtMs - now()) };
    await Promise.all(
      onePerChat(stillWaiting(record)).map(async (delivery) => {
        const channel = channels.get(delivery.channel);
        try {
          if (!channel) throw new Error(`channel "${delivery.channel}" is not configured`);
          await channel.remind(record, delivery, reminder);
          telemetry.reminded(refOf(record), delivery);
        } catch (error) {
          // One chat's failure does not hold the others back, nor post the others again.
          telemetry.failed("posting a reminder", error, {
            ...idsOf(refOf(record)),
            channel: delivery.channel,
          });
        }
      }),
    );
    return "reminded";
  }

  async function escalate(record: QuestionRecord): Promise<TimerOutcome> {
    const escalation = record.escalate;
    if (!escalation) return "ended";
    const attempts = await Promise.allSettled(
      // async: a target on a channel this deployment lacks is one refused delivery, not the others' loss.
      escalation.deliverTo.map(async (target) => {
        const channel = channels.get(target.channel);
        if (!channel) throw new Error(`channel "${target.channel}" is not enabled`);
        return channel.deliver(record, target, escalation.owner);
      }),
    );
    const posted: Delivery[] = [];
    attempts.forEach((attempt, index) => {
      const target = escalation.deliverTo[index];
      if (attempt.status === "fulfilled") {
        // Marked as the escalation's: recorded, they give back the room kept for its targets.
        posted.push({ ...attempt.value, escalation: true });
        telemetry.delivered(record, attempt.value);
      } else if (target) telemetry.deliveryRefused(record, target, attempt.reason);
    });
    telemetry.escalated(refOf(record), posted.length);
    if (posted.length === 0) return "escalated";
    // Room was kept for these since the question was asked: only copies beyond its targets can miss it.
    const notRecorded = copiesNotRecorded(record, posted.length, "escalation");
    if (notRecorded) telemetry.failed("recording the escalation's copies", notRecorded, idsOf(refOf(record)));
    const current = await store.addDeliveries(record.id, posted, now(), "escalation");
    if (current && current.status !== "pending") {
      // Ended while these were posted: the stream consumer retired the copies it knew of, not these.
      await retireDeliveries(channels, { ...current, deliveries: posted }, (error, channel) =>
        telemetry.failed("retiring a posted copy", error, { ...idsOf(refOf(record)), channel }),
      );
    }
    return "escalated";
  }

  return async function fireQuestionTimer(event: TimerEvent): Promise<TimerOutcome> {
    const record = await store.get(event.questionId, now());
    if (!record) return "not_found";
    if (event.kind === "expire") return expire(record);
    if (record.status !== "pending") return "ended";
    const dueAt = dueAtMs(record, event);
    if (dueAt === undefined) return "ended";
    // Before its time the timer changes nothing and claims nothing: the invocation at the time still fires.
    const wait = await waitUntil(dueAt);
    if (wait === "early") return "not_due";
    // Read again after waiting: the question may have ended meanwhile.
    const current = wait === "waited" ? await store.get(record.id, now()) : record;
    if (current?.status !== "pending") return "ended";
    const claim = `timer:${timerName(event)}`;
    if (!(await store.claimEvent(claim, CLAIM_TTL_SECONDS, now()))) return "duplicate";
    try {
      return event.kind === "remind" ? await remind(current) : await escalate(current);
    } catch (error) {
      await store.releaseEvent(claim);
      throw error;
    }
  };
}

export type FireQuestionTimer = ReturnType<typeof createFireQuestionTimer>;

/**
 * The copies whose reader may still be waited for: a copy private to a person who has voted already is left
 * out, so that person is not asked again. A shared copy stays: others there may still answer.
 */
function stillWaiting(record: QuestionRecord): Delivery[] {
  return record.deliveries.filter((d) => d.privateTo === undefined || !hasVoted(record.votes, d.privateTo));
}

/** The first posted copy in each chat: one reminder per chat, however often the question was posted there. */
function onePerChat(deliveries: Delivery[]): Delivery[] {
  const chats = new Map<string, Delivery>();
  for (const delivery of deliveries) {
    const chat = `${delivery.channel}\n${delivery.chatId}`;
    if (delivery.messageId !== undefined && !chats.has(chat)) chats.set(chat, delivery);
  }
  return [...chats.values()];
}
