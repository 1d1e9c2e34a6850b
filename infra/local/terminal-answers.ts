/**
 * Answering the demo run's question by typing in the terminal, one line at a time. The reply rules are the
 * library's (`interpretTypedReply`, the same as every chat channel's); what the terminal adds is memory
 * across lines: a line that answers only some questions is kept, so the next plain line answers the next
 * question still open. The answer itself goes through the HTTP API like any client's.
 */
import { interpretTypedReply } from "#lib/app/typed-reply.ts";
import type { QuestionRecord } from "#lib/questions/question-record.ts";
import type { Answers } from "#lib/questions/schema.ts";

export interface TerminalAnswersDeps {
  /** The demo run's pending question, if one is waiting. */
  pendingQuestion(): Promise<QuestionRecord | undefined>;
  /** A call to the local HTTP API (with the API key). */
  api(method: string, path: string, body: unknown): Promise<{ status: number; json: unknown }>;
  print(text: string): void;
  /** Recorded as the question's `resolvedBy`. */
  resolvedBy: string;
}

export interface TerminalAnswers {
  /** Handles one typed line; call them one after another, never overlapping. */
  onLine(line: string): Promise<void>;
  /** The run has ended (`status` as Step Functions reports it): later lines are told so. */
  runEnded(status: string): void;
}

export function createTerminalAnswers(deps: TerminalAnswersDeps): TerminalAnswers {
  /** What earlier lines answered, for the question they answered. */
  let kept: { questionId: string; answers: Answers } | undefined;
  let ended: string | undefined;

  async function onLine(line: string): Promise<void> {
    if (ended !== undefined) {
      deps.print(
        `The demo run has ended (${ended}): no question is waiting for a typed answer. Ctrl-C stops the local stack.`,
      );
      return;
    }
    const question = await deps.pendingQuestion();
    if (!question) {
      kept = undefined;
      if (line.trim() !== "") deps.print("(no question is waiting right now)");
      return;
    }
    const earlier = kept?.questionId === question.id ? kept.answers : {};
    const reply = interpretTypedReply(question.questions, line, earlier);
    switch (reply.kind) {
      case "none":
        return;
      case "invalid":
        return deps.print(reply.message);
      case "incomplete": {
        kept = { questionId: question.id, answers: reply.answered };
        const missing = reply.missing.map((q) => `${q.header} [${q.id}]`).join(", ");
        return deps.print(`Still needed: ${missing}. Type the next line (or "id: answer").`);
      }
    }
    kept = undefined;
    const result =
      reply.kind === "answer"
        ? await deps.api("POST", `/questions/${question.id}/answer`, {
            answers: reply.answers,
            resolvedBy: deps.resolvedBy,
          })
        : await deps.api("POST", `/questions/${question.id}/cancel`, {
            reason: reply.kind === "skip" ? "skipped" : "cancelled",
            resolvedBy: deps.resolvedBy,
          });
    if (result.status >= 400) deps.print(`Not accepted: ${JSON.stringify(result.json)}`);
  }

  return {
    onLine,
    runEnded(status) {
      ended = status;
    },
  };
}
