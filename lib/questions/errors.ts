import { summarize } from "../validation-messages.ts";

/** One problem found in the ask_user arguments, located by the dot-joined path of the offending value. */
export interface ToolInputIssue {
  /** e.g. `questions.1.id`, `questions.0.options.2.label`, `timeoutSeconds`; `""` for the arguments object. */
  path: string;
  message: string;
}

/**
 * The shape of every error body Handraise returns: tool errors and HTTP 4xx bodies alike. `issues`: each
 * problem at its path (INVALID_ARGUMENT, INVALID_ANSWER); `pendingQuestionId`: the question a session is
 * busy with (SESSION_BUSY).
 */
export interface ErrorBody {
  error: { code: string; message: string; issues?: ToolInputIssue[]; pendingQuestionId?: string };
}

/**
 * The model called ask_user with arguments it can correct. Nothing was stored and the run does not suspend;
 * the model gets {@link ToolInputError.toToolErrorText} back and may call again.
 *
 * `name` is set explicitly: Step Functions `ErrorEquals` and callers match on it, and bundlers rename classes.
 */
export class ToolInputError extends Error {
  override readonly name = "ToolInputError";
  readonly code = "INVALID_ARGUMENT";

  constructor(readonly issues: ToolInputIssue[]) {
    super(summarize("Invalid ask_user arguments", issues));
  }

  toErrorBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, issues: this.issues } };
  }

  /** What the model reads: the sentence, then the machine-readable body. */
  toToolErrorText(): string {
    return `${this.message} Fix the arguments and call ask_user again.\n${JSON.stringify(this.toErrorBody())}`;
  }
}

export type InvalidAnswerReason =
  | "not_an_object"
  | "unknown_question"
  | "missing"
  | "empty_value"
  | "too_many_values"
  /** A value longer than MAX_ANSWER_VALUE_UNITS, or the whole envelope larger than MAX_ANSWERS_BYTES. */
  | "too_long";

/**
 * An answer that does not fit the questions; the question stays pending. Its one issue is at
 * `answers.<question id>`, or at `answers` when the envelope as a whole is wrong.
 */
export class InvalidAnswerError extends Error {
  override readonly name = "InvalidAnswerError";
  readonly code = "INVALID_ANSWER";

  constructor(
    readonly reason: InvalidAnswerReason,
    /** The offending key; absent when the envelope itself is not an object of string arrays. */
    readonly questionId: string | undefined,
    message: string,
  ) {
    super(message);
  }

  get issues(): ToolInputIssue[] {
    const path = this.questionId === undefined ? "answers" : `answers.${this.questionId}`;
    return [{ path, message: this.message }];
  }

  toErrorBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, issues: this.issues } };
  }
}
