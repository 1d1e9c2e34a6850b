import type { AskUserResult, NoAnswerReason, Question } from "./schema.ts";

/** What the model gets back from ask_user: readable text first, then the JSON of `details`. */
export interface ToolResult {
  text: string;
  details: AskUserResult;
}

const NO_ANSWER_SENTENCES: Record<NoAnswerReason, string> = {
  expired: "The user did not answer in time (reason: expired).",
  cancelled: "The question was cancelled before the user answered (reason: cancelled).",
  skipped: "The user chose to skip this question (reason: skipped).",
  no_quorum:
    "The people asked could not agree on one answer, and not enough of them are left to (reason: no_quorum; their votes are in votes).",
};

/**
 * Formats the outcome of ask_user for the model (docs/ask-user.md, "Results").
 *
 * @example
 * formatToolResult({ status: "answered", answers: { deploy_target: ["Production"] } }, questions).text
 * // Deploy: Production
 * // {"status":"answered","answers":{"deploy_target":["Production"]}}
 */
export function formatToolResult(result: AskUserResult, questions: readonly Question[]): ToolResult {
  return { text: `${toolResultSummary(result, questions)}\n${JSON.stringify(result)}`, details: result };
}

/**
 * The text before the JSON: the answer lines, or the sentence that says what to do. For a caller that puts
 * its own JSON after it (the MCP tools add the question's id).
 */
export function toolResultSummary(result: AskUserResult, questions: readonly Question[]): string {
  switch (result.status) {
    case "answered":
      return questions
        .filter((q) => Object.hasOwn(result.answers, q.id))
        .map((q) => `${q.header}: ${(result.answers[q.id] ?? []).join(", ")}`)
        .join("\n");
    case "no_answer":
      return `${NO_ANSWER_SENTENCES[result.reason]} Continue with your best judgment.`;
    case "delivery_failed":
      return "The question could not be delivered to the user. Do not ask it again; continue with your best judgment.";
  }
}
