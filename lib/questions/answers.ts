import { InvalidAnswerError } from "./errors.ts";
import { isRecord } from "./guards.ts";
import { dedupe, matchLabel } from "./options.ts";
import { type Answers, MAX_ANSWER_VALUE_UNITS, MAX_ANSWERS_BYTES, type Question } from "./schema.ts";

/**
 * Checks an answer envelope against the questions and returns it canonical
 * (docs/ask-user.md, "Answers"): keys in question order, values trimmed, values equal to a label
 * (ignoring case) replaced by that label, repeated multi-select values dropped.
 *
 * @example
 * validateAnswers(questions, { deploy_target: [" production "] }) // → { deploy_target: ["Production"] }
 * @throws InvalidAnswerError; the question stays pending.
 */
export function validateAnswers(questions: readonly Question[], answers: unknown): Answers {
  if (!isRecord(answers) || !Object.values(answers).every(isStringArray)) {
    throw new InvalidAnswerError(
      "not_an_object",
      undefined,
      'answers must be an object mapping each question id to an array of strings, e.g. {"deploy_target": ["Staging"]}',
    );
  }
  const envelope = answers as Record<string, string[]>;
  const known = new Set(questions.map((q) => q.id));
  for (const key of Object.keys(envelope)) {
    if (!known.has(key)) {
      throw new InvalidAnswerError(
        "unknown_question",
        key,
        `"${key}" is not one of this request's question ids`,
      );
    }
  }

  const canonical: Answers = {};
  for (const question of questions) {
    const values = envelope[question.id];
    if (!Object.hasOwn(envelope, question.id) || !values || values.length === 0) {
      throw new InvalidAnswerError("missing", question.id, `question "${question.id}" has no answer`);
    }
    if (values.some((value) => value.trim() === "")) {
      throw new InvalidAnswerError(
        "empty_value",
        question.id,
        `question "${question.id}" has a blank answer`,
      );
    }
    if (values.some((value) => value.length > MAX_ANSWER_VALUE_UNITS)) {
      throw new InvalidAnswerError(
        "too_long",
        question.id,
        `question "${question.id}" has an answer longer than ${MAX_ANSWER_VALUE_UNITS} characters`,
      );
    }
    if (values.length > 1 && question.multiSelect !== true) {
      throw new InvalidAnswerError(
        "too_many_values",
        question.id,
        `question "${question.id}" takes one answer, got ${values.length}`,
      );
    }
    canonical[question.id] = dedupe(values.map((value) => matchLabel(question, value) ?? value.trim()));
  }
  // The answers become the waiting run's task output (at most 256 KiB): keep well below it.
  const bytes = new TextEncoder().encode(JSON.stringify(canonical)).length;
  if (bytes > MAX_ANSWERS_BYTES) {
    throw new InvalidAnswerError(
      "too_long",
      undefined,
      `the answers are ${bytes} bytes as JSON, more than the ${MAX_ANSWERS_BYTES} allowed`,
    );
  }
  return canonical;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}
