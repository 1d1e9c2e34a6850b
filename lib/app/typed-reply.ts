import { InvalidAnswerError, parseTextReply, validateAnswers } from "../questions/index.ts";
import type { Answers, Question } from "../questions/schema.ts";

export type TypedReply =
  | { kind: "answer"; answers: Answers }
  /** Some questions got a value, others still need one: tell the user which. */
  | { kind: "incomplete"; answered: Answers; missing: Question[] }
  | { kind: "skip" }
  | { kind: "cancel" }
  | { kind: "none" };

/**
 * What a typed chat message does to a pending question: parse it (reference/ask-user-contract.md §3),
 * then validate; a reply that answers only some of several questions is `incomplete`, never an error.
 */
export function interpretTypedReply(questions: readonly Question[], text: string): TypedReply {
  const reply = parseTextReply(questions, text);
  if (reply.kind !== "answer") return reply;
  try {
    return { kind: "answer", answers: validateAnswers(questions, reply.answers) };
  } catch (error) {
    if (!(error instanceof InvalidAnswerError) || error.reason !== "missing") throw error;
    return {
      kind: "incomplete",
      answered: reply.answers,
      missing: questions.filter((q) => !Object.hasOwn(reply.answers, q.id)),
    };
  }
}
