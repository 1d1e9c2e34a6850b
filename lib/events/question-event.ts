/**
 * The events other systems subscribe to: `Question Requested` when a question is stored, `Question Resolved`
 * when it ends (answered, cancelled, skipped, expired, delivery_failed), source `handraise`. The detail is
 * the API record — never a task token — plus `eventId`, the same for every delivery of one question's one
 * transition, so a consumer dedupes by it (events are published at least once). Pure.
 */
import type { QuestionRecord } from "../questions/question-record.ts";

export const EVENT_SOURCE = "handraise";

export type QuestionEventType = "Question Requested" | "Question Resolved";

export interface QuestionEvent {
  detailType: QuestionEventType;
  source: typeof EVENT_SOURCE;
  detail: QuestionRecord & { eventId: string };
}

/**
 * @example
 * questionEvent("Question Resolved", record).detail.eventId // → "ask_…:resolved"
 */
export function questionEvent(detailType: QuestionEventType, record: QuestionRecord): QuestionEvent {
  const transition = detailType === "Question Requested" ? "requested" : "resolved";
  return { detailType, source: EVENT_SOURCE, detail: { ...record, eventId: `${record.id}:${transition}` } };
}
