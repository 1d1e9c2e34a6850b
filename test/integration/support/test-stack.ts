/**
 * Integration tests run against the real local stack (dynalite, the local Step Functions API, the HTTP
 * gateway and the real handlers), on free ports, talking HTTP like any client.
 */

import { randomUUID } from "node:crypto";
import { DynamoDBClient, ScanCommand } from "@aws-sdk/client-dynamodb";
import {
  DescribeExecutionCommand,
  type DescribeExecutionCommandOutput,
  SFNClient,
  StartExecutionCommand,
} from "@aws-sdk/client-sfn";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import { type LocalStack, type LocalStackOptions, startLocalStack } from "#infra/local/stack.ts";

export const TEST_API_KEY = "test-api-key-0123456789";

export interface TestStack extends LocalStack {
  sfn: SFNClient;
  dynamodb: DynamoDBClient;
  /** Every HTTP response body this stack's tests received, to check none leaks a task token. */
  responseBodies: string[];
  api(
    method: string,
    path: string,
    body?: unknown,
    options?: { auth?: string | null; raw?: string },
  ): Promise<ApiResponse>;
}

export interface ApiResponse {
  status: number;
  body: any;
  text: string;
}

const credentials = { accessKeyId: "local", secretAccessKey: "local" };

export async function startTestStack(
  env: Record<string, string> = {},
  options: Pick<LocalStackOptions, "observeDynamoDbClient" | "printEvents"> = {},
): Promise<TestStack> {
  const stack = await startLocalStack({
    // A test that reads the printed event lines asks for them (events.test.ts); thousands of runs would
    // otherwise print two lines each into the test's captured output.
    printEvents: false,
    // Tests read what the handlers wrote, not how many sockets it took: no HTTP between them and DynamoDB.
    dynamoDbInProcess: true,
    ...options,
    port: 0,
    sfnPort: 0,
    dynamodbPort: 0,
    apiKey: TEST_API_KEY,
    tableName: "handraise-test",
    env: {
      HANDRAISE_MIN_TIMEOUT_SECONDS: "1",
      // Tests read the handlers' warnings and errors; the lifecycle lines and metrics only where a test asks
      // for them (test/integration/operability.test.ts), which keeps thousands of runs from writing logs.
      POWERTOOLS_LOG_LEVEL: "WARN",
      POWERTOOLS_METRICS_DISABLED: "true",
      ...env,
    },
  });
  const responseBodies: string[] = [];
  return {
    ...stack,
    responseBodies,
    sfn: new SFNClient({ endpoint: stack.sfnUrl, region: "us-east-1", credentials }),
    dynamodb: new DynamoDBClient({ endpoint: stack.dynamodbUrl, region: "us-east-1", credentials }),
    async api(method, path, body, options = {}) {
      const auth = options.auth === undefined ? `Bearer ${TEST_API_KEY}` : options.auth;
      const response = await fetch(`${stack.httpUrl}${path}`, {
        method,
        headers: { "content-type": "application/json", ...(auth !== null && { authorization: auth }) },
        ...(options.raw !== undefined
          ? { body: options.raw }
          : body !== undefined && { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      responseBodies.push(text);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status: response.status, body: parsed, text };
    },
  };
}

/** Test-only: the task token a question's item holds (the product never shows it). */
export async function taskTokenOf(stack: TestStack, questionId: string): Promise<string> {
  const item = (await allItems(stack)).find((i) => i.id === questionId && i.entity === "question");
  if (typeof item?.taskToken !== "string") throw new Error(`question ${questionId} holds no task token`);
  return item.taskToken;
}

/** Test-only: every item of the table (the product itself never scans). */
export async function allItems(stack: TestStack): Promise<Record<string, any>[]> {
  const out = await stack.dynamodb.send(
    new ScanCommand({ TableName: stack.tableName, ConsistentRead: true }),
  );
  return (out.Items ?? []).map((item) => unmarshall(item));
}

export async function waitFor<T>(
  probe: () => Promise<T | undefined>,
  { timeoutMs = 10_000, intervalMs = 50, what = "condition" } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export async function waitForExecutionEnd(
  stack: TestStack,
  executionArn: string,
  timeoutMs = 20_000,
): Promise<DescribeExecutionCommandOutput> {
  return waitFor(
    async () => {
      const execution = await stack.sfn.send(new DescribeExecutionCommand({ executionArn }));
      return execution.status === "RUNNING" ? undefined : execution;
    },
    { timeoutMs, what: `execution ${executionArn} to end` },
  );
}

/** The reply an agent run ended with (waits for the end). */
export async function replyOf(stack: TestStack, executionArn: string): Promise<string> {
  const execution = await waitForExecutionEnd(stack, executionArn);
  return JSON.parse(execution.output ?? "{}").reply as string;
}

/**
 * An agent run (the scripted model) that asks `questions` once of `owner` at `deliverTo`, then replies
 * `{{c1.status}}|{{c1.reason}}|{{c1.deploy_target}}` (replyOf reads it); resolves once every copy is recorded.
 */
export async function startAskingRun(
  stack: TestStack,
  input: { owner: string; deliverTo: { channel: string; chatId: string }[]; questions: unknown[] },
): Promise<{ executionArn: string; question: any }> {
  const sessionKey = `run-${randomUUID()}`;
  const { executionArn } = await stack.sfn.send(
    new StartExecutionCommand({
      stateMachineArn: stack.stateMachineArns.agent,
      input: JSON.stringify({
        sessionKey,
        owner: input.owner,
        deliverTo: input.deliverTo,
        prompt: "test",
        model: {
          provider: "scripted",
          steps: [
            { toolCalls: [{ id: "c1", name: "ask_user", arguments: { questions: input.questions } }] },
            { reply: "{{c1.status}}|{{c1.reason}}|{{c1.deploy_target}}" },
          ],
        },
      }),
    }),
  );
  const question = await waitFor(
    async () => {
      const [found] = (await stack.api("GET", `/questions?sessionKey=${sessionKey}`)).body.questions;
      return posted(found) >= input.deliverTo.length ? found : undefined;
    },
    { what: "the run's copies to be recorded" },
  );
  return { executionArn: executionArn as string, question };
}

/**
 * How many of a question's copies have been posted: a record lists its targets from the start, and each
 * gets its `messageId` once the platform took the post.
 */
export function posted(question: { deliveries?: { messageId?: string }[] } | undefined): number {
  return (question?.deliveries ?? []).filter((delivery) => delivery.messageId !== undefined).length;
}

/** A question's status as the API reports it (on the local stack or the in-process one). */
export async function statusOf(stack: Pick<TestStack, "api">, questionId: string): Promise<string> {
  return (await stack.api("GET", `/questions/${questionId}`)).body.question.status as string;
}
