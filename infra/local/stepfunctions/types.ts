import type { Context } from "aws-lambda";
import type { FaultSwitch } from "../faults.ts";

/** A Lambda handler run in process: it gets the event the Task state built and a realistic Lambda Context. */
export type LocalLambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

/** A state machine served locally: its name (the last part of its ARN) and its parsed ASL (JSONPath only). */
export interface LocalStateMachine {
  name: string;
  definition: Record<string, unknown>;
}

/** The `detail` of EventBridge's "Step Functions Execution Status Change" event (dates in epoch ms). */
export interface ExecutionStatusChange {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  status: "RUNNING" | "SUCCEEDED" | "FAILED" | "TIMED_OUT" | "ABORTED";
  startDate: number;
  stopDate: number | null;
  input: string;
  output: string | null;
  error?: string | null;
  cause?: string | null;
}

export interface LocalStepFunctionsOptions {
  stateMachines: LocalStateMachine[];
  /**
   * Lambda handlers by function name; a Task's FunctionName / Resource may be a name or a full Lambda ARN
   * (`arn:aws:lambda:<region>:<account>:function:<name>[:qualifier]`).
   */
  lambdas: Record<string, LocalLambdaHandler>;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 8083; 0 picks any free port. */
  port?: number;
  /** Default us-east-1. */
  region?: string;
  /** Default 000000000000. */
  accountId?: string;
  /** Called when an execution starts and when it reaches a terminal status; errors are logged, never thrown. */
  onExecutionStatusChange?: (change: ExecutionStatusChange) => void | Promise<void>;
}

export interface LocalStepFunctions {
  /** Base URL of the AWS JSON 1.0 endpoint, e.g. `http://127.0.0.1:8083`. */
  url: string;
  /** `arn:aws:states:<region>:<account>:stateMachine:<name>`. */
  stateMachineArn(name: string): string;
  /** Fault injection for tests: the next N matching calls answer with an AWS error (nothing runs). */
  faults: FaultSwitch;
  /** Closes the server and aborts running executions without notifying; leaves no timers behind. */
  stop(): Promise<void>;
}

export type JsonPrimitive = null | boolean | number | string;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
