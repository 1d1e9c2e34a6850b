import { StateMachine, type StateMachineDefinition } from "aws-local-stepfunctions";
import { isLambdaFunctionArn } from "./arns.ts";

/**
 * The longest delay a Node timer can hold (2^31 - 1 ms, ~24.8 days). A longer delay overflows and fires after
 * 1 ms, so every duration handed to the interpreter is clamped to this.
 */
export const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

export type TaskIntegration = "lambda:invoke" | "lambda:invoke.waitForTaskToken" | "lambda:function";

export type SecondsSpec = { kind: "none" } | { kind: "static"; seconds: number } | { kind: "path" };

/** What the local engine needs to know about one Task state to run it the way AWS does. */
export interface TaskStateSpec {
  stateName: string;
  integration: TaskIntegration;
  resource: string;
  timeout: SecondsSpec;
  heartbeat: SecondsSpec;
  /** Parameters were wrapped (see `WRAPPED_KEYS`); the Task's own Parameters are under `parameters`. */
  wrapped: boolean;
}

/**
 * Keys of the object a wrapped Task state's Parameters produce. AWS evaluates TimeoutSecondsPath and
 * HeartbeatSecondsPath against the state input after InputPath, but the interpreter evaluates
 * TimeoutSecondsPath after Parameters and ignores heartbeats. Wrapping lets the interpreter's own Parameters
 * processing resolve both paths against the right input, next to the real Parameters.
 */
export const WRAPPED_KEYS = {
  parameters: "__localSfnParameters",
  timeoutSeconds: "__localSfnTimeoutSeconds",
  heartbeatSeconds: "__localSfnHeartbeatSeconds",
} as const;

export interface PreparedStateMachine {
  /** The interpreter, loaded with the definition adjusted where the interpreter differs from AWS. */
  interpreter: StateMachine;
  /** Every Task state, nested ones included, by state name (names are unique across a state machine). */
  tasks: ReadonlyMap<string, TaskStateSpec>;
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const LAMBDA_INVOKE = /^arn:aws[a-z-]*:states:::lambda:invoke$/;
const LAMBDA_INVOKE_WAIT = /^arn:aws[a-z-]*:states:::lambda:invoke\.waitForTaskToken$/;

function integrationOf(resource: string): TaskIntegration | undefined {
  if (LAMBDA_INVOKE.test(resource)) return "lambda:invoke";
  if (LAMBDA_INVOKE_WAIT.test(resource)) return "lambda:invoke.waitForTaskToken";
  if (isLambdaFunctionArn(resource)) return "lambda:function";
  return undefined;
}

function secondsSpec(seconds: unknown, path: unknown): SecondsSpec {
  if (typeof path === "string") return { kind: "path" };
  if (typeof seconds === "number") return { kind: "static", seconds };
  return { kind: "none" };
}

/**
 * Validates a definition with the interpreter's own validator and loads an adjusted copy into it.
 * Throws with a message naming the state machine when the definition is invalid or uses something the
 * local engine cannot run (JSONata, a Task resource other than Lambda, duplicate state names).
 */
export function prepareStateMachine(
  machineName: string,
  source: Record<string, unknown>,
): PreparedStateMachine {
  try {
    // Task resources are checked below against what the local engine supports, so ARN syntax is not.
    new StateMachine(source as unknown as StateMachineDefinition, { validationOptions: { checkArn: false } });
  } catch (error) {
    throw new Error(
      `State machine "${machineName}": ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const definition: Json = structuredClone(source);
  const tasks = new Map<string, TaskStateSpec>();
  const fail = (message: string): never => {
    throw new Error(`State machine "${machineName}": ${message}`);
  };
  rewriteMachine(definition, { tasks, stateNames: new Set(), fail });
  // Validated above; the adjusted copy carries helper keys the validator has no reason to see.
  const interpreter = new StateMachine(definition as unknown as StateMachineDefinition, {
    validationOptions: { noValidate: true },
  });
  return { interpreter, tasks };
}

interface RewriteContext {
  tasks: Map<string, TaskStateSpec>;
  stateNames: Set<string>;
  fail: (message: string) => never;
}

function rewriteMachine(machine: Json, context: RewriteContext): void {
  if (machine.QueryLanguage === "JSONata") context.fail("JSONata is not supported locally; use JSONPath");
  if (typeof machine.TimeoutSeconds === "number") {
    machine.TimeoutSeconds = Math.min(machine.TimeoutSeconds, MAX_TIMER_SECONDS);
  }
  const states = isRecord(machine.States) ? machine.States : {};
  for (const [stateName, state] of Object.entries(states)) {
    if (!isRecord(state)) continue;
    if (context.stateNames.has(stateName)) context.fail(`state name "${stateName}" is used more than once`);
    context.stateNames.add(stateName);
    if (state.QueryLanguage === "JSONata") context.fail(`state "${stateName}" uses JSONata; use JSONPath`);
    rewriteResultPaths(state);
    switch (state.Type) {
      case "Pass":
        rewritePassResult(state);
        break;
      case "Wait":
        if (typeof state.Seconds === "number") state.Seconds = Math.min(state.Seconds, MAX_TIMER_SECONDS);
        break;
      case "Task":
        context.tasks.set(stateName, rewriteTask(stateName, state, context));
        break;
      case "Map": {
        const processor = state.ItemProcessor ?? state.Iterator;
        if (isRecord(processor)) rewriteMachine(processor, context);
        break;
      }
      case "Parallel":
        for (const branch of Array.isArray(state.Branches) ? state.Branches : []) {
          if (isRecord(branch)) rewriteMachine(branch, context);
        }
        break;
    }
  }
}

// The interpreter turns `"ResultPath": "$"` into a key named "$" instead of replacing the whole input.
// Without ResultPath the result replaces the input, which is what "$" means.
function rewriteResultPaths(state: Json): void {
  if (state.ResultPath === "$") delete state.ResultPath;
  for (const catcher of Array.isArray(state.Catch) ? state.Catch : []) {
    if (isRecord(catcher) && catcher.ResultPath === "$") delete catcher.ResultPath;
  }
}

// The interpreter passes the input through when a Pass state's Result is falsy (0, false, "", null).
// Parameters holding the same literal produce that value instead: a literal template evaluates to itself.
function rewritePassResult(state: Json): void {
  if ("Result" in state && !state.Result) {
    state.Parameters = state.Result;
    delete state.Result;
  }
}

function rewriteTask(stateName: string, state: Json, context: RewriteContext): TaskStateSpec {
  const resource = typeof state.Resource === "string" ? state.Resource : "";
  const integration =
    integrationOf(resource) ??
    context.fail(
      `Task state "${stateName}" uses resource "${resource}"; the local engine runs only ` +
        "arn:aws:states:::lambda:invoke, arn:aws:states:::lambda:invoke.waitForTaskToken and Lambda function ARNs",
    );
  const timeout = secondsSpec(state.TimeoutSeconds, state.TimeoutSecondsPath);
  const heartbeat = secondsSpec(state.HeartbeatSeconds, state.HeartbeatSecondsPath);
  const timeoutPath = state.TimeoutSecondsPath;
  const heartbeatPath = state.HeartbeatSecondsPath;
  delete state.TimeoutSeconds;
  delete state.TimeoutSecondsPath;
  delete state.HeartbeatSeconds;
  delete state.HeartbeatSecondsPath;

  const wrapped = timeout.kind === "path" || heartbeat.kind === "path";
  if (wrapped) {
    const wrapper: Json =
      "Parameters" in state
        ? { [WRAPPED_KEYS.parameters]: state.Parameters }
        : { [`${WRAPPED_KEYS.parameters}.$`]: "$" };
    if (timeout.kind === "path") wrapper[`${WRAPPED_KEYS.timeoutSeconds}.$`] = timeoutPath;
    if (heartbeat.kind === "path") wrapper[`${WRAPPED_KEYS.heartbeatSeconds}.$`] = heartbeatPath;
    state.Parameters = wrapper;
  }
  // The interpreter races every Task against a timer of TimeoutSeconds, 60 s when there is none (AWS has no
  // such default). A task without a timeout gets the longest timer Node can hold instead.
  if (timeout.kind === "path") {
    state.TimeoutSecondsPath = `$.${WRAPPED_KEYS.timeoutSeconds}`;
  } else {
    state.TimeoutSeconds = Math.min(
      timeout.kind === "static" ? timeout.seconds : MAX_TIMER_SECONDS,
      MAX_TIMER_SECONDS,
    );
  }
  return { stateName, integration, resource, timeout, heartbeat, wrapped };
}
