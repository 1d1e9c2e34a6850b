import type { QuestionRecord } from "../store/question-record.ts";

/** One line saying how a question ended, shown where its prompt was posted. */
export function outcomeText(record: QuestionRecord): string {
  switch (record.status) {
    case "answered": {
      const parts = record.questions.map((q) => `${q.header}: ${(record.answers?.[q.id] ?? []).join(", ")}`);
      return `Answered — ${parts.join("; ")}`;
    }
    case "cancelled":
      return record.reason === "skipped" ? "Skipped." : "Cancelled.";
    case "expired":
      return "Expired: no answer in time.";
    case "delivery_failed":
      return "Could not be delivered.";
    case "pending":
      return "Waiting for an answer.";
  }
}

/** What a late tap or reply is told about a question that has already ended. */
export function endedText(record: QuestionRecord): string {
  switch (record.status) {
    case "answered":
      return "This question has already been answered.";
    case "expired":
      return "This question has expired.";
    default:
      return `This question has ended (${outcomeText(record)})`;
  }
}

/** What someone other than the owner is told when they tap or answer a question. */
export const NOT_YOURS_TEXT = "This question is not yours to answer.";

/** What a tap on a question that no longer exists (or never did) is told. */
export const GONE_TEXT = "This question no longer exists.";

/** What an answer that leaves questions out is told: the ones still needed, by header and id. */
export function stillNeededText(missing: readonly { header: string; id: string }[]): string {
  return `Still needed: ${missing.map((q) => `${q.header} [${q.id}]`).join(", ")}.`;
}
