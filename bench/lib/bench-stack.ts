/**
 * The benchmark's harness around the real local stack (infra/local/stack.ts: dynalite, the local Step
 * Functions API, the HTTP gateway and the real handlers, all in this process): waiting agent runs to answer,
 * the answer path over HTTP, the bare-minimum baseline over the SDK, and DynamoDB unit counting.
 */
import { DynamoDBClient, GetItemCommand, UpdateItemCommand } from "@aws-sdk/client-dynamodb";
import { SendTaskSuccessCommand, SFNClient, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { marshall, unmarshall } from "@aws-sdk/util-dynamodb";
import { type LocalStack, startLocalStack } from "#infra/local/stack.ts";
import tableDefinition from "#infra/table.json" with { type: "json" };
import { questionIdFor } from "#lib/questions/index.ts";
import type { DeliveryTarget } from "#lib/questions/question-record.ts";
import { INDEX, keys } from "#lib/store/keys.ts";
import { countCapacity, type RequestUnits } from "../../scripts/lib/dynamodb-units.ts";
import { SAMPLE_TOOL_CALL } from "../../scripts/lib/sample-tool-call.ts";

const credentials = { accessKeyId: "local", secretAccessKey: "local" };
const API_KEY = "bench-api-key-0123456789";
const TOOL_CALL_ID = SAMPLE_TOOL_CALL.id;

/** The measured question (shared with scripts/question-cost.ts). */
export const BENCH_TOOL_CALL = SAMPLE_TOOL_CALL;
export const BENCH_ANSWER = { deploy_target: ["Staging"] };
export const BENCH_OWNER = "web:bench";

/** One DynamoDB request of a handler: `GetItem Q#`, `DeleteItem SESSION#`, ... and its duration. */
export interface TimedRequest {
  label: string;
  ms: number;
}

/** Milliseconds of one baseline answer, and of its two calls. */
export interface BaselineTiming {
  ms: number;
  updateItemMs: number;
  sendTaskSuccessMs: number;
}

/** An agent run suspended on its AskUser task, with the question it asked. */
export interface WaitingRun {
  executionArn: string;
  questionId: string;
  sessionKey: string;
}

export interface BenchStack {
  stack: LocalStack;
  /** The benchmark's own clients (not counted). */
  dynamodb: DynamoDBClient;
  sfn: SFNClient;
  /** Starts agent runs and resolves once each waits on its question (its record is stored with a token). */
  startWaitingRuns(
    count: number,
    options?: { deliverTo?: DeliveryTarget[]; owner?: string },
  ): Promise<WaitingRun[]>;
  /** `POST /questions/{id}/answer` over HTTP with the API key; resolves with the milliseconds it took. */
  answerOverHttp(run: WaitingRun): Promise<number>;
  /** `POST /questions` over HTTP with the API key (the measured question plus `body`); resolves with its id. */
  askOverHttp(body: Record<string, unknown>): Promise<string>;
  /**
   * The HTTP floor: the same request with a wrong API key, refused (401) by the handler's first middleware
   * before any DynamoDB or Step Functions call. Resolves with the milliseconds it took.
   */
  unauthorizedRoundTrip(): Promise<number>;
  /** The bare minimum: one conditional UpdateItem (closing the record, returning its token) + SendTaskSuccess. */
  answerBaseline(run: WaitingRun): Promise<BaselineTiming>;
  /** Resolves when the run has ended (SUCCEEDED expected). */
  runEnded(run: WaitingRun): Promise<string>;
  /** Counts DynamoDB units of every request the handlers send while `work` runs. */
  countUnits<T>(work: () => Promise<T>): Promise<{ result: T; requests: RequestUnits[] }>;
  /** Times every DynamoDB request the handlers send while `work` runs (SDK call as the handler sees it). */
  timeRequests<T>(work: () => Promise<T>): Promise<{ result: T; requests: TimedRequest[] }>;
  stop(): Promise<void>;
}

let sequence = 0;

export async function startBenchStack(options: { env?: Record<string, string> } = {}): Promise<BenchStack> {
  const ended = new Map<string, string>();
  const waiters = new Map<string, (status: string) => void>();
  let counting = false;
  const counted: RequestUnits[] = [];
  let timing = false;
  const timed: TimedRequest[] = [];
  let inspector: DynamoDBClient | undefined;

  const stack = await startLocalStack({
    port: 0,
    sfnPort: 0,
    dynamodbPort: 0,
    apiKey: API_KEY,
    tableName: "handraise-bench",
    // Questions of a few seconds, so the timers' cost is measured on timers that really fire.
    env: { HANDRAISE_MIN_TIMEOUT_SECONDS: "1", ...options.env },
    // Off: on AWS the stream consumer (the durable second resume) runs in its own Lambda, off the answer path;
    // here it would share the one event loop with what is being timed. Its cost is added in the cost section.
    streams: false,
    onExecutionStatusChange: (change) => {
      if (change.status === "RUNNING") return;
      const waiter = waiters.get(change.executionArn);
      if (waiter) {
        waiters.delete(change.executionArn);
        waiter(change.status);
      } else ended.set(change.executionArn, change.status);
    },
    // Counting reads every written item before and after the write: it is switched on only in countUnits,
    // never while requests are timed. The handlers load once dynalite is up and AWS_ENDPOINT_URL_DYNAMODB
    // points at it, which the inspector (the client that reads those items, uncounted) resolves like them.
    observeDynamoDbClient: (client) => {
      inspector ??= new DynamoDBClient({ region: "us-east-1", credentials });
      countCapacity(client, inspector, tableDefinition, (units) => counted.push(units), {
        enabled: () => counting,
      });
      client.middlewareStack.add(
        (next, context) => async (args) => {
          if (!timing) return next(args);
          const started = performance.now();
          try {
            return await next(args);
          } finally {
            const command = ((context as { commandName?: string }).commandName ?? "").replace(/Command$/, "");
            timed.push({ label: `${command} ${keyPrefix(args.input)}`, ms: performance.now() - started });
          }
        },
        { step: "initialize", name: "benchRequestTiming" },
      );
    },
  }).catch((error: unknown) => {
    inspector?.destroy();
    throw error;
  });

  // The baseline's clients are built as the handlers' are (lib/wiring.ts: middleware resolved once per
  // command), so that the ratio compares the work, not the client settings.
  const baselineClient = { region: "us-east-1", credentials, cacheMiddleware: true };
  const dynamodb = new DynamoDBClient({ ...baselineClient, endpoint: stack.dynamodbUrl });
  const sfn = new SFNClient({ ...baselineClient, endpoint: stack.sfnUrl });
  const TableName = stack.tableName;

  async function startRun(deliverTo: DeliveryTarget[], owner: string): Promise<WaitingRun> {
    const sessionKey = `bench-${process.pid}-${++sequence}`;
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({
        stateMachineArn: stack.stateMachineArns.agent,
        input: JSON.stringify({
          sessionKey,
          owner,
          deliverTo,
          prompt: "Release 2.4.0 passed its checks. Ask where to deploy it, then report.",
          model: {
            provider: "scripted",
            steps: [{ toolCalls: [BENCH_TOOL_CALL] }, { reply: "deploy={{call_1.deploy_target}}" }],
          },
        }),
      }),
    );
    if (!executionArn) throw new Error("StartExecution returned no ARN");
    return {
      executionArn,
      sessionKey,
      questionId: questionIdFor({ runId: executionArn, toolCallId: TOOL_CALL_ID }),
    };
  }

  /** Waiting on its question, and (`delivered` targets) each post made and recorded. */
  async function isWaiting(run: WaitingRun, delivered = 0): Promise<boolean> {
    const out = await dynamodb.send(
      new GetItemCommand({
        TableName,
        Key: { pk: { S: keys.question(run.questionId) } },
        ConsistentRead: true,
      }),
    );
    const item = out.Item ? unmarshall(out.Item) : undefined;
    if (item?.status !== undefined && item.status !== "pending") {
      throw new Error(`question ${run.questionId} is ${String(item.status)}, not pending`);
    }
    const deliveries = (item?.deliveries ?? []) as { messageId?: string }[];
    const posted = deliveries.filter((d) => d.messageId !== undefined).length;
    return typeof item?.taskToken === "string" && posted >= delivered;
  }

  return {
    stack,
    dynamodb,
    sfn,

    async startWaitingRuns(count, options = {}) {
      const runs: WaitingRun[] = [];
      // Twenty at a time: the local engine and dynalite share this process with the benchmark.
      for (let i = 0; i < count; i += 20) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(20, count - i) }, () =>
            startRun(options.deliverTo ?? [], options.owner ?? BENCH_OWNER),
          ),
        );
        // A post is recorded with its message id once the platform answered it.
        const delivered = (options.deliverTo ?? []).length;
        let pending = batch;
        const deadline = Date.now() + 30_000;
        while (pending.length > 0) {
          const ready = await Promise.all(pending.map((run) => isWaiting(run, delivered)));
          pending = pending.filter((_, index) => !ready[index]);
          if (pending.length === 0) break;
          if (Date.now() > deadline) throw new Error(`${pending.length} runs never reached their question`);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        runs.push(...batch);
      }
      return runs;
    },

    async answerOverHttp(run) {
      const started = performance.now();
      const response = await fetch(`${stack.httpUrl}/questions/${run.questionId}/answer`, {
        method: "POST",
        headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ answers: BENCH_ANSWER }),
      });
      const text = await response.text();
      const elapsed = performance.now() - started;
      if (response.status !== 200) throw new Error(`answer: HTTP ${response.status} ${text}`);
      return elapsed;
    },

    async askOverHttp(body) {
      const response = await fetch(`${stack.httpUrl}/questions`, {
        method: "POST",
        headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ ...BENCH_TOOL_CALL.arguments, owner: BENCH_OWNER, ...body }),
      });
      const text = await response.text();
      if (response.status !== 201) throw new Error(`ask: HTTP ${response.status} ${text}`);
      return (JSON.parse(text) as { id: string }).id;
    },

    async unauthorizedRoundTrip() {
      const started = performance.now();
      const response = await fetch(`${stack.httpUrl}/questions/ask_0/answer`, {
        method: "POST",
        headers: { authorization: "Bearer not-the-api-key", "content-type": "application/json" },
        body: JSON.stringify({ answers: BENCH_ANSWER }),
      });
      await response.text();
      const elapsed = performance.now() - started;
      if (response.status !== 401) throw new Error(`expected 401, got ${response.status}`);
      return elapsed;
    },

    async answerBaseline(run) {
      const started = performance.now();
      const now = Date.now();
      // The same state change the store's close makes, in one conditional write that returns the token. It
      // also takes the token out of the item, so the stream consumer (questionEvents) has nothing to resume
      // and this direct SendTaskSuccess is the only one.
      const out = await dynamodb.send(
        new UpdateItemCommand({
          TableName,
          Key: { pk: { S: keys.question(run.questionId) } },
          UpdateExpression: `SET #status = :answered, answers = :answers, resolvedAtMs = :now REMOVE taskToken, ${INDEX.pendingByOwner.partitionKey}, ${INDEX.pendingBySession.partitionKey}, ${INDEX.pendingByAgent.partitionKey}, ${INDEX.pendingByAsker.partitionKey}`,
          ConditionExpression: "#status = :pending AND expiresAtMs > :now",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: marshall({
            ":answered": "answered",
            ":pending": "pending",
            ":answers": BENCH_ANSWER,
            ":now": now,
          }),
          ReturnValues: "UPDATED_OLD",
        }),
      );
      const updated = performance.now();
      const taskToken = out.Attributes?.taskToken?.S;
      if (!taskToken) throw new Error(`question ${run.questionId} has no task token`);
      await sfn.send(
        new SendTaskSuccessCommand({
          taskToken,
          output: JSON.stringify({ status: "answered", answers: BENCH_ANSWER }),
        }),
      );
      const done = performance.now();
      return { ms: done - started, updateItemMs: updated - started, sendTaskSuccessMs: done - updated };
    },

    runEnded(run) {
      const status = ended.get(run.executionArn);
      if (status !== undefined) {
        ended.delete(run.executionArn);
        return Promise.resolve(status);
      }
      return new Promise((resolve) => waiters.set(run.executionArn, resolve));
    },

    async countUnits(work) {
      counted.length = 0;
      counting = true;
      try {
        const result = await work();
        return { result, requests: [...counted] };
      } finally {
        counting = false;
      }
    },

    async timeRequests(work) {
      timed.length = 0;
      timing = true;
      try {
        const result = await work();
        return { result, requests: [...timed] };
      } finally {
        timing = false;
      }
    },

    async stop() {
      dynamodb.destroy();
      sfn.destroy();
      inspector?.destroy();
      await stack.stop();
    },
  };
}

/** `Q#ask_…` → `Q#`: which kind of item a request touched. */
function keyPrefix(input: unknown): string {
  const { Key, Item } = (input ?? {}) as { Key?: { pk?: { S?: string } }; Item?: { pk?: { S?: string } } };
  const pk = Key?.pk?.S ?? Item?.pk?.S;
  return pk === undefined ? "" : (/^[A-Z]+#/.exec(pk)?.[0] ?? pk);
}
