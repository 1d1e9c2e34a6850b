import { dedupe, matchLabel, matchTypedOption, resolveTypedValue } from "./options.ts";
import type { Answers, Question } from "./schema.ts";
import { foldForComparison } from "./text.ts";

/** What a typed chat reply means (reference/ask-user-contract.md §3). */
export type TextReply =
  | { kind: "answer"; answers: Answers }
  | { kind: "skip" }
  | { kind: "cancel" }
  | { kind: "none" };

const SKIP_WORD = "skip";
const CANCEL_WORD = "/cancel";
const MULTI_VALUE_SEPARATOR = /[,;\n]/;
/** Where a keyed line may split into key and value: `key: value`, `key = value`, `key - value`. */
const KEY_SEPARATOR = /\s*(?::|=|\s-)\s*/g;
const CLOCK_TIME = /^\d{1,2}:\d{2}(?::\d{2})?$/;

/**
 * Turns a typed reply into answers. The result is not validated: with several questions it holds only
 * those that got a value, and the caller runs `validateAnswers` to tell the user what is missing.
 *
 * @example
 * parseTextReply([deployTarget], "2")            // → { kind: "answer", answers: { deploy_target: ["Production"] } }
 * parseTextReply([deployTarget, checks], "checks: 1, 3\nstaging")
 * parseTextReply(questions, "skip")              // → { kind: "skip" }
 */
export function parseTextReply(questions: readonly Question[], text: string): TextReply {
  const trimmed = text.trim();
  if (trimmed === "") return { kind: "none" };
  const word = trimmed.toLowerCase();
  if (word === CANCEL_WORD) return { kind: "cancel" };
  // An option labelled "Skip" is an answer, not the skip word.
  if (word === SKIP_WORD && !questions.some((q) => matchLabel(q, SKIP_WORD) !== undefined)) {
    return { kind: "skip" };
  }

  const [only] = questions;
  // Several questions read the untrimmed text: a leading blank line keeps its position (it leaves the
  // first question unanswered) like any other blank line.
  const answers: Answers =
    questions.length === 1 && only ? { [only.id]: resolveValue(only, trimmed) } : parseLines(questions, text);
  const answered = Object.fromEntries(Object.entries(answers).filter(([, values]) => values.length > 0));
  return Object.keys(answered).length > 0 ? { kind: "answer", answers: answered } : { kind: "none" };
}

/** One question's typed value: one option, or for multi-select a list split on `,` `;` or newlines. */
function resolveValue(question: Question, text: string): string[] {
  const trimmed = text.trim();
  if (trimmed === "") return [];
  if (question.multiSelect !== true) return [resolveTypedValue(question, trimmed)];
  // Labels may contain commas: the whole text naming one option wins over splitting it.
  const whole = matchTypedOption(question, trimmed);
  if (whole !== undefined) return [whole];
  const parts = trimmed
    .split(MULTI_VALUE_SEPARATOR)
    .map((part) => part.trim())
    .filter((part) => part !== "");
  return dedupe(parts.map((part) => resolveTypedValue(question, part)));
}

/**
 * Several questions: keyed lines first, then each question without one takes the line at its position
 * (blank lines keep positions) unless that line is keyed.
 */
function parseLines(questions: readonly Question[], text: string): Answers {
  const lines = text.split(/\r?\n/);
  const keyed = new Map<string, string>();
  const keyedLines = new Set<number>();
  lines.forEach((line, lineIndex) => {
    const match = matchKeyedLine(questions, line);
    if (!match) return;
    keyedLines.add(lineIndex);
    if (!keyed.has(match.question.id)) keyed.set(match.question.id, match.value);
  });

  const answers: Answers = {};
  questions.forEach((question, position) => {
    const keyedValue = keyed.get(question.id);
    const positional = keyedLines.has(position) ? undefined : lines[position];
    const value = keyedValue ?? positional;
    if (value !== undefined) answers[question.id] = resolveValue(question, value);
  });
  return answers;
}

/**
 * A line whose text before a separator names a question. Each separator is tried from the left, so values
 * keep their colons and URLs ("q1: meet at 14:30"), and keys may themselves contain a separator (a question
 * text ending in ":"). A line whose prefix names no question is not keyed ("14:30" is a value).
 */
function matchKeyedLine(
  questions: readonly Question[],
  line: string,
): { question: Question; value: string } | undefined {
  // A clock time is a value even when its hour could be a question number ("2:30" with 3 questions).
  if (CLOCK_TIME.test(line.trim())) return undefined;
  for (const separator of line.matchAll(KEY_SEPARATOR)) {
    const key = line.slice(0, separator.index);
    if (key.trim() === "") continue;
    const question = findQuestionByKey(questions, key);
    if (question) return { question, value: line.slice(separator.index + separator[0].length) };
  }
  return undefined;
}

/** Matches a key against ids, then headers, then question texts, then 1-based numbers (contract order). */
function findQuestionByKey(questions: readonly Question[], key: string): Question | undefined {
  const folded = foldForComparison(key);
  return (
    questions.find((q) => q.id === folded) ??
    questions.find((q) => foldForComparison(q.header) === folded) ??
    questions.find((q) => foldForComparison(q.question) === folded) ??
    (/^\d+$/.test(folded) ? questions[Number.parseInt(folded, 10) - 1] : undefined)
  );
}
