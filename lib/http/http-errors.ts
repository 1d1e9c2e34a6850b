import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { $ZodError } from "zod/v4/core";
import {
  AlreadyAnsweredError,
  AlreadyResolvedError,
  IdInUseError,
  InvalidArgumentError,
  NotFoundError,
  NotOwnerError,
  OnlyOwnerCancelsError,
  RequesterCannotAnswerError,
  SessionBusyError,
  VotesBusyError,
  VotesFullError,
} from "../app/errors.ts";
import { InvalidAnswerError, ToolInputError, type ToolInputIssue } from "../questions/errors.ts";
import { issuesOf, summarize } from "../validation-messages.ts";
import { errorResponse } from "./responses.ts";

/**
 * A request problem found at the HTTP boundary (auth, body, route). `headers`: response headers it comes
 * with (an auth refusal's `WWW-Authenticate`).
 */
export class HttpError extends Error {
  override readonly name = "HttpError";
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** An error as the HTTP answer it becomes: status, code, message and the extra fields of a JSON body. */
export interface HttpProblem {
  statusCode: number;
  code: string;
  message: string;
  extra?: { issues?: ToolInputIssue[]; status?: string; pendingQuestionId?: string };
  headers?: Record<string, string>;
}

/**
 * The one place errors become HTTP responses (codes: docs/api.md, "Errors"). Expected failures keep
 * their message; anything else is an opaque 500 and is reported (name and message only: events carry
 * secrets and personal data).
 */
export function toHttpResponse(
  error: unknown,
  report: (error: unknown) => void,
): APIGatewayProxyStructuredResultV2 {
  const problem = describeError(error, report);
  const response = errorResponse(problem.statusCode, problem.code, problem.message, problem.extra);
  return problem.headers ? { ...response, headers: { ...response.headers, ...problem.headers } } : response;
}

/** The mapping itself, for the answer page, which shows the same problem as an HTML page. */
export function describeError(error: unknown, report: (error: unknown) => void): HttpProblem {
  const problem = (statusCode: number, code: string, message: string, extra?: HttpProblem["extra"]) => ({
    statusCode,
    code,
    message,
    ...(extra && { extra }),
  });
  if (error instanceof HttpError) {
    const described = problem(error.statusCode, error.code, error.message);
    return Object.keys(error.headers).length > 0 ? { ...described, headers: error.headers } : described;
  }
  if (error instanceof ToolInputError || error instanceof InvalidArgumentError)
    return problem(400, error.code, error.message, { issues: error.issues });
  // A failed `parse` of any zod schema (zod/mini throws the core error; zod's classic ZodError is one too).
  if (error instanceof $ZodError) {
    const issues = issuesOf(error.issues);
    return problem(400, "INVALID_ARGUMENT", summarize("Invalid request", issues), { issues });
  }
  if (error instanceof InvalidAnswerError) {
    return problem(400, error.code, error.message, { issues: error.issues });
  }
  if (error instanceof NotFoundError) return problem(404, error.code, error.message);
  if (
    error instanceof NotOwnerError ||
    error instanceof RequesterCannotAnswerError ||
    error instanceof OnlyOwnerCancelsError
  ) {
    return problem(403, error.code, error.message);
  }
  if (error instanceof AlreadyAnsweredError) return problem(409, error.code, error.message);
  if (error instanceof AlreadyResolvedError) {
    return problem(409, error.code, error.message, { status: error.status });
  }
  if (error instanceof SessionBusyError) {
    const pending = error.pendingId;
    return problem(
      409,
      error.code,
      error.message,
      pending === undefined ? undefined : { pendingQuestionId: pending },
    );
  }
  if (error instanceof IdInUseError) return problem(409, error.code, error.message);
  if (error instanceof VotesFullError) return problem(413, error.code, error.message);
  if (error instanceof VotesBusyError) {
    return {
      ...problem(503, error.code, error.message),
      headers: { "retry-after": String(error.retryAfterSeconds) },
    };
  }
  report(error);
  return problem(500, "INTERNAL", "Internal error.");
}
