import type { QuestionRecord } from "../questions/question-record.ts";
import type { AskUserResult } from "../questions/schema.ts";

/**
 * What a question that has ended gives its asker, as ask_user reports it: the answers, no_answer with its
 * reason (expired, cancelled, skipped, no_quorum with the votes), or delivery_failed. The shape a waiting run gets, an MCP tool call
 * returns (lib/mcp) and a notification carries (lib/notify). An answer names who gave it (`resolvedBy`).
 */
export function resultOf(record: QuestionRecord): AskUserResult {
  switch (record.status) {
    case "answered":
      return answeredResult(record);
    case "cancelled":
      return { status: "no_answer", reason: record.reason === "skipped" ? "skipped" : "cancelled" };
    case "delivery_failed":
      return { status: "delivery_failed" };
    case "no_quorum":
      return { status: "no_answer", reason: "no_quorum", votes: record.votes ?? [] };
    default:
      return { status: "no_answer", reason: "expired" };
  }
}

/** The result of an answered question: its answers and who gave them (the record's `resolvedBy`). */
export function answeredResult(
  record: Pick<QuestionRecord, "answers" | "resolvedBy" | "votes">,
): AskUserResult {
  return {
    status: "answered",
    answers: record.answers ?? {},
    ...(record.resolvedBy !== undefined && { resolvedBy: record.resolvedBy }),
    ...(record.votes !== undefined && { votes: record.votes }),
  };
}
