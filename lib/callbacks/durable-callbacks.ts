import {
  CallbackTimeoutException,
  type LambdaClient,
  ResourceNotFoundException,
  SendDurableExecutionCallbackFailureCommand,
  SendDurableExecutionCallbackHeartbeatCommand,
  SendDurableExecutionCallbackSuccessCommand,
} from "@aws-sdk/client-lambda";
import { type CallbackOutcome, FinalCallbackError, type TaskCallbacks } from "./task-callbacks.ts";

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
 * TaskCallbacks on Lambda's durable-execution callback API, for questions a durable function waits on with
 * `context.waitForCallback` (lib/durable/ask-user.ts): SendDurableExecutionCallbackSuccess / Failure /
 * Heartbeat, taking the callback id where the Step Functions adapter takes a task token. An ended callback
 * (CallbackTimeoutException: it timed out, or was already completed; ResourceNotFoundException: its
 * execution is gone) is `not_waiting`, as an ended task token is.
 */
export function createDurableCallbacks(client: LambdaClient): TaskCallbacks {
  async function send(call: () => Promise<unknown>): Promise<CallbackOutcome> {
    try {
      await call();
      return "resumed";
    } catch (error) {
      if (error instanceof CallbackTimeoutException || error instanceof ResourceNotFoundException) {
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
      send(() =>
        client.send(
          new SendDurableExecutionCallbackSuccessCommand({
            CallbackId: callbackId,
            Result: new TextEncoder().encode(JSON.stringify(result)),
          }),
        ),
      ),
    fail: (callbackId, error, cause) =>
      send(() =>
        client.send(
          new SendDurableExecutionCallbackFailureCommand({
            CallbackId: callbackId,
            // The error name rides in ErrorData too: lib/durable/ask-user.ts reads it from either.
            Error: { ErrorType: error, ErrorMessage: cause, ErrorData: error },
          }),
        ),
      ),
    heartbeat: (callbackId) =>
      send(() => client.send(new SendDurableExecutionCallbackHeartbeatCommand({ CallbackId: callbackId }))),
  };
}
