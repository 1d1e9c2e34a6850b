import { extendedEncodeURIComponent } from "@smithy/core/protocols";
import { type AwsRequests, AwsServiceError } from "../aws/signed-request.ts";
import {
  type CallbackOutcome,
  FinalCallbackError,
  type TaskCallbacks,
  UnconfirmedCallbackError,
} from "./task-callbacks.ts";

/** The callback has ended: it timed out or was completed (CallbackTimeoutException), or its execution is gone. */
const ENDED_ERRORS = new Set(["CallbackTimeoutException", "ResourceNotFoundException"]);

/**
 * Refusals no retry can cure: the role may not complete that execution's callbacks, the callback id or the
 * result is malformed, the execution's key cannot be used. (Throttling, 5xx and network errors are not.)
 */
const FINAL_ERRORS = new Set([
  "AccessDeniedException",
  "InvalidParameterValueException",
  "KMSAccessDeniedException",
  "KMSDisabledException",
  "KMSInvalidStateException",
  "KMSNotFoundException",
]);

/**
 * The callback id as a path label, encoded as the Lambda client encodes one (also `!'()*`), so the signed
 * path is the one Lambda expects for any id. An id that cannot be encoded (a lone surrogate) is refused as
 * Lambda refuses a malformed id: no retry could send it.
 */
function pathLabel(callbackId: string): string {
  try {
    return extendedEncodeURIComponent(callbackId);
  } catch (error) {
    if (!(error instanceof URIError)) throw error;
    throw new FinalCallbackError(
      "InvalidParameterValueException",
      "the callback id cannot be sent in a path",
    );
  }
}

/**
 * TaskCallbacks on Lambda's durable-execution callback API, for questions a durable function waits on with
 * `context.waitForCallback` (lib/durable/ask-user.ts): SendDurableExecutionCallbackSuccess / Failure /
 * Heartbeat, taking the callback id where the Step Functions adapter takes a task token. An ended callback
 * (CallbackTimeoutException: it timed out, or was already completed; ResourceNotFoundException: its
 * execution is gone) is `not_waiting`, as an ended task token is — unless an unanswered attempt of the same
 * success or failure may have ended it (UnconfirmedCallbackError). Sent with AWS_CALLBACK_TIMEOUTS
 * (AWS_WEBHOOK_CALLBACK_TIMEOUTS in a chat webhook).
 *
 * The three calls are sent as Lambda's REST API binds them (`POST /2025-12-01/durable-execution-callbacks/
 * {CallbackId}/succeed | fail | heartbeat`: the result's bytes as the body of a success, the error object as
 * JSON the body of a failure, no body for a heartbeat), signed for `lambda` (../aws/signed-request.ts), not
 * through the Lambda client: its import would evaluate the error classes and schemas of all of Lambda's API
 * in every function that answers, where the durable path is the rarer one.
 *
 * @example
 * const durable = createDurableCallbacks(
 *   createAwsRequests(
 *     { signingName: "lambda", label: "Lambda", protocol: "restJson1" },
 *     { timeouts: AWS_CALLBACK_TIMEOUTS },
 *   ),
 * );
 */
export function createDurableCallbacks(lambda: AwsRequests): TaskCallbacks {
  async function send(
    operation: string,
    callbackId: string,
    action: "succeed" | "fail" | "heartbeat",
    payload?: { contentType: string; body: string | Uint8Array },
  ): Promise<CallbackOutcome> {
    const label = pathLabel(callbackId);
    try {
      await lambda.send({
        operation,
        method: "POST",
        path: `/2025-12-01/durable-execution-callbacks/${label}/${action}`,
        ...(payload !== undefined && {
          headers: { "content-type": payload.contentType },
          body: payload.body,
        }),
      });
      return "resumed";
    } catch (error) {
      if (error instanceof Error && ENDED_ERRORS.has(error.name)) {
        // A heartbeat ends nothing: the callback's end cannot be its own doing.
        const mayBeOurs = error instanceof AwsServiceError && error.afterUnansweredAttempt;
        if (mayBeOurs && action !== "heartbeat") throw new UnconfirmedCallbackError(operation);
        return "not_waiting";
      }
      if (error instanceof Error && FINAL_ERRORS.has(error.name)) {
        throw new FinalCallbackError(error.name, error.message);
      }
      throw error;
    }
  }
  return {
    succeed: (callbackId, result) =>
      send("SendDurableExecutionCallbackSuccess", callbackId, "succeed", {
        contentType: "application/octet-stream",
        body: new TextEncoder().encode(JSON.stringify(result)),
      }),
    fail: (callbackId, error, cause) =>
      send("SendDurableExecutionCallbackFailure", callbackId, "fail", {
        contentType: "application/json",
        // The error name rides in ErrorData too: lib/durable/ask-user.ts reads it from either.
        body: JSON.stringify({ ErrorMessage: cause, ErrorType: error, ErrorData: error }),
      }),
    heartbeat: (callbackId) => send("SendDurableExecutionCallbackHeartbeat", callbackId, "heartbeat"),
  };
}
