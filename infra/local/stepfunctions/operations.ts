import type {
  DescribeExecutionOutput,
  DescribeStateMachineOutput,
  ExecutionListItem,
  GetExecutionHistoryOutput,
  ListExecutionsOutput,
  ListStateMachinesOutput,
  StartExecutionOutput,
  StopExecutionOutput,
} from "@aws-sdk/client-sfn";
import { SfnApiError } from "./api-error.ts";
import type { LocalStepFunctionsEngine } from "./engine.ts";
import type { ExecutionStatus, LocalExecution } from "./execution.ts";
import { MAX_TASK_TOKEN_LENGTH } from "./task-token.ts";
import { epochSeconds, type Wire } from "./wire.ts";

type Body = Record<string, unknown>;
export type Operation = (engine: LocalStepFunctionsEngine, body: Body) => Promise<object> | object;

const MAX_ERROR_LENGTH = 256;
const MAX_CAUSE_LENGTH = 32_768;
const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1000;
const EXECUTION_STATUSES: readonly ExecutionStatus[] = [
  "RUNNING",
  "SUCCEEDED",
  "FAILED",
  "TIMED_OUT",
  "ABORTED",
];

/** Reads the members of an operation's input, with AWS's errors for missing or ill-typed ones. */
class Members {
  readonly #body: Body;

  constructor(body: Body) {
    this.#body = body;
  }

  #present(name: string): unknown {
    const value = this.#body[name];
    return value === null ? undefined : value;
  }

  optionalString(name: string, maxLength = Number.POSITIVE_INFINITY): string | undefined {
    const value = this.#present(name);
    if (value === undefined) return undefined;
    if (typeof value !== "string") {
      throw new SfnApiError("SerializationException", `Unexpected value type for member '${name}'`);
    }
    if (value.length > maxLength) {
      throw new SfnApiError(
        "ValidationException",
        `1 validation error detected: Value at '${name}' failed to satisfy constraint: ` +
          `Member must have length less than or equal to ${maxLength}`,
      );
    }
    return value;
  }

  requiredString(name: string, maxLength?: number): string {
    const value = this.optionalString(name, maxLength);
    if (value === undefined) {
      throw new SfnApiError(
        "ValidationException",
        `1 validation error detected: Value null at '${name}' failed to satisfy constraint: Member must not be null`,
      );
    }
    return value;
  }

  optionalInteger(name: string, min: number, max: number): number | undefined {
    const value = this.#present(name);
    if (value === undefined) return undefined;
    if (typeof value !== "number" || !Number.isInteger(value)) {
      throw new SfnApiError("SerializationException", `Unexpected value type for member '${name}'`);
    }
    if (value < min || value > max) {
      throw new SfnApiError(
        "ValidationException",
        `1 validation error detected: Value '${value}' at '${name}' failed to satisfy constraint: ` +
          `Member must have value between ${min} and ${max}`,
      );
    }
    return value;
  }

  optionalBoolean(name: string): boolean | undefined {
    const value = this.#present(name);
    if (value === undefined) return undefined;
    if (typeof value !== "boolean") {
      throw new SfnApiError("SerializationException", `Unexpected value type for member '${name}'`);
    }
    return value;
  }
}

/** Offset-based pages; the token is opaque to clients and checked on the way back in. */
function paginate<T>(items: readonly T[], members: Members): { page: T[]; nextToken?: string } {
  const pageSize = members.optionalInteger("maxResults", 0, MAX_PAGE_SIZE) || DEFAULT_PAGE_SIZE;
  const token = members.optionalString("nextToken", 1024);
  let offset = 0;
  if (token !== undefined) {
    const match = /^page:(\d+)$/.exec(Buffer.from(token, "base64url").toString("utf8"));
    if (!match?.[1]) throw new SfnApiError("InvalidToken", "Invalid Token: 'Invalid nextToken'");
    offset = Number(match[1]);
  }
  const page = items.slice(offset, offset + pageSize);
  const next = offset + pageSize;
  return next < items.length
    ? { page, nextToken: Buffer.from(`page:${next}`).toString("base64url") }
    : { page };
}

function taskToken(members: Members): string {
  return members.requiredString("taskToken", MAX_TASK_TOKEN_LENGTH);
}

function listItem(execution: LocalExecution): Wire<ExecutionListItem> {
  return {
    executionArn: execution.arn,
    stateMachineArn: execution.stateMachine.arn,
    name: execution.name,
    status: execution.status,
    startDate: epochSeconds(execution.startDate),
    stopDate: execution.stopDate === null ? undefined : epochSeconds(execution.stopDate),
  };
}

function statusFilter(members: Members): ExecutionStatus | undefined {
  const value = members.optionalString("statusFilter");
  if (value === undefined) return undefined;
  const status = EXECUTION_STATUSES.find((candidate) => candidate === value);
  if (!status) {
    throw new SfnApiError(
      "ValidationException",
      `1 validation error detected: Value '${value}' at 'statusFilter' failed to satisfy constraint: ` +
        `Member must satisfy enum value set: [${EXECUTION_STATUSES.join(", ")}]`,
    );
  }
  return status;
}

/** The operations the local service answers, by the name after `AWSStepFunctions.` in X-Amz-Target. */
export const operations: Record<string, Operation> = {
  StartExecution(engine, body): Wire<StartExecutionOutput> {
    const members = new Members(body);
    const execution = engine.startExecution(
      members.requiredString("stateMachineArn"),
      members.optionalString("name"),
      members.optionalString("input") ?? "{}",
    );
    return { executionArn: execution.arn, startDate: epochSeconds(execution.startDate) };
  },

  DescribeExecution(engine, body): Wire<DescribeExecutionOutput> {
    const execution = engine.getExecution(new Members(body).requiredString("executionArn"));
    return {
      ...listItem(execution),
      input: execution.input,
      inputDetails: { included: true },
      output: execution.output ?? undefined,
      outputDetails: execution.output === null ? undefined : { included: true },
      error: execution.error ?? undefined,
      cause: execution.cause ?? undefined,
    };
  },

  ListExecutions(engine, body): Wire<ListExecutionsOutput> {
    const members = new Members(body);
    const machineArn = members.optionalString("stateMachineArn");
    if (machineArn === undefined) {
      throw new SfnApiError("ValidationException", "Must provide a StateMachine ARN or MapRun ARN");
    }
    const executions = engine.listExecutions(machineArn, statusFilter(members));
    const { page, nextToken } = paginate(executions, members);
    return { executions: page.map(listItem), nextToken };
  },

  async StopExecution(engine, body): Promise<Wire<StopExecutionOutput>> {
    const members = new Members(body);
    const execution = await engine.stopExecution(
      members.requiredString("executionArn"),
      members.optionalString("error", MAX_ERROR_LENGTH),
      members.optionalString("cause", MAX_CAUSE_LENGTH),
    );
    return { stopDate: epochSeconds(execution.stopDate ?? Date.now()) };
  },

  GetExecutionHistory(engine, body): Wire<GetExecutionHistoryOutput> {
    const members = new Members(body);
    const execution = engine.getExecution(members.requiredString("executionArn"));
    const reverse = members.optionalBoolean("reverseOrder") ?? false;
    const includeData = members.optionalBoolean("includeExecutionData") ?? true;
    const events = reverse ? [...execution.history.events].reverse() : execution.history.events;
    const { page, nextToken } = paginate(events, members);
    return { events: includeData ? page : page.map(withoutExecutionData), nextToken };
  },

  SendTaskSuccess(engine, body): object {
    const members = new Members(body);
    const token = taskToken(members);
    engine.sendTaskSuccess(token, members.requiredString("output"));
    return {};
  },

  SendTaskFailure(engine, body): object {
    const members = new Members(body);
    const token = taskToken(members);
    engine.sendTaskFailure(
      token,
      members.optionalString("error", MAX_ERROR_LENGTH),
      members.optionalString("cause", MAX_CAUSE_LENGTH),
    );
    return {};
  },

  SendTaskHeartbeat(engine, body): object {
    engine.sendTaskHeartbeat(taskToken(new Members(body)));
    return {};
  },

  ListStateMachines(engine, body): Wire<ListStateMachinesOutput> {
    const { page, nextToken } = paginate(engine.listStateMachines(), new Members(body));
    return {
      stateMachines: page.map((machine) => ({
        stateMachineArn: machine.arn,
        name: machine.name,
        type: "STANDARD",
        creationDate: epochSeconds(machine.creationDate),
      })),
      nextToken,
    };
  },

  DescribeStateMachine(engine, body): Wire<DescribeStateMachineOutput> {
    const machine = engine.getStateMachine(new Members(body).requiredString("stateMachineArn"));
    return {
      stateMachineArn: machine.arn,
      name: machine.name,
      status: "ACTIVE",
      definition: machine.definitionText,
      roleArn: machine.roleArn,
      type: "STANDARD",
      creationDate: epochSeconds(machine.creationDate),
    };
  },
};

const EXECUTION_DATA_KEYS = new Set(["input", "inputDetails", "output", "outputDetails", "parameters"]);

/** `includeExecutionData: false`: the events without their input, output and parameters. */
function withoutExecutionData<Event extends object>(event: Event): Event {
  return Object.fromEntries(
    Object.entries(event).map(([key, value]) =>
      typeof value === "object" && value !== null && key.endsWith("EventDetails")
        ? [
            key,
            Object.fromEntries(Object.entries(value).filter(([field]) => !EXECUTION_DATA_KEYS.has(field))),
          ]
        : [key, value],
    ),
  ) as Event;
}
