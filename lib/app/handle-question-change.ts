import type { ChannelRegistry } from "../channels/chat-channel.ts";
import type { EventPublisher } from "../events/event-publisher.ts";
import { questionEvent } from "../events/question-event.ts";
import type { QuestionChange } from "../store/question-stream.ts";
import type { Telemetry } from "../telemetry/telemetry.ts";
import type { QuestionTimers } from "./question-timers.ts";
import { retireDeliveries, votersCopies } from "./retire-deliveries.ts";
import type { SettleClosedQuestion } from "./settle-closed-question.ts";

/**
 * What the table's stream consumer does with a question's change: a stored question is announced
 * (`Question Requested`) and its timers set (expiry, reminders, escalation: lib/app/question-timers.ts); a
 * closed one is settled — its run resumed and its chat copies retired (lib/app/settle-closed-question.ts) —
 * its timers cleared, and then announced (`Question Resolved`). Resuming first means a bus that keeps
 * refusing the event never keeps the answer from the run: the failed publish still fails the record, whose
 * retries settle again (a second resume is answered "no longer waiting", a retired copy is edited the same)
 * and publish again, and a record that fails every retry goes to the failure queue with its run resumed.
 * The events are at least once either way, and their `eventId` lets subscribers drop a repeat. A pending question that kept new votes has its new voters'
 * own copies edited without controls on every platform, whatever surface they voted through (a webhook holds
 * only its own platform's credentials; this function holds them all); a group's shared copy keeps them.
 *
 * @example
 * const handleQuestionChange = createHandleQuestionChange({ events, settle, timers, channels, telemetry });
 * await handleQuestionChange({ kind: "requested", record });
 */
export function createHandleQuestionChange(deps: {
  events: EventPublisher;
  settle: SettleClosedQuestion;
  timers: QuestionTimers;
  /** Every enabled channel: a voter's copies may be on any platform. */
  channels: ChannelRegistry;
  telemetry: Telemetry;
}) {
  return async function handleQuestionChange(change: QuestionChange): Promise<void> {
    if (change.kind === "voted") {
      const { record } = change;
      const deliveries = votersCopies(record, change.voters);
      // Reported, not thrown: the vote stands, and a copy left as it is refuses a second vote anyway.
      await retireDeliveries(deps.channels, { ...record, deliveries }, (error, channel) =>
        deps.telemetry.failed("retiring a voter's copy", error, { questionId: record.id, channel }),
      );
      return;
    }
    if (change.kind === "requested") {
      await deps.events.publish([questionEvent("Question Requested", change.record)]);
      await deps.timers.start(change.record);
      return;
    }
    await deps.settle(change);
    await deps.timers.stop(change.record);
    await deps.events.publish([questionEvent("Question Resolved", change.record)]);
  };
}

export type HandleQuestionChange = ReturnType<typeof createHandleQuestionChange>;
