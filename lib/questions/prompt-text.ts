import type { Question } from "./schema.ts";

/**
 * The plain-text prompt (docs/ask-user.md, "Typed replies"): used where a channel has no native controls
 * and as the fallback text everywhere. It always says how to answer by typing, so it works on its own.
 * `context` (who is asking and why, the question record's) stands between the first line and the questions.
 *
 * @example
 * renderPromptText([{ id: "deploy_target", header: "Deploy", question: "Where to?", allowOther: true,
 *   options: [{ label: "Staging (Recommended)" }, { label: "Production" }] }])
 * // Question for you:
 * //
 * // Deploy
 * // Where to?
 * // 1. Staging (Recommended)
 * // 2. Production
 * // Or type your own answer.
 * //
 * // Reply with the number, the option text, or your own answer. Reply skip to skip, /cancel to cancel.
 */
export function renderPromptText(questions: readonly Question[], context?: string): string {
  const several = questions.length > 1;
  const blocks = questions.map((question, index) =>
    renderQuestion(question, several ? index + 1 : undefined),
  );
  const above = context === undefined || context === "" ? [] : [context];
  return ["Question for you:", ...above, ...blocks, guidanceLine(questions)].join("\n\n");
}

function renderQuestion(question: Question, number: number | undefined): string {
  const title = number === undefined ? question.header : `${number}. ${question.header} [${question.id}]`;
  // With several questions the options are indented so their numbers don't read as question numbers.
  const indent = number === undefined ? "" : "   ";
  const options = question.options.map(
    (option, index) =>
      `${indent}${index + 1}. ${option.label}${option.description ? ` - ${option.description}` : ""}`,
  );
  const freeText = question.multiSelect
    ? "Choose one or more. Your own answer is welcome too."
    : "Or type your own answer.";
  return [title, question.question, ...options, freeText].join("\n");
}

function guidanceLine(questions: readonly Question[]): string {
  const [first] = questions;
  if (questions.length > 1) {
    const example = first ? ` (e.g. "${first.id}: 1")` : "";
    return `Reply with one line per question, in order or as "question number or id: answer"${example}. Reply skip to skip, /cancel to cancel.`;
  }
  if (first?.multiSelect) {
    return "Reply with comma-separated numbers or text (e.g. 1, 3). Reply skip to skip, /cancel to cancel.";
  }
  return "Reply with the number, the option text, or your own answer. Reply skip to skip, /cancel to cancel.";
}
