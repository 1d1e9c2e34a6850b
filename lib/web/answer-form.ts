/**
 * The answer page's form → an answer envelope, before the one validation every path shares
 * (`validateAnswers`, in the resolve use case). Pure: no I/O.
 *
 * Fields, per question id: `a.<id>` the chosen options by index (a radio for a single-select question, one
 * checkbox per option for a multi-select one) or `other`; `t.<id>` the "Other" text box. The rules, with or
 * without JavaScript:
 * - single-select: an option, or an own answer — the chosen option or the text box, not both (the page's
 *   script sends only the one the person sees chosen; a form posted without it says so instead of guessing);
 * - multi-select: the ticked options, plus the own answer when one is written;
 * - nothing chosen and nothing written: the question is missing.
 */
import type { Answers, Question } from "../questions/schema.ts";

/** What the person sent, per question id: kept to show the form again exactly as it was. */
export interface FormState {
  /** The values of `a.<id>`: option indexes as text, or `other`. */
  picked: Record<string, string[]>;
  /** The "Other" text box, as typed. */
  text: Record<string, string>;
}

/** Why a question's part of the form is not an answer yet (the page words each one). */
export type FieldProblem = "missing" | "other_empty" | "both" | "too_many" | "too_long";

export type FormReading =
  | { kind: "answers"; answers: Answers; state: FormState }
  | { kind: "problems"; problems: Record<string, FieldProblem>; state: FormState };

export const pickField = (questionId: string) => `a.${questionId}`;
export const textField = (questionId: string) => `t.${questionId}`;
export const OTHER_VALUE = "other";

/** Reads the form of `questions` from the posted fields (unknown fields are ignored). */
export function readAnswerForm(questions: readonly Question[], fields: URLSearchParams): FormReading {
  const state: FormState = { picked: {}, text: {} };
  const answers: Answers = {};
  const problems: Record<string, FieldProblem> = {};
  for (const question of questions) {
    const picked = fields.getAll(pickField(question.id));
    const typed = fields.get(textField(question.id)) ?? "";
    state.picked[question.id] = picked;
    state.text[question.id] = typed;
    const result = readQuestion(question, picked, typed.trim());
    if (Array.isArray(result)) answers[question.id] = result;
    else problems[question.id] = result;
  }
  return Object.keys(problems).length > 0
    ? { kind: "problems", problems, state }
    : { kind: "answers", answers, state };
}

function readQuestion(question: Question, picked: string[], text: string): string[] | FieldProblem {
  const labels = [...new Set(picked.flatMap((value) => (/^\d$/.test(value) ? [Number(value)] : [])))].flatMap(
    (index) => question.options[index]?.label ?? [],
  );
  const otherChosen = picked.includes(OTHER_VALUE);
  if (question.multiSelect) {
    const values = text === "" ? labels : [...labels, text];
    if (otherChosen && text === "") return "other_empty";
    return values.length > 0 ? values : "missing";
  }
  if (labels.length > 1 || (labels.length === 1 && otherChosen)) return "too_many";
  const [label] = labels;
  if (label !== undefined) return text === "" ? [label] : "both";
  if (text !== "") return [text];
  return otherChosen ? "other_empty" : "missing";
}
