import {
  DescribeExecutionCommand,
  type ExecutionStatus,
  InvalidToken,
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  type SFNClient,
  TaskDoesNotExist,
  TaskTimedOut,
} from "@aws-sdk/client-sfn";
import {
  type CallbackOutcome,
  FinalCallbackError,
  type TaskCallbacks,
  UnconfirmedCallbackError,
} from "./task-callbacks.ts";

/**
 * Errors no retry can cure: the role may not resume that state machine, the output is refused, the key of
 * an encrypted state machine cannot be used. (Throttling, 5xx and network errors are not among them.)
 */
const FINAL_ERRORS = new Set([
  "AccessDeniedException",
  "ValidationException",
  "InvalidOutput",
  "KmsAccessDeniedException",
  "KmsInvalidStateException",
]);

/** A run in one of these is over for good; RUNNING and PENDING_REDRIVE (it may go on) are not among them. */
const ENDED: ReadonlySet<ExecutionStatus | undefined> = new Set([
  "SUCCEEDED",
  "FAILED",
  "TIMED_OUT",
  "ABORTED",
]);

/**
 * Whether the SDK sent this call more than once before the answer `error`: an earlier attempt may have
 * reached Step Functions and been applied with its response lost. The SDK does not say why an earlier
 * attempt failed, so a throttled one counts too — which costs only a "recorded" where "no longer waits"
 * would have been true.
 */
function retried(error: unknown): boolean {
  const attempts = (error as { $metadata?: { attempts?: unknown } }).$metadata?.attempts;
  return typeof attempts === "number" && attempts > 1;
}

/**
 * TaskCallbacks on the Step Functions API. The errors that mean "this run no longer waits" become
 * `not_waiting` — unless a retried success or failure may have ended the task itself
 * (UnconfirmedCallbackError); refusals that no retry can cure become FinalCallbackError; everything else
 * (throttling, 5xx) is rethrown as it is, so the caller can retry.
 */
export function createSfnTaskCallbacks(client: SFNClient): TaskCallbacks {
  async function send(
    operation: "SendTaskSuccess" | "SendTaskFailure" | "SendTaskHeartbeat",
    call: () => Promise<unknown>,
  ): Promise<CallbackOutcome> {
    try {
      await call();
      return "resumed";
    } catch (error) {
      if (
        error instanceof TaskDoesNotExist ||
        error instanceof TaskTimedOut ||
        error instanceof InvalidToken
      ) {
        // A heartbeat ends nothing: the task's end cannot be its own doing.
        if (operation !== "SendTaskHeartbeat" && retried(error))
          throw new UnconfirmedCallbackError(operation);
        return "not_waiting";
      }
      if (error instanceof Error && FINAL_ERRORS.has(error.name)) {
        throw new FinalCallbackError(error.name, error.message);
      }
      throw error;
    }
  }
  return {
    succeed: (taskToken, result) =>
      send("SendTaskSuccess", () =>
        client.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(result) })),
      ),
    fail: (taskToken, error, cause) =>
      send("SendTaskFailure", () => client.send(new SendTaskFailureCommand({ taskToken, error, cause }))),
    heartbeat: (taskToken) =>
      send("SendTaskHeartbeat", () => client.send(new SendTaskHeartbeatCommand({ taskToken }))),
    runEnded: async (executionArn) => {
      const { status } = await client.send(new DescribeExecutionCommand({ executionArn }));
      return ENDED.has(status);
    },
  };
}
