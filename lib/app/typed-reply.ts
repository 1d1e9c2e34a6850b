import { InvalidAnswerError, parseTextReply, validateAnswers } from "../questions/index.ts";
import { isNumberNamingNoOption } from "../questions/reply-parser.ts";
import type { Answers, Question } from "../questions/schema.ts";
import type { InvalidReason } from "./inbound-outcome.ts";

export type TypedReply =
  | { kind: "answer"; answers: Answers }
  /**
   * Some questions got a value, others still need one: tell the user which. `answered` holds every answer so
   * far (`earlier`'s too), `given` only this text's, which the user is told were recorded.
   */
  | { kind: "incomplete"; answered: Answers; given: Answers; missing: Question[] }
  /** Nothing is taken from this text: tell the user why (`reason`, lib/channels/replies.ts) and let them type again. */
  | { kind: "invalid"; reason: InvalidReason }
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
 * interpretTypedReply([deployTarget], "3")  // → invalid: { kind: "no_such_option", typed: "3", … }
 */
export function interpretTypedReply(
  questions: readonly Question[],
  text: string,
  earlier: Readonly<Answers> = {},
): TypedReply {
  const reply = parseTextReply(questions, text, earlier);
  if (reply.kind !== "answer") return reply;
  const slip = numberNamingNoOption(questions, reply.answers);
  if (slip) {
    const reason = { kind: "no_such_option", ...slip, several: questions.length > 1 } as const;
    return { kind: "invalid", reason };
  }

  const answered: Answers = {};
  for (const question of questions) {
    const values = reply.answers[question.id] ?? earlier[question.id];
    if (values) answered[question.id] = values;
  }
  try {
    return { kind: "answer", answers: validateAnswers(questions, answered) };
  } catch (error) {
    if (!(error instanceof InvalidAnswerError)) throw error;
    if (error.reason !== "missing") return { kind: "invalid", reason: answerRefused(error) };
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
): { question: Question; typed: string } | undefined {
  for (const question of questions) {
    const value = answers[question.id]?.find((v) => isNumberNamingNoOption(question, v));
    if (value !== undefined) return { question, typed: value.trim() };
  }
  return undefined;
}

/** The contract's refusal of an answer, as the reason an event changed nothing. */
export function answerRefused(error: InvalidAnswerError): InvalidReason {
  return {
    kind: "answer_refused",
    problem: error.reason,
    questionId: error.questionId,
    contractMessage: error.message,
  };
}
