import { InvalidAnswerError, parseTextReply, validateAnswers } from "../questions/index.ts";
import { isNumberNamingNoOption } from "../questions/reply-parser.ts";
import type { Answers, Question } from "../questions/schema.ts";
import { cutText } from "../questions/text.ts";

export type TypedReply =
  | { kind: "answer"; answers: Answers }
  /**
   * Some questions got a value, others still need one: tell the user which. `answered` holds every answer so
   * far (`earlier`'s too), `given` only this text's, which the user is told were recorded.
   */
  | { kind: "incomplete"; answered: Answers; given: Answers; missing: Question[] }
  /** Nothing is taken from this text: tell the user `message` and let them type again. */
  | { kind: "invalid"; message: string }
  | { kind: "skip" }
  | { kind: "cancel" }
  | { kind: "none" };

/**
 * What a typed message does to a pending question, in every chat channel and the terminal demo: parse it
 * by the reply rules, refuse an option number that names no option, then validate. A reply that answers
 * only some of several questions is `incomplete`, never an error.
 *
 * `earlier` holds what earlier messages answered when the caller keeps a reply across messages (the
 * terminal's earlier lines; in a chat, the question's draft less the step on screen): plain lines then answer
 * the questions still open, and `answer` / `incomplete` carry the earlier answers with this message's.
 *
 * @example
 * interpretTypedReply(questions, "checks: 1")                    // → incomplete, missing deploy_target…
 * interpretTypedReply(questions, "2", { checks: ["Unit"] })      // → the next open question gets "2"
 * interpretTypedReply([deployTarget], "3")  // → invalid: "There is no option 3 — type a number 1–2 or …"
 */
export function interpretTypedReply(
  questions: readonly Question[],
  text: string,
  earlier: Readonly<Answers> = {},
): TypedReply {
  const reply = parseTextReply(questions, text, earlier);
  if (reply.kind !== "answer") return reply;
  const slip = numberNamingNoOption(questions, reply.answers);
  if (slip)
    return { kind: "invalid", message: noOptionText(slip.question, slip.value, questions.length > 1) };

  const answered: Answers = {};
  for (const question of questions) {
    const values = reply.answers[question.id] ?? earlier[question.id];
    if (values) answered[question.id] = values;
  }
  try {
    return { kind: "answer", answers: validateAnswers(questions, answered) };
  } catch (error) {
    if (!(error instanceof InvalidAnswerError)) throw error;
    if (error.reason !== "missing") return { kind: "invalid", message: error.message };
    return {
      kind: "incomplete",
      answered,
      given: reply.answers,
      missing: questions.filter((q) => !Object.hasOwn(answered, q.id)),
    };
  }
}

/**
 * The reply rules keep a number that names no option as free text ("3" with two options); typed, it is
 * far likelier a slip than an answer, so it is refused, bare or keyed alike. The person can still answer a
 * number in words ("3 replicas").
 */
function numberNamingNoOption(
  questions: readonly Question[],
  answers: Answers,
): { question: Question; value: string } | undefined {
  for (const question of questions) {
    const value = answers[question.id]?.find((v) => isNumberNamingNoOption(question, v));
    if (value !== undefined) return { question, value: value.trim() };
  }
  return undefined;
}

/** The one sentence for a typed option number that names no option; with several questions, says which. */
export function noOptionText(question: Question, typed: string, several: boolean): string {
  // A number as long as a message would make the sentence longer than one: its start says enough.
  const sentence = `there is no option ${cutText(typed, 24)} — type a number 1–${question.options.length} or your own answer.`;
  return several
    ? `${question.header} [${question.id}]: ${sentence}`
    : `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}`;
}
