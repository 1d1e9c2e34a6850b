/**
 * Expected failures of the use cases, each with the API error code it maps to (docs/api.md, "Errors"). Names
 * are set explicitly: the ask Lambda's errors reach the state machine's `Catch` by name.
 */
import type { QuestionStatus } from "../questions/question-record.ts";
import { type InputIssue, issuesOf, summarize } from "../validation-messages.ts";
import type * as z from "../zod.ts";

export class NotFoundError extends Error {
  override readonly name = "NotFoundError";
  readonly code = "NOT_FOUND";
  constructor(readonly questionId: string) {
    super(`No question with id "${questionId}".`);
  }
}

export class AlreadyResolvedError extends Error {
  override readonly name = "AlreadyResolvedError";
  readonly code = "ALREADY_RESOLVED";
  constructor(
    readonly questionId: string,
    readonly status: QuestionStatus,
  ) {
    super(`Question "${questionId}" is already ${status}.`);
  }
}

/**
 * A session holds one pending question at a time. The message names that question (`pendingId`, the
 * `pendingQuestionId` of the API's and /mcp's error body) unless the caller may not see it.
 */
export class SessionBusyError extends Error {
  override readonly name = "SessionBusyError";
  readonly code = "SESSION_BUSY";
  constructor(readonly pendingId: string | undefined) {
    super(
      `${pendingId === undefined ? "Another question" : `Question "${pendingId}"`} is already waiting for an answer in this session. Wait for it to end before asking again.`,
    );
  }
}

export class IdInUseError extends Error {
  override readonly name = "IdInUseError";
  readonly code = "ID_IN_USE";
  constructor(readonly questionId: string) {
    super(`The question id "${questionId}" is already in use.`);
  }
}

/**
 * A second answer or skip from a person (or an API key) whose vote a question with a quorum already holds:
 * each person, and each key, votes once, and nothing changes.
 */
export class AlreadyAnsweredError extends Error {
  override readonly name = "AlreadyAnsweredError";
  readonly code = "ALREADY_ANSWERED";
  constructor(
    readonly questionId: string,
    readonly by: string,
    /** The key that voted already, when the vote came over the API. */
    readonly key?: string | undefined,
  ) {
    super(
      key === undefined
        ? `${by} has already answered question "${questionId}": each person answers once.`
        : `The key "${key}" has already voted on question "${questionId}": a key is one voter, whatever resolvedBy says.`,
    );
  }
}

/**
 * A vote that kept losing its conditional write to other votes landing at the same moment, and was given up
 * on: it was not counted and nothing changed. Sent again a moment later it is counted with the votes as they
 * are then, so it is refused as retryable, never as a failure.
 */
export class VotesBusyError extends Error {
  override readonly name = "VotesBusyError";
  readonly code = "VOTES_BUSY";
  /** How long to wait before sending it again. */
  readonly retryAfterSeconds = 1;
  constructor(readonly questionId: string) {
    super(
      `Many answers to question "${questionId}" are arriving at once: this one was not counted. Send it again in a moment.`,
    );
  }
}

/**
 * A vote that would take the question's votes over their budget (MAX_VOTES_BYTES): so many people have
 * answered at such length that the question cannot keep another vote. It was not counted and nothing changed.
 */
export class VotesFullError extends Error {
  override readonly name = "VotesFullError";
  readonly code = "VOTES_FULL";
  constructor(readonly questionId: string) {
    super(
      `Question "${questionId}" holds as many answers as it can: this one was not counted. A shorter answer may still fit.`,
    );
  }
}

/**
 * A cancel from an answerer other than the owner of a question several people decide: the whole question is
 * the owner's (or a key's) to cancel; the person may skip it (their abstention). Nothing changes.
 */
export class OnlyOwnerCancelsError extends Error {
  override readonly name = "OnlyOwnerCancelsError";
  readonly code = "ONLY_OWNER_CANCELS";
  constructor(readonly questionId: string) {
    super("Only the question's owner can cancel it; you can skip it instead.");
  }
}

export class NotOwnerError extends Error {
  override readonly name = "NotOwnerError";
  readonly code = "NOT_OWNER";
  constructor(readonly questionId: string) {
    super("This question is not yours to answer.");
  }
}

/**
 * The person the question was asked on behalf of (`requestedBy`) tried to answer or skip it: they never may
 * (separation of duties), whoever else they are.
 */
export class RequesterCannotAnswerError extends Error {
  override readonly name = "RequesterCannotAnswerError";
  readonly code = "REQUESTER_CANNOT_ANSWER";
  constructor(readonly questionId: string) {
    super("You asked for this; someone else must answer.");
  }
}

/**
 * A request field that is well-formed but not acceptable here (a delivery target on a channel this deployment
 * does not enable): 400 INVALID_ARGUMENT with the field's path, and nothing stored. Not a ToolInputError: the
 * model did not choose it, so it must not be told to correct its arguments.
 */
export class InvalidArgumentError extends Error {
  override readonly name = "InvalidArgumentError";
  readonly code = "INVALID_ARGUMENT";
  readonly issues: { path: string; message: string }[];
  constructor(path: string, message: string) {
    super(message);
    this.issues = [{ path, message }];
  }
}

/** Every delivery target refused the question: the run gets delivery_failed and must not ask again. */
export class DeliveryFailedError extends Error {
  override readonly name = "DeliveryFailedError";
  readonly code = "DELIVERY_FAILED";
  constructor(readonly questionId: string) {
    super(`Question "${questionId}" could not be delivered to any target.`);
  }
}

/**
 * A run's input that does not fit: the AskUser task's input, the agent's input (its model step, the durable
 * agent). Unlike a ToolInputError the model did not write it, so nothing it does can fix it: the state
 * machine's Catch turns it into a result the model is told not to retry on (or ends the run with it), and the
 * message says, with paths, what the workflow or its caller must change. `name` is what `ErrorEquals`
 * matches on.
 */
export class InvalidInputError extends Error {
  override readonly name = "Handraise.InvalidInput";
  readonly code = "INVALID_INPUT";
  constructor(
    /** What was read, for the message: `AskUser task input`, `agent input`. */
    what: string,
    readonly issues: InputIssue[],
  ) {
    super(summarize(`Invalid ${what}`, issues));
  }
}

/**
 * `value` parsed by `schema`, or an InvalidInputError naming each problem (never zod's error, whose name a
 * state machine cannot match and whose message is a dump).
 *
 * @example
 * const task = parseInput(askTaskEventSchema, event, "AskUser task input");
 */
export function parseInput<T extends z.ZodMiniType>(schema: T, value: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new InvalidInputError(what, issuesOf(parsed.error.issues));
}
