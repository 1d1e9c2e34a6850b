import type { QuestionEvent } from "./question-event.ts";

/**
 * Where question events go (deployed: the stack's EventBridge bus). Publishing is at least once: a failure
 * throws, and the caller's retry may send an event again (consumers dedupe by `detail.eventId`).
 *
 * @example
 * await publisher.publish([questionEvent("Question Requested", record)]);
 */
export interface EventPublisher {
  publish(events: QuestionEvent[]): Promise<void>;
}

/** For deployments without a bus: events are not published. */
export const NO_EVENTS: EventPublisher = { publish: async () => {} };
