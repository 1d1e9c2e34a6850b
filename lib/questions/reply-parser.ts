import { dedupe, matchLabel, matchTypedOption, resolveTypedValue } from "./options.ts";
import type { Answers, Question } from "./schema.ts";
import { foldForComparison } from "./text.ts";

/** What a typed chat reply means. */
export type TextReply =
  | { kind: "answer"; answers: Answers }
  | { kind: "skip" }
  | { kind: "cancel" }
  | { kind: "none" };

const SKIP_WORD = "skip";
const CANCEL_WORD = "/cancel";
const LINE_BREAK = /\r?\n/;
const MULTI_VALUE_SEPARATOR = /[,;\n]/;
/** Where a keyed line may split into key and value: `key: value`, `key = value`, `key - value`. */
const KEY_SEPARATOR = /\s*(?::|=|\s-)\s*/g;
const CLOCK_TIME = /^\d{1,2}:\d{2}(?::\d{2})?$/;
const DIGITS = /^\d+$/;

/**
 * Turns a typed reply into answers. The result is not validated: with several questions it holds only
 * those this text gave a value, and the caller runs `validateAnswers` to tell the user what is missing.
 *
 * `earlier` holds the answers that earlier messages of the same reply gave (a person answering line by
 * line): a plain line answers the next question neither they nor this text answered. Keyed lines answer
 * their own question, also one answered before (a correction).
 *
 * @example
 * parseTextReply([deployTarget], "2")            // → { kind: "answer", answers: { deploy_target: ["Production"] } }
 * parseTextReply([deployTarget, checks], "checks: 1, 3\nstaging")
 * parseTextReply([deployTarget, checks], "2", { checks: ["Unit"] }) // → { deploy_target: ["Production"] }
 * parseTextReply(questions, "2\n/cancel")        // → { kind: "cancel" }
 */
export function parseTextReply(
  questions: readonly Question[],
  text: string,
  earlier: Readonly<Answers> = {},
): TextReply {
  if (text.trim() === "") return { kind: "none" };
  const [only] = questions;
  const answers =
    questions.length === 1 && only ? parseWhole(only, text) : parseLines(questions, text, earlier);
  if (answers === "skip" || answers === "cancel") return { kind: answers };
  return Object.keys(answers).length > 0 ? { kind: "answer", answers } : { kind: "none" };
}

/**
 * True when a typed value is an option number that names no option ("3" with two options, "0"): digits
 * only, out of range, and no label equal to it. The reply rules keep such a value as free text; a caller
 * that talks with the person (`interpretTypedReply`) asks again instead, since it is likelier a slip.
 */
export function isNumberNamingNoOption(question: Question, value: string): boolean {
  const trimmed = value.trim();
  return DIGITS.test(trimmed) && matchTypedOption(question, trimmed) === undefined;
}

type Parsed = Answers | "skip" | "cancel";

/** One question takes the whole text as its value (the keyed form is for several questions). */
function parseWhole(question: Question, text: string): Parsed {
  // The commands count on any line, as they do with several questions.
  for (const line of text.split(LINE_BREAK)) {
    const command = commandOf(line, question);
    if (command) return command;
  }
  const values = resolveValue(question, text);
  return values.length > 0 ? { [question.id]: values } : {};
}

/**
 * Several questions, line by line in order: `/cancel` cancels; a keyed line answers its question; a plain
 * line answers the next question still open (`skip` skips, unless that question has an option labelled
 * "Skip"); a blank line passes over the next open question without answering it, so a reply of one line
 * per question may leave one out. A plain line with no question left open is dropped.
 */
function parseLines(questions: readonly Question[], text: string, earlier: Readonly<Answers>): Parsed {
  const answers: Answers = {};
  const isOpen = (question: Question) =>
    !Object.hasOwn(earlier, question.id) && !Object.hasOwn(answers, question.id);
  let from = 0;
  for (const line of text.split(LINE_BREAK)) {
    const keyed = matchKeyedLine(questions, line);
    if (keyed) {
      const values = resolveValue(keyed.question, keyed.value);
      if (values.length > 0) answers[keyed.question.id] = values;
      continue;
    }
    const index = questions.findIndex((question, i) => i >= from && isOpen(question));
    const next = questions[index];
    const command = commandOf(line, next);
    if (command) return command;
    if (!next) continue;
    from = index + 1;
    const values = resolveValue(next, line);
    if (values.length > 0) answers[next.id] = values;
  }
  return answers;
}

/** `/cancel`, or `skip` unless `question` (the one the line would answer) has an option labelled "Skip". */
function commandOf(line: string, question: Question | undefined): "skip" | "cancel" | undefined {
  const word = foldForComparison(line);
  if (word === CANCEL_WORD) return "cancel";
  if (word === SKIP_WORD && (!question || matchLabel(question, SKIP_WORD) === undefined)) return "skip";
  return undefined;
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
    (DIGITS.test(folded) ? questions[Number.parseInt(folded, 10) - 1] : undefined)
  );
}
