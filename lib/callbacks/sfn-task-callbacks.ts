import {
  InvalidToken,
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  type SFNClient,
  TaskDoesNotExist,
  TaskTimedOut,
} from "@aws-sdk/client-sfn";
import type { CallbackOutcome, TaskCallbacks } from "./task-callbacks.ts";

/**
 * TaskCallbacks on the Step Functions API. The errors that mean "this run no longer waits" become
 * `not_waiting`; everything else (throttling, 5xx) is rethrown so the caller can retry.
 */
export function createSfnTaskCallbacks(client: SFNClient): TaskCallbacks {
  async function send(call: () => Promise<unknown>): Promise<CallbackOutcome> {
    try {
      await call();
      return "resumed";
    } catch (error) {
      if (
        error instanceof TaskDoesNotExist ||
        error instanceof TaskTimedOut ||
        error instanceof InvalidToken
      ) {
        return "not_waiting";
      }
      throw error;
    }
  }
  return {
    succeed: (taskToken, result) =>
      send(() => client.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(result) }))),
    fail: (taskToken, error, cause) =>
      send(() => client.send(new SendTaskFailureCommand({ taskToken, error, cause }))),
    heartbeat: (taskToken) => send(() => client.send(new SendTaskHeartbeatCommand({ taskToken }))),
  };
}
