import { randomUUID } from "node:crypto";
import { SfnApiError } from "./api-error.ts";
import {
  type AwsLocation,
  executionArn,
  isExecutionArn,
  isValidName,
  parseStateMachineArn,
  stateMachineArn,
} from "./arns.ts";
import { prepareStateMachine } from "./definition.ts";
import {
  type ExecutionHost,
  type ExecutionStatus,
  LocalExecution,
  type RegisteredStateMachine,
} from "./execution.ts";
import { invokeLocalLambda } from "./lambda-invocation.ts";
import type { TaskAttempt } from "./task-attempt.ts";
import { type TaskLookup, TaskTokenRegistry } from "./task-registry.ts";
import type { ExecutionStatusChange, JsonValue, LocalLambdaHandler, LocalStateMachine } from "./types.ts";

/** Step Functions' limit on execution input, SendTaskSuccess output and state payloads: 256 KiB of UTF-8. */
export const MAX_PAYLOAD_BYTES = 256 * 1024;

export interface EngineOptions {
  stateMachines: LocalStateMachine[];
  lambdas: Record<string, LocalLambdaHandler>;
  location: AwsLocation;
  onExecutionStatusChange?: ((change: ExecutionStatusChange) => void | Promise<void>) | undefined;
}

/** Parses JSON text, or gives undefined: both inputs and outputs must be JSON to be accepted at all. */
function parseJson(text: string): { value: JsonValue } | undefined {
  try {
    return { value: JSON.parse(text) as JsonValue };
  } catch {
    return undefined;
  }
}

/**
 * The Step Functions service behind the wire protocol: state machines, executions and task tokens, with
 * AWS's rules and error names. Methods throw `SfnApiError` for every expected failure.
 */
export class LocalStepFunctionsEngine {
  readonly location: AwsLocation;
  readonly #stateMachines = new Map<string, RegisteredStateMachine>();
  /** By ARN, in start order. */
  readonly #executions = new Map<string, LocalExecution>();
  readonly #tokens = new TaskTokenRegistry<TaskAttempt>();
  readonly #executionHost: ExecutionHost;

  constructor(options: EngineOptions) {
    this.location = options.location;
    const creationDate = Date.now();
    for (const machine of options.stateMachines) {
      if (!isValidName(machine.name)) throw new Error(`Invalid state machine name "${machine.name}"`);
      const arn = stateMachineArn(this.location, machine.name);
      if (this.#stateMachines.has(arn)) throw new Error(`State machine "${machine.name}" is defined twice`);
      const prepared = prepareStateMachine(machine.name, machine.definition);
      this.#stateMachines.set(arn, {
        name: machine.name,
        arn,
        definitionText: JSON.stringify(machine.definition),
        creationDate,
        roleArn: `arn:aws:iam::${this.location.accountId}:role/local-stepfunctions`,
        interpreter: prepared.interpreter,
        tasks: prepared.tasks,
      });
    }
    const { lambdas, onExecutionStatusChange: callback } = options;
    this.#executionHost = {
      location: this.location,
      tokens: this.#tokens,
      tokenPlaceholder: `__localSfnTaskToken_${randomUUID()}__`,
      invoke: (functionName, payload) => invokeLocalLambda(lambdas, this.location, functionName, payload),
      notify: async (change) => {
        if (!callback) return;
        try {
          await callback(change);
        } catch (error) {
          console.error(
            `local-stepfunctions: onExecutionStatusChange failed for ${change.executionArn}`,
            error,
          );
        }
      },
    };
  }

  stateMachineArn(name: string): string {
    return stateMachineArn(this.location, name);
  }

  listStateMachines(): RegisteredStateMachine[] {
    return [...this.#stateMachines.values()];
  }

  getStateMachine(arn: string): RegisteredStateMachine {
    const parsed = parseStateMachineArn(arn);
    if (!parsed) throw new SfnApiError("InvalidArn", `Invalid Arn: '${arn}'`);
    const machine = this.#stateMachines.get(arn);
    if (!machine) throw new SfnApiError("StateMachineDoesNotExist", `State Machine Does Not Exist: '${arn}'`);
    return machine;
  }

  /**
   * StartExecution. A name already used with the same input by a running execution gives that execution
   * back (AWS's idempotency); any other reuse of a name is ExecutionAlreadyExists.
   */
  startExecution(machineArn: string, name: string | undefined, input: string): LocalExecution {
    const machine = this.getStateMachine(machineArn);
    const executionName = name ?? randomUUID();
    if (!isValidName(executionName)) throw new SfnApiError("InvalidName", `Invalid Name: '${executionName}'`);
    if (Buffer.byteLength(input, "utf8") > MAX_PAYLOAD_BYTES) {
      throw new SfnApiError("InvalidExecutionInput", "The input exceeds the maximum size of 262144 bytes");
    }
    if (!parseJson(input)) {
      throw new SfnApiError(
        "InvalidExecutionInput",
        "Invalid State Machine Execution Input: input is not JSON",
      );
    }
    const arn = executionArn(this.location, machine.name, executionName);
    const existing = this.#executions.get(arn);
    if (existing) {
      if (existing.status === "RUNNING" && existing.input === input) return existing;
      throw new SfnApiError("ExecutionAlreadyExists", `Execution Already Exists: '${arn}'`);
    }
    const execution = new LocalExecution(this.#executionHost, {
      arn,
      name: executionName,
      stateMachine: machine,
      input,
    });
    this.#executions.set(arn, execution);
    execution.start();
    return execution;
  }

  getExecution(arn: string): LocalExecution {
    if (!isExecutionArn(arn)) throw new SfnApiError("InvalidArn", `Invalid Arn: '${arn}'`);
    const execution = this.#executions.get(arn);
    if (!execution) throw new SfnApiError("ExecutionDoesNotExist", `Execution Does Not Exist: '${arn}'`);
    return execution;
  }

  /** Executions of one state machine, newest first. */
  listExecutions(machineArn: string, status: ExecutionStatus | undefined): LocalExecution[] {
    const machine = this.getStateMachine(machineArn);
    return [...this.#executions.values()]
      .filter((execution) => execution.stateMachine === machine && (!status || execution.status === status))
      .reverse();
  }

  async stopExecution(
    arn: string,
    error: string | undefined,
    cause: string | undefined,
  ): Promise<LocalExecution> {
    const execution = this.getExecution(arn);
    await execution.stop(error, cause);
    return execution;
  }

  sendTaskSuccess(token: string, output: string): void {
    const found = this.#lookupToken(token);
    if (Buffer.byteLength(output, "utf8") > MAX_PAYLOAD_BYTES) {
      throw new SfnApiError("InvalidOutput", "The output exceeds the maximum size of 262144 bytes");
    }
    const parsed = parseJson(output);
    if (!parsed) throw new SfnApiError("InvalidOutput", "Invalid Output: output is not JSON");
    liveTask(found).succeed(parsed.value);
  }

  sendTaskFailure(token: string, error: string | undefined, cause: string | undefined): void {
    liveTask(this.#lookupToken(token)).fail(error, cause);
  }

  sendTaskHeartbeat(token: string): void {
    liveTask(this.#lookupToken(token)).heartbeat();
  }

  /** Stops every running execution without notifying, leaving no timers behind. */
  async shutdown(): Promise<void> {
    await Promise.all([...this.#executions.values()].map((execution) => execution.shutdown()));
  }

  /** The token's task, once its form is checked: InvalidToken comes before any other complaint. */
  #lookupToken(token: string): Exclude<TaskLookup<TaskAttempt>, { status: "malformed" }> {
    const found = this.#tokens.lookup(token);
    if (found.status === "malformed") throw new SfnApiError("InvalidToken", "Invalid Token: 'Invalid token'");
    return found;
  }
}

function liveTask(found: Exclude<TaskLookup<TaskAttempt>, { status: "malformed" }>): TaskAttempt {
  switch (found.status) {
    case "live":
      return found.task;
    case "ended":
      throw new SfnApiError("TaskTimedOut", "Provided task does not exist anymore");
    case "unknown":
      throw new SfnApiError("TaskDoesNotExist", "Provided task does not exist");
  }
}
