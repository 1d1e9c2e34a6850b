/**
 * The Step Functions callbacks (lib/callbacks/sfn-task-callbacks.ts) against local Step Functions with AWS's
 * error responses injected: an ended task is `not_waiting` — unless a retried success or failure may have
 * ended it itself, its first attempt applied and that answer lost (UnconfirmedCallbackError).
 */
import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  SFNClient,
  StartExecutionCommand,
} from "@aws-sdk/client-sfn";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type LocalStepFunctions, startLocalStepFunctions } from "#infra/local/stepfunctions/index.ts";
import { createSfnTaskCallbacks } from "#lib/callbacks/sfn-task-callbacks.ts";
import { type TaskCallbacks, UnconfirmedCallbackError } from "#lib/callbacks/task-callbacks.ts";
import { noWaitRetries } from "#test/support/retries.ts";
import { waitForever } from "./stepfunctions/machines.ts";

const credentials = { accessKeyId: "local", secretAccessKey: "local" };
const ANSWERED = { status: "answered" as const, answers: { q: ["A"] } };
/** Tokens the `ask` handler was given, by execution. */
const tokens = new Map<string, string>();
let sfn: LocalStepFunctions;
let client: SFNClient;
let callbacks: TaskCallbacks;

beforeAll(async () => {
  sfn = await startLocalStepFunctions({
    port: 0,
    stateMachines: [waitForever],
    lambdas: {
      ask: async (event) => {
        const { taskToken, runId } = event as { taskToken: string; runId: string };
        tokens.set(runId, taskToken);
        return {};
      },
    },
  });
  client = new SFNClient({
    endpoint: sfn.url,
    region: "us-east-1",
    credentials,
    retryStrategy: noWaitRetries(),
  });
  callbacks = createSfnTaskCallbacks(client);
});
afterEach(() => {
  expect(sfn.faults.clear()).toBe(0);
});
afterAll(async () => {
  client?.destroy();
  await sfn?.stop();
});

/** A run waiting on its task: its ARN and token. */
async function waitingRun(): Promise<{ executionArn: string; taskToken: string }> {
  const { executionArn = "" } = await client.send(
    new StartExecutionCommand({ stateMachineArn: sfn.stateMachineArn("waitForever"), input: "{}" }),
  );
  for (;;) {
    const taskToken = tokens.get(executionArn);
    if (taskToken !== undefined) return { executionArn, taskToken };
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function taskEvents(executionArn: string): Promise<string[]> {
  const { events = [] } = await client.send(new GetExecutionHistoryCommand({ executionArn }));
  return events.map((event) => event.type ?? "").filter((type) => /^Task(Succeeded|Failed)$/.test(type));
}

const loseAnswerOf = (operation: string) =>
  sfn.faults.failNext(1, {
    code: "InternalServerError",
    status: 500,
    operations: [operation],
    applied: true,
  });

describe("Step Functions callbacks", () => {
  it("a success applied whose answer was lost, found ended on the retry, is unconfirmed — not 'not waiting'", async () => {
    const { executionArn, taskToken } = await waitingRun();
    loseAnswerOf("SendTaskSuccess");
    const error = await callbacks.succeed(taskToken, ANSWERED).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnconfirmedCallbackError);
    expect((error as Error).message).toContain("SendTaskSuccess");
    // The first attempt was the one that resumed the run.
    expect(await taskEvents(executionArn)).toEqual(["TaskSucceeded"]);
    const described = await client.send(new DescribeExecutionCommand({ executionArn }));
    expect(JSON.parse(described.output ?? "")).toEqual(ANSWERED);
    // Sent again in one attempt, the ended task is the run's own end: not waiting.
    await expect(callbacks.succeed(taskToken, ANSWERED)).resolves.toBe("not_waiting");
  });

  it("a failure applied whose answer was lost is unconfirmed too", async () => {
    const { executionArn, taskToken } = await waitingRun();
    loseAnswerOf("SendTaskFailure");
    await expect(callbacks.fail(taskToken, "Handraise.Skipped", "skipped")).rejects.toBeInstanceOf(
      UnconfirmedCallbackError,
    );
    expect(await taskEvents(executionArn)).toEqual(["TaskFailed"]);
    await expect(callbacks.fail(taskToken, "Handraise.Skipped", "skipped")).resolves.toBe("not_waiting");
  });

  it("a heartbeat ends nothing: an ended task after a lost answer is still not waiting", async () => {
    const { taskToken } = await waitingRun();
    await expect(callbacks.succeed(taskToken, ANSWERED)).resolves.toBe("resumed");
    sfn.faults.failNext(1, { code: "ServiceUnavailable", status: 503, operations: ["SendTaskHeartbeat"] });
    await expect(callbacks.heartbeat(taskToken)).resolves.toBe("not_waiting");
  });
});
