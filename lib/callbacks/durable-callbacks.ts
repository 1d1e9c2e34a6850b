import type { LambdaClient } from "@aws-sdk/client-lambda";

import { type CallbackOutcome, FinalCallbackError, type TaskCallbacks } from "./task-callbacks.ts";

type LambdaCallbackClient = typeof import("./lambda-callback-client.ts");

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
 * TaskCallbacks on Lambda's durable-execution callback API, for questions a durable function waits on with
 * `context.waitForCallback` (lib/durable/ask-user.ts): SendDurableExecutionCallbackSuccess / Failure /
 * Heartbeat, taking the callback id where the Step Functions adapter takes a task token. An ended callback
 * (CallbackTimeoutException: it timed out, or was already completed; ResourceNotFoundException: its
 * execution is gone) is `not_waiting`, as an ended task token is. The commands are loaded at the first call
 * (./lambda-callback-client.ts), as `client` should build the client: most functions never complete one.
 *
 * @example
 * const durable = createDurableCallbacks(async () => {
 *   const { LambdaClient } = await import("./lambda-callback-client.ts");
 *   return new LambdaClient({});
 * });
 */
export function createDurableCallbacks(client: () => Promise<LambdaClient>): TaskCallbacks {
  async function send(
    call: (lambda: LambdaClient, commands: LambdaCallbackClient) => Promise<unknown>,
  ): Promise<CallbackOutcome> {
    const [lambda, commands] = await Promise.all([client(), import("./lambda-callback-client.ts")]);
    try {
      await call(lambda, commands);
      return "resumed";
    } catch (error) {
      if (error instanceof Error && ENDED_ERRORS.has(error.name)) return "not_waiting";
      if (error instanceof Error && FINAL_ERRORS.has(error.name)) {
        throw new FinalCallbackError(error.name, error.message);
      }
      throw error;
    }
  }
  return {
    succeed: (callbackId, result) =>
      send((lambda, { SendDurableExecutionCallbackSuccessCommand }) =>
        lambda.send(
          new SendDurableExecutionCallbackSuccessCommand({
            CallbackId: callbackId,
            Result: new TextEncoder().encode(JSON.stringify(result)),
          }),
        ),
      ),
    fail: (callbackId, error, cause) =>
      send((lambda, { SendDurableExecutionCallbackFailureCommand }) =>
        lambda.send(
          new SendDurableExecutionCallbackFailureCommand({
            CallbackId: callbackId,
            // The error name rides in ErrorData too: lib/durable/ask-user.ts reads it from either.
            Error: { ErrorType: error, ErrorMessage: cause, ErrorData: error },
          }),
        ),
      ),
    heartbeat: (callbackId) =>
      send((lambda, { SendDurableExecutionCallbackHeartbeatCommand }) =>
        lambda.send(new SendDurableExecutionCallbackHeartbeatCommand({ CallbackId: callbackId })),
      ),
  };
}
