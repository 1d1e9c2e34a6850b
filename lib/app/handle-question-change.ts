import type { EventPublisher } from "../events/event-publisher.ts";
import { questionEvent } from "../events/question-event.ts";
import type { QuestionChange } from "../store/question-stream.ts";
import type { SettleClosedQuestion } from "./settle-closed-question.ts";

/**
 * What the table's stream consumer does with a question's change: a stored question is announced
 * (`Question Requested`); a closed one is announced (`Question Resolved`), then settled — its run resumed
 * and its chat copies retired (lib/app/settle-closed-question.ts). Announcing first means a failure to
 * publish retries the record before anything else was done; the events are at least once either way, and
 * their `eventId` lets subscribers drop a repeat.
 *
 * @example
 * const handleQuestionChange = createHandleQuestionChange({ events, settle });
 * await handleQuestionChange({ kind: "requested", record });
 */
export function createHandleQuestionChange(deps: { events: EventPublisher; settle: SettleClosedQuestion }) {
  return async function handleQuestionChange(change: QuestionChange): Promise<void> {
    if (change.kind === "requested") {
      await deps.events.publish([questionEvent("Question Requested", change.record)]);
      return;
    }
    await deps.events.publish([questionEvent("Question Resolved", change.record)]);
    await deps.settle(change);
  };
}

export type HandleQuestionChange = ReturnType<typeof createHandleQuestionChange>;
