/**
 * A closed question's notification: what is POSTed (the same body, under the same `webhook-id`, on every
 * attempt — a receiver drops a repeat by its id) and when each attempt is due. Pure: no I/O, no clock.
 */
import { resultOf } from "../app/question-result.ts";
import type { QuestionRecord } from "../questions/question-record.ts";

/** The longest SQS lets a message wait before it is delivered; longer waits are taken in hops of this. */
export const MAX_QUEUE_DELAY_SECONDS = 900;

/** One notification attempt waiting in the queue. */
export interface NotificationMessage {
  /** `webhook-id`: one per question, whichever attempt or duplicate carries it. */
  id: string;
  questionId: string;
  url: string;
  /** The JSON body, fixed when the question closed. */
  body: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** Not to be sent before this time (ms). */
  notBeforeMs: number;
}

/**
 * The first attempt's message for a question that has just closed. The body, Standard Webhooks' suggested
 * shape: `{"type":"question.closed","timestamp":"…","data":{"questionId":"ask_…","status":"answered",
 * "answers":{…}}}` — `data` is the ask_user result with the question's id.
 */
export function notificationFor(record: QuestionRecord, url: string, nowMs: number): NotificationMessage {
  const body = JSON.stringify({
    type: "question.closed",
    timestamp: new Date(record.resolvedAtMs ?? nowMs).toISOString(),
    data: {
      questionId: record.id,
      ...resultOf(record),
      ...(record.resolvedBy !== undefined && { resolvedBy: record.resolvedBy }),
      ...(record.sessionKey !== undefined && { sessionKey: record.sessionKey }),
      ...(record.agentId !== undefined && { agentId: record.agentId }),
    },
  });
  return { id: `msg_${record.id}`, questionId: record.id, url, body, attempt: 1, notBeforeMs: nowMs };
}

/** The next attempt after a failed one, `retrySeconds[attempt - 1]` later; undefined when none is left. */
export function nextAttempt(
  message: NotificationMessage,
  retrySeconds: readonly number[],
  nowMs: number,
): NotificationMessage | undefined {
  const wait = retrySeconds[message.attempt - 1];
  if (wait === undefined) return undefined;
  return { ...message, attempt: message.attempt + 1, notBeforeMs: nowMs + wait * 1000 };
}

/** How long the queue should hold a message before handing it over (0: it is due). */
export function queueDelaySeconds(message: NotificationMessage, nowMs: number): number {
  const remaining = Math.ceil((message.notBeforeMs - nowMs) / 1000);
  return Math.max(0, Math.min(MAX_QUEUE_DELAY_SECONDS, remaining));
}
