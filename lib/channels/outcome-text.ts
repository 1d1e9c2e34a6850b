import type { QuestionRecord } from "../questions/question-record.ts";

/** One line saying how a question ended, shown where its prompt was posted. */
export function outcomeText(record: QuestionRecord): string {
  switch (record.status) {
    case "answered": {
      const parts = record.questions.map((q) => `${q.header}: ${(record.answers?.[q.id] ?? []).join(", ")}`);
      // Every copy — the owner's too — says when the person the question was escalated to answered it.
      const by =
        record.escalate !== undefined && record.resolvedBy === record.escalate.owner
          ? ` by ${record.resolvedBy}`
          : "";
      return `Answered${by} — ${parts.join("; ")}`;
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

/**
 * The reminder posted under a question that is still waiting at one of its reminder times: how long is left
 * until its deadline, in minutes (seconds in its last minute, hours and minutes past two hours).
 */
export function reminderText(record: QuestionRecord, nowMs: number): string {
  return `Still waiting for your answer — ${timeLeft(record.expiresAtMs - nowMs)} left`;
}

function timeLeft(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}

/** What someone other than the owner is told when they tap or answer a question. */
export const NOT_YOURS_TEXT = "This question is not yours to answer.";

/** What a tap on a question that no longer exists (or never did) is told. */
export const GONE_TEXT = "This question no longer exists.";

/** What an answer that leaves questions out is told: the ones still needed, by header and id. */
export function stillNeededText(missing: readonly { header: string; id: string }[]): string {
  return `Still needed: ${missing.map((q) => `${q.header} [${q.id}]`).join(", ")}.`;
}
