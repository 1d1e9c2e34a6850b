/**
 * The events other systems subscribe to: `Question Requested` when a question is stored, `Question Resolved`
 * when it ends (answered, cancelled, skipped, expired, delivery_failed), source `handraise`. The detail is
 * the API record — never a task token, nor the `notify` URL (it may carry the receiver's own secret in its
 * path, and a bus has many readers) or a stepper's draft — plus `eventId`, the same for every delivery of one question's one
 * transition, so a consumer dedupes by it (events are published at least once). Pure.
 */
import type { QuestionRecord } from "../questions/question-record.ts";

export const EVENT_SOURCE = "handraise";

export type QuestionEventType = "Question Requested" | "Question Resolved";

export interface QuestionEvent {
  detailType: QuestionEventType;
  source: typeof EVENT_SOURCE;
  detail: Omit<QuestionRecord, "notify" | "draft" | "step"> & { eventId: string };
}

/**
 * @example
 * questionEvent("Question Resolved", record).detail.eventId // → "ask_…:resolved"
 */
export function questionEvent(detailType: QuestionEventType, record: QuestionRecord): QuestionEvent {
  const transition = detailType === "Question Requested" ? "requested" : "resolved";
  const { notify: _notify, draft: _draft, step: _step, ...shown } = record;
  return { detailType, source: EVENT_SOURCE, detail: { ...shown, eventId: `${record.id}:${transition}` } };
}
