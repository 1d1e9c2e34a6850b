/**
 * ask_user for Lambda durable functions (`@aws/durable-execution-sdk-js`): the question is registered under
 * the execution's callback id (`context.waitForCallback`), and the execution suspends — paying nothing —
 * until closing the question completes the callback: SendDurableExecutionCallbackSuccess with the answers,
 * SendDurableExecutionCallbackFailure for a cancel or skip (lib/callbacks/durable-callbacks.ts), exactly as
 * a Step Functions run gets SendTaskSuccess / SendTaskFailure. Same store, channels, webhooks and stream.
 */
import {
  CallbackError,
  CallbackTimeoutError,
  type DurableContext,
  type RetryDecision,
  StepError,
} from "@aws/durable-execution-sdk-js";
import type { AskQuestion } from "../app/ask-question.ts";
import { DeliveryFailedError } from "../app/errors.ts";
import { TASK_ERRORS } from "../callbacks/task-callbacks.ts";
import { durableWaiter } from "../callbacks/waiter.ts";
import { normalizeAskUserArgs, type TimeoutLimits } from "../questions/index.ts";
import { clampTimeout } from "../questions/normalize.ts";
import type { AnswererEntry, DeliveryTarget, Escalation } from "../questions/question-record.ts";
import { type AskUserResult, askUserResultSchema, TIMEOUT_GRACE_SECONDS } from "../questions/schema.ts";

/** The name of the durable operation each ask is (what a test runner's `getOperation` finds). */
export const ASK_USER_OPERATION = "ask_user";

export interface DurableAskOptions {
  owner: string;
  deliverTo: DeliveryTarget[];
  sessionKey?: string | undefined;
  agentId?: string | undefined;
  /** Reminders, in seconds after asking, each before the deadline; absent: the deployment's default (docs/timers.md). */
  remindAfterSeconds?: number[] | undefined;
  /** Who else may answer from `afterSeconds` (before the deadline) on, and where they are sent it then. */
  escalate?: Escalation | undefined;
  /** The person the run acts for (owner form), who may never answer the question. */
  requestedBy?: string | undefined;
  /** Who is asking and why, shown above the questions: 1-500 characters (else InvalidArgumentError). */
  context?: string | undefined;
  /** Who else may answer (people and groups), and how many agreeing answers close the question. */
  answerers?: AnswererEntry[] | undefined;
  quorum?: number | undefined;
}

/** Errors of the registration a retry cannot cure: the execution gets them at once. */
const FINAL_REGISTRATION_ERRORS = new Set([
  "ToolInputError",
  "InvalidArgumentError",
  "SessionBusyError",
  "IdInUseError",
  "DeliveryFailedError",
]);

/**
 * The execution a question is asked in: its timeout (serverless.yml durableExecutionTimeout) and, when the
 * SDK reported it, its start (lib/durable/execution-starts.ts).
 */
export interface DurableExecutionBounds {
  timeoutSeconds: number;
  startedAtMs: (executionArn: string) => number | undefined;
  now: () => number;
  /** Reports a question asked while the execution's start was unknown (the function's logger); absent, none. */
  warn?: ((message: string, fields: { questionId: string }) => void) | undefined;
}

/**
 * A question is bounded by its execution: with the execution's bounds, its timeout is capped so that it and
 * the callback's grace end within the time the execution has left. Nothing else would close it when the
 * execution ends: the run-status rule watches Step Functions runs only. Two exceptions: when the execution's
 * start is unknown, the cap is its whole timeout (and `execution.warn` reports the question); and a question
 * is never below the deployment's minimum, so one asked with less than that left outlives the execution —
 * the ask use case raises any shorter timeout back to the minimum.
 *
 * @example
 * const askUser = createDurableAskUser({ askQuestion, limits, execution: { timeoutSeconds: 86400, startedAtMs, now } });
 * export const handler = withDurableExecution(async (event, context) => {
 *   const result = await askUser(context, { questions: [...] }, { owner: "telegram:42", deliverTo });
 *   // → {status: "answered", answers, resolvedBy} | {status: "no_answer", reason} | {status: "delivery_failed"}
 * });
 * @throws ToolInputError (bad arguments: nothing stored, nothing waited), SessionBusyError.
 */
export function createDurableAskUser(deps: {
  askQuestion: AskQuestion;
  limits: TimeoutLimits;
  execution?: DurableExecutionBounds | undefined;
}) {
  /** The question's timeout within what is left of the execution `runId`, and whether its start was known. */
  function withinExecution(timeoutSeconds: number, runId: string) {
    const { execution } = deps;
    if (execution === undefined) return { timeoutSeconds, startUnknown: false };
    const startedAtMs = execution.startedAtMs(runId);
    const elapsed =
      startedAtMs === undefined ? 0 : Math.max(0, Math.ceil((execution.now() - startedAtMs) / 1000));
    const left = execution.timeoutSeconds - elapsed - TIMEOUT_GRACE_SECONDS;
    return {
      timeoutSeconds: clampTimeout(Math.min(timeoutSeconds, left), deps.limits),
      startUnknown: startedAtMs === undefined,
    };
  }

  return async function askUser(
    context: DurableContext,
    args: unknown,
    options: DurableAskOptions,
  ): Promise<AskUserResult> {
    // Checked before any durable operation: invalid arguments go back to the model, the run never waits.
    const asked = normalizeAskUserArgs(args, deps.limits);
    const runId = context.executionContext.durableExecutionArn;
    const { timeoutSeconds, startUnknown } = withinExecution(asked.timeoutSeconds, runId);
    // Valid arguments are an object: only the timeout changes, and only when it was capped.
    const registered =
      timeoutSeconds === asked.timeoutSeconds ? args : { ...(args as object), timeoutSeconds };
    try {
      const text = await context.waitForCallback(
        ASK_USER_OPERATION,
        async (callbackId) => {
          try {
            // The id derives from the execution and the callback, so a retried registration finds its record.
            const record = await deps.askQuestion({
              args: registered,
              owner: options.owner,
              deliverTo: options.deliverTo,
              sessionKey: options.sessionKey,
              agentId: options.agentId,
              runId,
              toolCallId: callbackId,
              taskToken: durableWaiter(callbackId),
              remindAfterSeconds: options.remindAfterSeconds,
              escalate: options.escalate,
              requestedBy: options.requestedBy,
              context: options.context,
              answerers: options.answerers,
              quorum: options.quorum,
              askedBy: "run",
            });
            if (startUnknown) {
              deps.execution?.warn?.(
                "durable execution's start unknown: its question is capped at the whole execution timeout",
                { questionId: record.id },
              );
            }
            if (record.status === "delivery_failed") throw new DeliveryFailedError(record.id);
          } catch (error) {
            // A checkpointed error keeps its message and data, not its class: the name rides as the data.
            if (error instanceof Error && FINAL_REGISTRATION_ERRORS.has(error.name)) {
              throw new StepError(error.message, undefined, error.name);
            }
            throw error;
          }
        },
        {
          // As the AskUser task's TimeoutSecondsPath: the question's timeout and a grace period.
          timeout: { seconds: timeoutSeconds + TIMEOUT_GRACE_SECONDS },
          retryStrategy: registrationRetry,
        },
      );
      return askUserResultSchema.parse(JSON.parse(text));
    } catch (error) {
      return noAnswerOf(error);
    }
  };
}

export type DurableAskUser = ReturnType<typeof createDurableAskUser>;

/** A failed registration is retried (throttling, a network error), except for the refusals above. */
function registrationRetry(error: Error, attempt: number): RetryDecision {
  const final = FINAL_REGISTRATION_ERRORS.has(refusalOf(error) ?? "");
  return { shouldRetry: !final && attempt < 3, delay: { seconds: attempt } };
}

/** The name of the refusal an error carries as its data (see the submitter), however deep it was wrapped. */
function refusalOf(error: unknown): string | undefined {
  let current: unknown = error;
  while (current instanceof Error) {
    const data = (current as { errorData?: unknown }).errorData;
    if (typeof data === "string" && FINAL_REGISTRATION_ERRORS.has(data)) return data;
    current = current.cause;
  }
  return undefined;
}

/**
 * The result an ended wait gives the model, as the state machine's Catch does: a callback failure with
 * Handraise.Cancelled / Handraise.Skipped (carried in the error data: the error type may be rewritten on its
 * way), a timeout → expired, a question no target took → delivery_failed. Anything else is thrown.
 */
function noAnswerOf(error: unknown): AskUserResult {
  if (error instanceof CallbackTimeoutError) return { status: "no_answer", reason: "expired" };
  if (error instanceof CallbackError) {
    const names = [error.errorData, error.cause?.name];
    if (names.includes(TASK_ERRORS.skipped)) return { status: "no_answer", reason: "skipped" };
    if (names.includes(TASK_ERRORS.cancelled)) return { status: "no_answer", reason: "cancelled" };
    const refusal = refusalOf(error);
    if (refusal === "DeliveryFailedError") return { status: "delivery_failed" };
    if (refusal !== undefined) throw Object.assign(new Error(error.message), { name: refusal });
  }
  throw error;
}
