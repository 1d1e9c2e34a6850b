import { createHook } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import {
  DescribeExecutionCommand,
  DescribeStateMachineCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  type ExecutionStatus,
  GetExecutionHistoryCommand,
  type HistoryEvent,
  InvalidArn,
  InvalidExecutionInput,
  InvalidName,
  InvalidOutput,
  InvalidToken,
  ListExecutionsCommand,
  ListStateMachinesCommand,
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  SFNClient,
  StartExecutionCommand,
  StateMachineDoesNotExist,
  StopExecutionCommand,
  TaskDoesNotExist,
  TaskTimedOut,
} from "@aws-sdk/client-sfn";
import type { Context } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type ExecutionStatusChange,
  type LocalLambdaHandler,
  type LocalStepFunctions,
  startLocalStepFunctions,
} from "#infra/local/stepfunctions/index.ts";
import { encodeTaskToken } from "#infra/local/stepfunctions/task-token.ts";
import { askTwice, caughtFailure, chain, uncaughtFailure, waitForever } from "./stepfunctions/machines.ts";

interface AskEvent {
  taskToken: string;
  question: string;
  runId?: string;
}

const asks: { event: AskEvent; context: Context }[] = [];
const statusChanges: ExecutionStatusChange[] = [];

const lambdas: Record<string, LocalLambdaHandler> = {
  double: async (event) => ({ n: (event as { n: number }).n * 2 }),
  addOne: async (event) => ({ n: (event as { n: number }).n + 1 }),
  ask: async (event, context) => {
    asks.push({ event: event as AskEvent, context });
    return { delivered: true };
  },
  boom: async () => {
    const error = new Error("chat API down");
    error.name = "Handraise.DeliveryFailed";
    throw error;
  },
};

const credentials = { accessKeyId: "local", secretAccessKey: "local" };
let sfn: LocalStepFunctions;
let client: SFNClient;

beforeAll(async () => {
  sfn = await startLocalStepFunctions({
    port: 0,
    stateMachines: [chain, askTwice, waitForever, caughtFailure, uncaughtFailure],
    lambdas,
    onExecutionStatusChange: (change) => {
      statusChanges.push(change);
    },
  });
  client = new SFNClient({ endpoint: sfn.url, region: "us-east-1", credentials });
});

afterAll(async () => {
  client?.destroy();
  await sfn?.stop();
});

let counter = 0;
const uniqueName = (prefix: string) => `${prefix}-${Date.now()}-${++counter}`;

async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("waitFor: timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function start(machine: string, input: unknown, name?: string): Promise<string> {
  const { executionArn } = await client.send(
    new StartExecutionCommand({
      stateMachineArn: sfn.stateMachineArn(machine),
      input: JSON.stringify(input),
      ...(name !== undefined && { name }),
    }),
  );
  if (!executionArn) throw new Error("no executionArn");
  return executionArn;
}

function describeExecution(executionArn: string) {
  return client.send(new DescribeExecutionCommand({ executionArn }));
}

async function waitForStatus(executionArn: string, status: ExecutionStatus, timeoutMs?: number) {
  return waitFor(async () => {
    const described = await describeExecution(executionArn);
    return described.status === status ? described : undefined;
  }, timeoutMs);
}

/** The ask handler's invocation for a question of one execution. */
function waitForAsk(executionArn: string, question: string) {
  return waitFor(() =>
    asks.find((ask) => ask.event.runId === executionArn && ask.event.question === question),
  );
}

async function history(executionArn: string): Promise<HistoryEvent[]> {
  const { events } = await client.send(new GetExecutionHistoryCommand({ executionArn }));
  return events ?? [];
}

async function errorType(response: Response): Promise<unknown> {
  return ((await response.json()) as { __type?: unknown }).__type;
}

const succeed = (taskToken: string, output: unknown) =>
  client.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(output) }));

describe("local Step Functions API", () => {
  it("runs a lambda:invoke chain and reports it the way AWS does", async () => {
    const executionArn = await start("chain", { n: 5 });
    const described = await waitForStatus(executionArn, "SUCCEEDED");

    expect(described).toMatchObject({
      executionArn,
      stateMachineArn: "arn:aws:states:us-east-1:000000000000:stateMachine:chain",
      name: executionArn.split(":").at(-1),
      input: '{"n":5}',
    });
    expect(JSON.parse(described.output ?? "")).toEqual({ size: "big", n: 11, flag: false });
    expect(described.startDate).toBeInstanceOf(Date);
    expect(described.stopDate?.getTime()).toBeGreaterThanOrEqual(described.startDate?.getTime() ?? Infinity);
    expect(described.error).toBeUndefined();

    const events = await history(executionArn);
    expect(events.map((event) => event.id)).toEqual(events.map((_, index) => index + 1));
    expect(events[0]).toMatchObject({ type: "ExecutionStarted", previousEventId: 0 });
    expect(events[0]?.timestamp).toBeInstanceOf(Date);
    expect(events.at(-1)?.type).toBe("ExecutionSucceeded");
    const entered = events.filter((event) => event.type?.endsWith("StateEntered"));
    expect(entered.map((event) => `${event.type}:${event.stateEnteredEventDetails?.name}`)).toEqual([
      "PassStateEntered:Start",
      "TaskStateEntered:Double",
      "TaskStateEntered:AddOne",
      "ChoiceStateEntered:Check",
      "PassStateEntered:Big",
      "PassStateEntered:Flag",
      "SucceedStateEntered:Done",
    ]);
    const invoked = events.find((event) => event.type === "TaskSucceeded");
    expect(JSON.parse(invoked?.taskSucceededEventDetails?.output ?? "")).toEqual({
      ExecutedVersion: "$LATEST",
      Payload: { n: 10 },
      StatusCode: 200,
    });
    expect(
      events.find((event) => event.type === "LambdaFunctionScheduled")?.lambdaFunctionScheduledEventDetails,
    ).toMatchObject({
      resource: "arn:aws:lambda:us-east-1:000000000000:function:addOne",
      input: '{"n":10}',
      timeoutInSeconds: 5,
    });

    const reversed = await client.send(new GetExecutionHistoryCommand({ executionArn, reverseOrder: true }));
    expect(reversed.events?.map((event) => event.id)).toEqual(events.map((event) => event.id).reverse());
    const firstPage = await client.send(new GetExecutionHistoryCommand({ executionArn, maxResults: 5 }));
    expect(firstPage.events).toHaveLength(5);
    const rest = await client.send(
      new GetExecutionHistoryCommand({ executionArn, nextToken: firstPage.nextToken, maxResults: 1000 }),
    );
    expect([...(firstPage.events ?? []), ...(rest.events ?? [])].map((event) => event.id)).toEqual(
      events.map((event) => event.id),
    );
    expect(rest.nextToken).toBeUndefined();

    const changes = statusChanges.filter((change) => change.executionArn === executionArn);
    expect(changes.map((change) => change.status)).toEqual(["RUNNING", "SUCCEEDED"]);
    expect(changes[0]).toMatchObject({
      stopDate: null,
      output: null,
      input: '{"n":5}',
      name: described.name,
    });
    expect(changes[1]).toMatchObject({
      stateMachineArn: sfn.stateMachineArn("chain"),
      output: described.output,
      stopDate: described.stopDate?.getTime(),
      startDate: described.startDate?.getTime(),
    });
  });

  it("lists executions newest first, filtered by status, in pages", async () => {
    const older = await start("chain", { n: 1 }, uniqueName("older"));
    await waitForStatus(older, "SUCCEEDED");
    const newer = await start("chain", { n: 2 }, uniqueName("newer"));
    await waitForStatus(newer, "SUCCEEDED");
    const running = await start("waitForever", {});

    const stateMachineArn = sfn.stateMachineArn("chain");
    const succeeded = await client.send(
      new ListExecutionsCommand({ stateMachineArn, statusFilter: "SUCCEEDED" }),
    );
    const arns = succeeded.executions?.map((execution) => execution.executionArn) ?? [];
    expect(arns.indexOf(newer)).toBeLessThan(arns.indexOf(older));
    expect(arns.indexOf(older)).toBeGreaterThanOrEqual(0);
    expect(succeeded.executions?.[0]).toMatchObject({ stateMachineArn, status: "SUCCEEDED" });
    expect(succeeded.executions?.[0]?.stopDate).toBeInstanceOf(Date);

    const page = await client.send(new ListExecutionsCommand({ stateMachineArn, maxResults: 1 }));
    expect(page.executions?.map((execution) => execution.executionArn)).toEqual([newer]);
    const next = await client.send(
      new ListExecutionsCommand({ stateMachineArn, maxResults: 1, nextToken: page.nextToken }),
    );
    expect(next.executions?.map((execution) => execution.executionArn)).toEqual([older]);

    const waiting = await client.send(
      new ListExecutionsCommand({
        stateMachineArn: sfn.stateMachineArn("waitForever"),
        statusFilter: "RUNNING",
      }),
    );
    expect(waiting.executions?.map((execution) => execution.executionArn)).toContain(running);
    await client.send(new StopExecutionCommand({ executionArn: running }));
  });

  it("resumes a waiting task with SendTaskSuccess; each task gets its own fresh token", async () => {
    const executionArn = await start("askTwice", { waitSeconds: 30 });
    const first = await waitForAsk(executionArn, "first");
    expect(first.event.taskToken.length).toBeGreaterThan(500);
    expect(first.event.taskToken).not.toContain("localSfn");
    expect(first.context).toMatchObject({
      functionName: "ask",
      functionVersion: "$LATEST",
      invokedFunctionArn: "arn:aws:lambda:us-east-1:000000000000:function:ask",
    });
    expect(first.context.awsRequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.context.getRemainingTimeInMillis()).toBeGreaterThan(0);

    await client.send(new SendTaskHeartbeatCommand({ taskToken: first.event.taskToken }));
    await succeed(first.event.taskToken, { choice: "A" });
    const second = await waitForAsk(executionArn, "second");
    expect(second.event.taskToken).not.toBe(first.event.taskToken);
    await succeed(second.event.taskToken, { choice: "B" });

    const described = await waitForStatus(executionArn, "SUCCEEDED");
    expect(JSON.parse(described.output ?? "")).toEqual({
      waitSeconds: 30,
      first: { choice: "A" },
      second: { choice: "B" },
      result: { status: "answered" },
    });

    const events = await history(executionArn);
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type === "TaskSubmitted")).toHaveLength(2);
    expect(types.filter((type) => type === "TaskSucceeded")).toHaveLength(2);
    const scheduled = events.find((event) => event.type === "TaskScheduled")?.taskScheduledEventDetails;
    expect(scheduled).toMatchObject({
      resourceType: "lambda",
      resource: "invoke.waitForTaskToken",
      timeoutInSeconds: 30,
    });
    expect(JSON.parse(scheduled?.parameters ?? "").Payload.taskToken).toBe(first.event.taskToken);

    // A token is single use: once its task ended it is gone, as on AWS.
    await expect(succeed(first.event.taskToken, {})).rejects.toMatchObject({
      name: "TaskTimedOut",
      message: "Provided task does not exist anymore",
    });
    await expect(
      client.send(new SendTaskHeartbeatCommand({ taskToken: second.event.taskToken })),
    ).rejects.toBeInstanceOf(TaskTimedOut);
  });

  it("turns SendTaskFailure into an error that Catch matches by name", async () => {
    const executionArn = await start("askTwice", { waitSeconds: 30 });
    const first = await waitForAsk(executionArn, "first");
    await client.send(
      new SendTaskFailureCommand({
        taskToken: first.event.taskToken,
        error: "Handraise.Cancelled",
        cause: "cancelled in chat",
      }),
    );
    const described = await waitForStatus(executionArn, "SUCCEEDED");
    expect(JSON.parse(described.output ?? "")).toMatchObject({
      error: { Error: "Handraise.Cancelled", Cause: "cancelled in chat" },
      result: { status: "no_answer", reason: "cancelled" },
    });
    const failed = (await history(executionArn)).find((event) => event.type === "TaskFailed");
    expect(failed?.taskFailedEventDetails).toMatchObject({
      error: "Handraise.Cancelled",
      cause: "cancelled in chat",
    });
  });

  it("times a waiting task out after TimeoutSecondsPath with a catchable States.Timeout", async () => {
    const executionArn = await start("askTwice", { waitSeconds: 1 });
    const first = await waitForAsk(executionArn, "first");
    const described = await waitForStatus(executionArn, "SUCCEEDED", 4000);
    expect(JSON.parse(described.output ?? "")).toMatchObject({
      error: { Error: "States.Timeout" },
      result: { status: "no_answer", reason: "expired" },
    });
    const types = (await history(executionArn)).map((event) => event.type);
    expect(types).toContain("TaskTimedOut");
    expect(types.indexOf("TaskTimedOut")).toBeLessThan(types.indexOf("TaskStateExited"));
    await expect(succeed(first.event.taskToken, {})).rejects.toBeInstanceOf(TaskTimedOut);
  });

  it("fails a task whose handler throws with the error's name and the Lambda runtime's cause", async () => {
    const caught = await start("caughtFailure", {});
    const described = await waitForStatus(caught, "SUCCEEDED");
    const output = JSON.parse(described.output ?? "");
    expect(output.result).toEqual({ status: "delivery_failed" });
    expect(output.error.Error).toBe("Handraise.DeliveryFailed");
    expect(JSON.parse(output.error.Cause)).toEqual({
      errorType: "Handraise.DeliveryFailed",
      errorMessage: "chat API down",
      trace: [],
    });

    const uncaught = await start("uncaughtFailure", {});
    const failed = await waitForStatus(uncaught, "FAILED");
    expect(failed.error).toBe("Handraise.DeliveryFailed");
    expect(JSON.parse(failed.cause ?? "")).toMatchObject({ errorMessage: "chat API down" });
    expect(failed.output).toBeUndefined();
    const events = await history(uncaught);
    expect(events.map((event) => event.type)).toEqual([
      "ExecutionStarted",
      "TaskStateEntered",
      "LambdaFunctionScheduled",
      "LambdaFunctionStarted",
      "LambdaFunctionFailed",
      "ExecutionFailed",
    ]);
    expect(events.at(-1)?.executionFailedEventDetails?.error).toBe("Handraise.DeliveryFailed");
    expect(
      statusChanges.find((change) => change.executionArn === uncaught && change.status === "FAILED"),
    ).toMatchObject({
      error: "Handraise.DeliveryFailed",
      output: null,
    });
  });

  it("stops a waiting run with StopExecution: ABORTED, notified, and its token retired", async () => {
    const executionArn = await start("waitForever", {});
    const waiting = await waitForAsk(executionArn, "forever");
    const scheduled = (await history(executionArn)).find((event) => event.type === "TaskScheduled");
    expect(scheduled?.taskScheduledEventDetails?.timeoutInSeconds).toBeUndefined();

    const { stopDate } = await client.send(
      new StopExecutionCommand({ executionArn, error: "Handraise.RunAborted", cause: "stopped by the test" }),
    );
    expect(stopDate).toBeInstanceOf(Date);
    const described = await describeExecution(executionArn);
    expect(described).toMatchObject({
      status: "ABORTED",
      error: "Handraise.RunAborted",
      cause: "stopped by the test",
    });
    expect(described.stopDate?.getTime()).toBe(stopDate?.getTime());

    const aborted = await waitFor(() =>
      statusChanges.find((change) => change.executionArn === executionArn && change.status === "ABORTED"),
    );
    expect(aborted).toMatchObject({
      error: "Handraise.RunAborted",
      cause: "stopped by the test",
      output: null,
    });
    const events = await history(executionArn);
    expect(events.at(-1)).toMatchObject({
      type: "ExecutionAborted",
      executionAbortedEventDetails: { error: "Handraise.RunAborted", cause: "stopped by the test" },
    });
    await expect(succeed(waiting.event.taskToken, {})).rejects.toBeInstanceOf(TaskTimedOut);

    // Stopping an ended execution changes nothing.
    await client.send(new StopExecutionCommand({ executionArn }));
    expect((await describeExecution(executionArn)).error).toBe("Handraise.RunAborted");
  });

  it("tells malformed, never-issued and live tokens apart", async () => {
    await expect(succeed("not-a-token", {})).rejects.toBeInstanceOf(InvalidToken);
    await expect(succeed(`${"A".repeat(598)}==`, {})).rejects.toBeInstanceOf(InvalidToken);
    const neverIssued = encodeTaskToken(randomBytes(16).toString("hex"));
    await expect(succeed(neverIssued, {})).rejects.toBeInstanceOf(TaskDoesNotExist);
    await expect(
      client.send(new SendTaskFailureCommand({ taskToken: neverIssued, error: "x" })),
    ).rejects.toBeInstanceOf(TaskDoesNotExist);

    const executionArn = await start("askTwice", { waitSeconds: 30 });
    const first = await waitForAsk(executionArn, "first");
    await expect(
      client.send(new SendTaskSuccessCommand({ taskToken: first.event.taskToken, output: "{not json" })),
    ).rejects.toBeInstanceOf(InvalidOutput);
    await expect(succeed(first.event.taskToken, "x".repeat(300 * 1024))).rejects.toBeInstanceOf(
      InvalidOutput,
    );
    // The rejected outputs did not consume the token.
    await succeed(first.event.taskToken, { choice: "late but valid" });
    await waitForAsk(executionArn, "second");
    await client.send(new StopExecutionCommand({ executionArn }));
  });

  it("answers unknown or invalid resources with AWS's error names", async () => {
    const unknownExecution = "arn:aws:states:us-east-1:000000000000:execution:chain:does-not-exist";
    await expect(describeExecution(unknownExecution)).rejects.toBeInstanceOf(ExecutionDoesNotExist);
    await expect(history(unknownExecution)).rejects.toBeInstanceOf(ExecutionDoesNotExist);
    await expect(describeExecution("not-an-arn")).rejects.toBeInstanceOf(InvalidArn);
    await expect(start("missing", {})).rejects.toBeInstanceOf(StateMachineDoesNotExist);
    await expect(
      client.send(new StartExecutionCommand({ stateMachineArn: "arn:aws:states:nope", input: "{}" })),
    ).rejects.toBeInstanceOf(InvalidArn);
    await expect(
      client.send(
        new StartExecutionCommand({ stateMachineArn: sfn.stateMachineArn("chain"), input: "{oops" }),
      ),
    ).rejects.toBeInstanceOf(InvalidExecutionInput);
    await expect(
      client.send(
        new StartExecutionCommand({
          stateMachineArn: sfn.stateMachineArn("chain"),
          input: JSON.stringify({ blob: "x".repeat(256 * 1024) }),
        }),
      ),
    ).rejects.toBeInstanceOf(InvalidExecutionInput);
    await expect(start("chain", { n: 1 }, "has spaces")).rejects.toBeInstanceOf(InvalidName);
  });

  it("refuses to reuse an execution name, except to return the same running execution", async () => {
    const name = uniqueName("idempotent");
    const first = await start("waitForever", { a: 1 }, name);
    expect(await start("waitForever", { a: 1 }, name)).toBe(first);
    await expect(start("waitForever", { a: 2 }, name)).rejects.toBeInstanceOf(ExecutionAlreadyExists);
    await client.send(new StopExecutionCommand({ executionArn: first }));
    await expect(start("waitForever", { a: 1 }, name)).rejects.toBeInstanceOf(ExecutionAlreadyExists);
  });

  it("describes and lists its state machines", async () => {
    const { stateMachines } = await client.send(new ListStateMachinesCommand({}));
    expect(stateMachines?.map((machine) => machine.name)).toEqual([
      "chain",
      "askTwice",
      "waitForever",
      "caughtFailure",
      "uncaughtFailure",
    ]);
    const described = await client.send(
      new DescribeStateMachineCommand({ stateMachineArn: sfn.stateMachineArn("chain") }),
    );
    expect(described).toMatchObject({ name: "chain", type: "STANDARD", status: "ACTIVE" });
    expect(JSON.parse(described.definition ?? "")).toEqual(chain.definition);
  });

  it("speaks the AWS JSON 1.0 protocol: 400 with __type for every client error", async () => {
    const call = (target: string, body: string) =>
      fetch(sfn.url, {
        method: "POST",
        headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": target },
        body,
      });

    const missing = await call(
      "AWSStepFunctions.DescribeExecution",
      JSON.stringify({ executionArn: "arn:aws:states:us-east-1:000000000000:execution:chain:nope" }),
    );
    expect(missing.status).toBe(400);
    expect(missing.headers.get("content-type")).toBe("application/x-amz-json-1.0");
    expect(missing.headers.get("x-amzn-errortype")).toBe("ExecutionDoesNotExist");
    expect(await missing.json()).toEqual({
      __type: "ExecutionDoesNotExist",
      message: "Execution Does Not Exist: 'arn:aws:states:us-east-1:000000000000:execution:chain:nope'",
    });

    const unknown = await call("AWSStepFunctions.LaunchRockets", "{}");
    expect(unknown.status).toBe(400);
    expect(await errorType(unknown)).toBe("UnknownOperationException");

    const malformed = await call("AWSStepFunctions.StartExecution", "{not json");
    expect(malformed.status).toBe(400);
    expect(await errorType(malformed)).toBe("SerializationException");

    const notAnObject = await call("AWSStepFunctions.StartExecution", "[1,2]");
    expect(await errorType(notAnObject)).toBe("SerializationException");

    const wrongType = await call(
      "AWSStepFunctions.SendTaskSuccess",
      JSON.stringify({ taskToken: 42, output: "{}" }),
    );
    expect(wrongType.status).toBe(400);
    expect(await errorType(wrongType)).toBe("SerializationException");

    const noToken = await call("AWSStepFunctions.SendTaskSuccess", JSON.stringify({ output: "{}" }));
    expect(noToken.status).toBe(400);
    expect(await errorType(noToken)).toBe("ValidationException");

    const fine = await call("AWSStepFunctions.ListStateMachines", "");
    expect(fine.status).toBe(200);
    expect(((await fine.json()) as { stateMachines: unknown[] }).stateMachines).toHaveLength(5);
  });

  it("stop() aborts running executions silently, leaves no timers behind, survives a throwing callback", async () => {
    // Timers created by the engine or the interpreter, for as long as they are pending.
    const engineTimers = new Set<number>();
    const hook = createHook({
      init(id, type) {
        if (
          type === "Timeout" &&
          /aws-local-stepfunctions|infra\/local\/stepfunctions/.test(new Error().stack ?? "")
        ) {
          engineTimers.add(id);
        }
      },
      destroy(id) {
        engineTimers.delete(id);
      },
    }).enable();
    const changes: ExecutionStatusChange[] = [];
    const seen: AskEvent[] = [];
    const other = await startLocalStepFunctions({
      port: 0,
      stateMachines: [askTwice, waitForever],
      lambdas: {
        ask: async (event) => {
          seen.push(event as AskEvent);
          return null;
        },
      },
      onExecutionStatusChange: (change) => {
        changes.push(change);
        throw new Error("the status change callback broke");
      },
    });
    const consoleError = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const otherClient = new SFNClient({ endpoint: other.url, region: "us-east-1", credentials });
      for (const [machine, input] of [
        ["askTwice", '{"waitSeconds":300}'],
        ["waitForever", "{}"],
      ] as const) {
        await otherClient.send(
          new StartExecutionCommand({ stateMachineArn: other.stateMachineArn(machine), input }),
        );
      }
      otherClient.destroy();
      await waitFor(() => seen[1]);
      expect(engineTimers.size).toBeGreaterThan(0);

      await other.stop();
      await new Promise((resolve) => setImmediate(resolve));
      expect(engineTimers.size).toBe(0);
      expect(changes.map((change) => change.status)).toEqual(["RUNNING", "RUNNING"]);
      // A throwing callback is reported, and the server went on serving.
      expect(consoleError).toHaveBeenCalledWith(
        expect.stringContaining("onExecutionStatusChange failed"),
        expect.objectContaining({ message: "the status change callback broke" }),
      );
    } finally {
      consoleError.mockRestore();
      hook.disable();
      await other.stop();
    }
  });
});
