import {
  ExecutionAbortedError,
  ExecutionError,
  ExecutionTimeoutError,
  type StateMachine,
} from "aws-local-stepfunctions";
import type { AwsLocation } from "./arns.ts";
import { MAX_TIMER_SECONDS, type TaskStateSpec, WRAPPED_KEYS } from "./definition.ts";
import { ExecutionHistory, type InterpreterEvent, toJson } from "./history.ts";
import { createResolvers } from "./promise-with-resolvers.ts";
import { TaskAttempt, type TaskAttemptHost } from "./task-attempt.ts";
import { ExecutionClosedError, quietRejection, StatesRuntimeError } from "./task-errors.ts";
import type { TaskTokenRegistry } from "./task-registry.ts";
import type { ExecutionStatusChange, JsonValue } from "./types.ts";

export type ExecutionStatus = ExecutionStatusChange["status"];

/** A state machine as the engine serves it. */
export interface RegisteredStateMachine {
  name: string;
  arn: string;
  /** The definition as given, for DescribeStateMachine. */
  definitionText: string;
  creationDate: number;
  roleArn: string;
  /** The interpreter, loaded with the adjusted definition. */
  interpreter: StateMachine;
  tasks: ReadonlyMap<string, TaskStateSpec>;
}

/** What an execution needs from the engine. */
export interface ExecutionHost {
  readonly location: AwsLocation;
  readonly tokens: TaskTokenRegistry<TaskAttempt>;
  /** The value `$$.Task.Token` resolves to inside the interpreter; each task swaps in its own token. */
  readonly tokenPlaceholder: string;
  invoke(functionName: string, payload: JsonValue): Promise<JsonValue>;
  /** Delivers a status change; never rejects. */
  notify(change: ExecutionStatusChange): Promise<void>;
}

interface Outcome {
  status: Exclude<ExecutionStatus, "RUNNING">;
  output?: string;
  error?: string | undefined;
  cause?: string | undefined;
}

// The interpreter names a Fail state's error and cause with these when the state declares none; AWS then
// reports no error or cause at all.
const INTERPRETER_DEFAULT_FAIL_ERROR = "FailStateError";
const INTERPRETER_DEFAULT_FAIL_CAUSE = "Execution failed because of a Fail state";

function outcomeOfRejection(rejection: unknown): Outcome {
  if (rejection instanceof ExecutionAbortedError) return { status: "ABORTED" };
  if (rejection instanceof ExecutionTimeoutError) {
    return {
      status: "TIMED_OUT",
      error: "States.Timeout",
      cause: "The execution timed out (TimeoutSeconds)",
    };
  }
  const failure =
    rejection instanceof ExecutionError && rejection.cause instanceof Error ? rejection.cause : undefined;
  if (!failure) return { status: "FAILED", error: "States.Runtime", cause: String(rejection) };
  return {
    status: "FAILED",
    error: failure.name === INTERPRETER_DEFAULT_FAIL_ERROR ? undefined : failure.name,
    cause: failure.message === INTERPRETER_DEFAULT_FAIL_CAUSE ? undefined : failure.message,
  };
}

function isRecord(value: unknown): value is Record<string, JsonValue> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 1;
}

export interface ExecutionInit {
  arn: string;
  name: string;
  stateMachine: RegisteredStateMachine;
  /** The input as given (valid JSON text). */
  input: string;
}

/** One execution: drives the interpreter, owns its task attempts, history and status. */
export class LocalExecution {
  readonly arn: string;
  readonly name: string;
  readonly stateMachine: RegisteredStateMachine;
  readonly input: string;
  readonly startDate = Date.now();
  readonly history = new ExecutionHistory();
  readonly #host: ExecutionHost;
  readonly #attemptHost: TaskAttemptHost;
  readonly #attempts = new Set<TaskAttempt>();
  readonly #finished = createResolvers<void>();
  #status: ExecutionStatus = "RUNNING";
  #stopDate: number | null = null;
  #output: string | null = null;
  #error: string | null = null;
  #cause: string | null = null;
  /** Set once the run's outcome is known or a stop was requested: no new task may start. */
  #closing = false;
  #stopRequest: { date: number; error: string | undefined; cause: string | undefined } | undefined;
  #notifyOnFinish = true;
  #notifications: Promise<void> = Promise.resolve();
  #abortRun: () => void = () => {};

  constructor(host: ExecutionHost, init: ExecutionInit) {
    this.#host = host;
    this.arn = init.arn;
    this.name = init.name;
    this.stateMachine = init.stateMachine;
    this.input = init.input;
    const attempts = this.#attempts;
    this.#attemptHost = {
      location: host.location,
      history: this.history,
      tokens: host.tokens,
      invoke: (functionName, payload) => host.invoke(functionName, payload),
      released: (attempt) => attempts.delete(attempt),
    };
  }

  get status(): ExecutionStatus {
    return this.#status;
  }
  get stopDate(): number | null {
    return this.#stopDate;
  }
  get output(): string | null {
    return this.#output;
  }
  get error(): string | null {
    return this.#error;
  }
  get cause(): string | null {
    return this.#cause;
  }
  /** Settles once every status change of this execution has been delivered. */
  get notificationsDelivered(): Promise<void> {
    return this.#notifications;
  }

  statusChange(): ExecutionStatusChange {
    return {
      executionArn: this.arn,
      stateMachineArn: this.stateMachine.arn,
      name: this.name,
      status: this.#status,
      startDate: this.startDate,
      stopDate: this.#stopDate,
      input: this.input,
      output: this.#output,
      error: this.#error,
      cause: this.#cause,
    };
  }

  start(): void {
    this.history.record("ExecutionStarted", {
      executionStartedEventDetails: {
        input: this.input,
        inputDetails: { truncated: false },
        roleArn: this.stateMachine.roleArn,
      },
    });
    this.#notify();
    const handlers = Object.fromEntries(
      [...this.stateMachine.tasks.values()].map((spec) => [
        spec.stateName,
        (input: JsonValue) => this.#runTask(spec, input),
      ]),
    );
    const run = this.stateMachine.interpreter.run(JSON.parse(this.input) as JsonValue, {
      overrides: { taskResourceLocalHandlers: handlers },
      context: this.#contextObject(),
    });
    this.#abortRun = run.abort;
    const logged = this.#followEventLog(run.eventLogs);
    void run.result
      .then(
        (output): Outcome => ({ status: "SUCCEEDED", output: toJson(output) }),
        (rejection: unknown) => outcomeOfRejection(rejection),
      )
      .then(async (outcome) => {
        this.#closing = true;
        // The terminal event must come after every state event the interpreter logged.
        await logged;
        this.#finish(outcome);
      })
      .catch((error: unknown) => console.error(`local-stepfunctions: ending ${this.arn} failed`, error));
  }

  /** StopExecution: ends the run as ABORTED (a no-op once it has ended) and waits until it is recorded. */
  async stop(error: string | undefined, cause: string | undefined): Promise<void> {
    if (!this.#closing) {
      this.#closing = true;
      this.#stopRequest = { date: Date.now(), error, cause };
      // Abort first, so the interpreter sees the abort when the abandoned tasks reject.
      this.#abortRun();
      this.#abandonAttempts();
    }
    await this.#finished.promise;
  }

  /** Server shutdown: stops the run without telling anyone, and waits for pending notifications. */
  async shutdown(): Promise<void> {
    this.#notifyOnFinish = false;
    await this.stop(undefined, undefined);
    await this.#notifications;
  }

  #contextObject(): Record<string, unknown> {
    // The interpreter fills in Execution.Input and Execution.StartTime itself.
    return {
      Execution: { Id: this.arn, Name: this.name, RoleArn: this.stateMachine.roleArn, RedriveCount: 0 },
      StateMachine: { Id: this.stateMachine.arn, Name: this.stateMachine.name },
      Task: { Token: this.#host.tokenPlaceholder },
    };
  }

  async #followEventLog(events: AsyncGenerator<InterpreterEvent>): Promise<void> {
    try {
      for await (const event of events) this.history.recordInterpreterEvent(event);
    } catch (error) {
      console.error(`local-stepfunctions: event log of ${this.arn} failed`, error);
    }
  }

  /** The local handler the interpreter calls for a Task state, with the state's effective input. */
  #runTask(spec: TaskStateSpec, input: JsonValue): Promise<JsonValue> {
    if (this.#closing) return quietRejection(new ExecutionClosedError());
    let parameters = input;
    let timeoutSeconds = spec.timeout.kind === "static" ? spec.timeout.seconds : undefined;
    let heartbeatSeconds = spec.heartbeat.kind === "static" ? spec.heartbeat.seconds : undefined;
    if (spec.wrapped && isRecord(input)) {
      parameters = input[WRAPPED_KEYS.parameters] ?? null;
      if (spec.timeout.kind === "path") {
        const seconds = input[WRAPPED_KEYS.timeoutSeconds];
        // The interpreter rejects the same value with its own States.Runtime right after this call.
        if (!isPositiveInteger(seconds)) {
          return quietRejection(
            new StatesRuntimeError(`TimeoutSecondsPath of "${spec.stateName}" is invalid`),
          );
        }
        // The interpreter reads its timer delay from this very object after this call returns; a delay beyond
        // Node's timer range would fire at once.
        if (seconds > MAX_TIMER_SECONDS) input[WRAPPED_KEYS.timeoutSeconds] = MAX_TIMER_SECONDS;
        timeoutSeconds = seconds;
      }
      if (spec.heartbeat.kind === "path") {
        const seconds = input[WRAPPED_KEYS.heartbeatSeconds];
        if (!isPositiveInteger(seconds)) {
          return quietRejection(
            new StatesRuntimeError(`HeartbeatSecondsPath of "${spec.stateName}" is not a positive integer`),
          );
        }
        heartbeatSeconds = seconds;
      }
    }
    const attempt = new TaskAttempt(this.#attemptHost, {
      spec,
      parameters,
      tokenPlaceholder: this.#host.tokenPlaceholder,
      timeoutSeconds,
      heartbeatSeconds,
    });
    this.#attempts.add(attempt);
    return attempt.begin();
  }

  #abandonAttempts(): void {
    for (const attempt of [...this.#attempts]) attempt.abandon();
  }

  #finish(outcome: Outcome): void {
    this.#abandonAttempts();
    const stop = this.#stopRequest;
    if (stop) {
      this.#status = "ABORTED";
      this.#stopDate = stop.date;
      this.#error = stop.error ?? null;
      this.#cause = stop.cause ?? null;
    } else {
      this.#status = outcome.status;
      this.#stopDate = Date.now();
      this.#output = outcome.output ?? null;
      this.#error = outcome.error ?? null;
      this.#cause = outcome.cause ?? null;
    }
    this.#recordTerminalEvent();
    if (this.#notifyOnFinish) this.#notify();
    this.#finished.resolve();
  }

  #recordTerminalEvent(): void {
    const failure = { error: this.#error ?? undefined, cause: this.#cause ?? undefined };
    switch (this.#status) {
      case "SUCCEEDED":
        this.history.close("ExecutionSucceeded", {
          executionSucceededEventDetails: {
            output: this.#output ?? "null",
            outputDetails: { truncated: false },
          },
        });
        break;
      case "FAILED":
        this.history.close("ExecutionFailed", { executionFailedEventDetails: failure });
        break;
      case "TIMED_OUT":
        this.history.close("ExecutionTimedOut", { executionTimedOutEventDetails: failure });
        break;
      case "ABORTED":
        this.history.close("ExecutionAborted", { executionAbortedEventDetails: failure });
        break;
      case "RUNNING":
        break;
    }
  }

  #notify(): void {
    const change = this.statusChange();
    this.#notifications = this.#notifications.then(() => this.#host.notify(change));
  }
}
