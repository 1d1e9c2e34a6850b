import type { AwsLocation } from "./arns.ts";
import { MAX_TIMER_SECONDS, type TaskStateSpec } from "./definition.ts";
import { type ExecutionHistory, toJson } from "./history.ts";
import { createResolvers } from "./promise-with-resolvers.ts";
import { ExecutionClosedError, StatesRuntimeError, TaskFailureError } from "./task-errors.ts";
import type { TaskTokenRegistry } from "./task-registry.ts";
import { mintTaskToken } from "./task-token.ts";
import type { JsonValue } from "./types.ts";

/** What a task attempt needs from its execution. */
export interface TaskAttemptHost {
  readonly location: AwsLocation;
  readonly history: ExecutionHistory;
  readonly tokens: TaskTokenRegistry<TaskAttempt>;
  invoke(functionName: string, payload: JsonValue): Promise<JsonValue>;
  /** The attempt's promise has settled; the execution no longer needs to end it. */
  released(attempt: TaskAttempt): void;
}

export interface TaskAttemptInit {
  spec: TaskStateSpec;
  /** The Task's effective parameters (its Parameters, or its input), still holding the token placeholder. */
  parameters: JsonValue;
  /** The placeholder the context object gives `$$.Task.Token`; replaced by this attempt's own token. */
  tokenPlaceholder: string;
  /** TimeoutSeconds as declared or read from TimeoutSecondsPath; undefined when the state has none. */
  timeoutSeconds: number | undefined;
  heartbeatSeconds: number | undefined;
}

type Phase = "scheduled" | "running" | "ended";

function isRecord(value: unknown): value is Record<string, JsonValue> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function replaceText(value: JsonValue, search: string, replacement: string): JsonValue {
  if (typeof value === "string") return value.replaceAll(search, replacement);
  if (Array.isArray(value)) return value.map((item) => replaceText(item, search, replacement));
  if (isRecord(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, replaceText(item, search, replacement)]),
    );
  }
  return value;
}

/**
 * One run of one Task state (a retry is a new attempt): it invokes the Lambda, holds the task token of a
 * `.waitForTaskToken` task until SendTaskSuccess/Failure, a heartbeat timeout or the end of the execution,
 * and records the task events AWS shows in the execution history.
 *
 * The interpreter awaits `begin()`'s promise, racing it against its own TimeoutSeconds timer; that timer
 * raises the real `States.Timeout`, which only it can create with the identity that `States.TaskFailed`
 * knows to exclude. This class keeps a timer of the same length only to retire the token and record
 * TaskTimedOut.
 */
export class TaskAttempt {
  readonly #host: TaskAttemptHost;
  readonly #spec: TaskStateSpec;
  readonly #parameters: JsonValue;
  readonly #timeoutSeconds: number | undefined;
  readonly #heartbeatSeconds: number | undefined;
  readonly #result = createResolvers<JsonValue>();
  readonly #taskId: string | undefined;
  #phase: Phase = "scheduled";
  #startTimer: NodeJS.Immediate | undefined;
  #timeoutTimer: NodeJS.Timeout | undefined;
  #heartbeatTimer: NodeJS.Timeout | undefined;

  constructor(host: TaskAttemptHost, init: TaskAttemptInit) {
    this.#host = host;
    this.#spec = init.spec;
    this.#timeoutSeconds = init.timeoutSeconds;
    this.#heartbeatSeconds = init.heartbeatSeconds;
    // The interpreter may never await this promise (it can throw on its own right after calling the task);
    // a rejection must not surface as an unhandled one.
    this.#result.promise.catch(() => {});
    // The interpreter resolves `$$.Task.Token` to one static value per run, so each attempt puts its own
    // fresh token wherever that value landed. Only waiting tasks get a live token; any other task that
    // references `$$.Task.Token` gets one that was never registered.
    if (init.spec.integration === "lambda:invoke.waitForTaskToken") {
      const { taskId, token } = host.tokens.issue(this);
      this.#taskId = taskId;
      this.#parameters = replaceText(init.parameters, init.tokenPlaceholder, token);
    } else {
      this.#parameters = replaceText(init.parameters, init.tokenPlaceholder, mintTaskToken().token);
    }
  }

  /** Starts the attempt; the promise settles with the task result or its error. */
  begin(): Promise<JsonValue> {
    // The same delay the interpreter's timer gets (see `prepareStateMachine`), armed just before it (right
    // after this returns): Node fires equal timers in creation order, so the token is retired and
    // TaskTimedOut recorded before the interpreter's States.Timeout moves the execution on.
    const timerSeconds = Math.min(this.#timeoutSeconds ?? MAX_TIMER_SECONDS, MAX_TIMER_SECONDS);
    this.#timeoutTimer = setTimeout(() => this.#timedOut("States.Timeout"), timerSeconds * 1000);
    // The interpreter delivers its StateEntered event asynchronously, after calling the task; starting on the
    // next macrotask lets the history record it before TaskScheduled.
    this.#startTimer = setImmediate(() => this.#start());
    return this.#result.promise;
  }

  /** SendTaskSuccess. */
  succeed(output: JsonValue): void {
    if (!this.#end()) return;
    this.#recordSucceeded(output);
    this.#resolve(output);
  }

  /** SendTaskFailure: an error name and cause that Retry and Catch see as they are. */
  fail(error: string | undefined, cause: string | undefined): void {
    if (!this.#end()) return;
    this.#recordFailure("Failed", error, cause);
    this.#reject(new TaskFailureError(error ?? "", cause ?? ""));
  }

  /** SendTaskHeartbeat: restarts the HeartbeatSeconds countdown. */
  heartbeat(): void {
    if (this.#phase === "ended") return;
    this.#armHeartbeat();
  }

  /** The execution ended or was stopped: retire the token and let the interpreter's task race finish. */
  abandon(): void {
    this.#end();
    this.#reject(new ExecutionClosedError());
  }

  #start(): void {
    this.#startTimer = undefined;
    if (this.#phase !== "scheduled") return;
    this.#phase = "running";
    this.#recordScheduled();
    this.#armHeartbeat();
    void this.#invoke().then(
      (response) => {
        if (this.#phase === "ended") return;
        if (this.#spec.integration === "lambda:invoke.waitForTaskToken") {
          this.#host.history.record("TaskSubmitted", {
            taskSubmittedEventDetails: {
              ...this.#taskResource(),
              output: toJson(response),
              outputDetails: UNTRUNCATED,
            },
          });
          return;
        }
        this.#end();
        this.#recordSucceeded(response);
        this.#resolve(response);
      },
      (error: unknown) => {
        if (!this.#end()) return;
        const failure = error instanceof Error ? error : new TaskFailureError("Error", String(error));
        this.#recordFailure("Failed", failure.name, failure.message);
        this.#reject(failure);
      },
    );
  }

  async #invoke(): Promise<JsonValue> {
    const parameters = this.#parameters;
    if (this.#spec.integration === "lambda:function") {
      return this.#host.invoke(this.#spec.resource, parameters);
    }
    const functionName = isRecord(parameters) ? parameters.FunctionName : undefined;
    if (typeof functionName !== "string") {
      throw new StatesRuntimeError(
        `Task state "${this.#spec.stateName}" has no FunctionName in its Parameters`,
      );
    }
    // Lambda gets `{}` when Invoke carries no payload.
    const payload = isRecord(parameters) && "Payload" in parameters ? (parameters.Payload ?? null) : {};
    const result = await this.#host.invoke(functionName, payload);
    return { ExecutedVersion: "$LATEST", Payload: result, StatusCode: 200 };
  }

  #timedOut(error: string): void {
    if (!this.#end()) return;
    this.#recordFailure("TimedOut", error, undefined);
    // States.Timeout is left to the interpreter's timer (see the class comment); a heartbeat timeout is ours.
    if (error !== "States.Timeout") this.#reject(new TaskFailureError(error, "Task heartbeat timed out"));
  }

  #armHeartbeat(): void {
    const seconds = this.#heartbeatSeconds;
    if (this.#spec.integration !== "lambda:invoke.waitForTaskToken" || seconds === undefined) return;
    if (seconds > MAX_TIMER_SECONDS) return;
    clearTimeout(this.#heartbeatTimer);
    this.#heartbeatTimer = setTimeout(() => this.#timedOut("States.HeartbeatTimeout"), seconds * 1000);
  }

  /** Moves to "ended" once: clears timers and retires the token. False when it had already ended. */
  #end(): boolean {
    if (this.#phase === "ended") return false;
    this.#phase = "ended";
    if (this.#startTimer) clearImmediate(this.#startTimer);
    clearTimeout(this.#timeoutTimer);
    clearTimeout(this.#heartbeatTimer);
    this.#startTimer = this.#timeoutTimer = this.#heartbeatTimer = undefined;
    if (this.#taskId !== undefined) this.#host.tokens.retire(this.#taskId);
    return true;
  }

  #resolve(value: JsonValue): void {
    this.#result.resolve(value);
    this.#host.released(this);
  }

  #reject(error: Error): void {
    this.#result.reject(error);
    this.#host.released(this);
  }

  #taskResource(): { resourceType: string; resource: string } {
    const resource = this.#spec.integration === "lambda:invoke" ? "invoke" : "invoke.waitForTaskToken";
    return { resourceType: "lambda", resource };
  }

  #recordScheduled(): void {
    const history = this.#host.history;
    if (this.#spec.integration === "lambda:function") {
      history.record("LambdaFunctionScheduled", {
        lambdaFunctionScheduledEventDetails: {
          resource: this.#spec.resource,
          input: toJson(this.#parameters),
          inputDetails: UNTRUNCATED,
          timeoutInSeconds: this.#timeoutSeconds,
        },
      });
      history.record("LambdaFunctionStarted");
      return;
    }
    history.record("TaskScheduled", {
      taskScheduledEventDetails: {
        ...this.#taskResource(),
        region: this.#host.location.region,
        parameters: toJson(this.#parameters),
        timeoutInSeconds: this.#timeoutSeconds,
        heartbeatInSeconds: this.#heartbeatSeconds,
      },
    });
    history.record("TaskStarted", { taskStartedEventDetails: this.#taskResource() });
  }

  #recordSucceeded(output: JsonValue): void {
    const details = { output: toJson(output), outputDetails: UNTRUNCATED };
    if (this.#spec.integration === "lambda:function") {
      this.#host.history.record("LambdaFunctionSucceeded", { lambdaFunctionSucceededEventDetails: details });
    } else {
      this.#host.history.record("TaskSucceeded", {
        taskSucceededEventDetails: { ...this.#taskResource(), ...details },
      });
    }
  }

  #recordFailure(outcome: "Failed" | "TimedOut", error: string | undefined, cause: string | undefined): void {
    const history = this.#host.history;
    if (this.#spec.integration === "lambda:function") {
      const details = { error, cause };
      if (outcome === "Failed") {
        history.record("LambdaFunctionFailed", { lambdaFunctionFailedEventDetails: details });
      } else {
        history.record("LambdaFunctionTimedOut", { lambdaFunctionTimedOutEventDetails: details });
      }
      return;
    }
    const details = { ...this.#taskResource(), error, cause };
    if (outcome === "Failed") {
      history.record("TaskFailed", { taskFailedEventDetails: details });
    } else {
      history.record("TaskTimedOut", { taskTimedOutEventDetails: details });
    }
  }
}

const UNTRUNCATED = { truncated: false } as const;
