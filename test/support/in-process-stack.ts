/**
 * The handlers in one process, without the local stack: the same handler factories the functions use
 * (infra/local/handler-factories.ts, each given a configuration object as `functions/*.ts` give
 * `loadConfig()`), wired to an in-memory question store (held to the DynamoDB store's contract), a fake Step
 * Functions behind the real callbacks adapter, question timers on a clock the test moves, and that clock.
 * Every change the store makes goes, in order per item, to the stream consumer as the table's stream would
 * carry it (infra/local/dynamodb-streams.ts, with serverless.yml's filter patterns), so a closed question
 * resumes its run and retires its copies through the real code. The platforms stay the fake HTTP servers of
 * test/integration/support/fake-platform.ts, reached through the `*_API_BASE` settings.
 *
 * What it does not model (keep those cases on the local stack): DynamoDB itself (the store is held to its
 * contract, not its wire: concurrent conditional writes, the real stream), the state machine (a run is its
 * AskUser task: the ask handler is called with a task token, and the run is what that token received;
 * `runResult` gives what the Catch would hand the model), the HTTP gateway's own limits, the notifier, the
 * events (no bus is set, so nothing is published), the run-status consumer, MCP, the model step, the durable
 * agent. A platform client's own timeouts and retry
 * pauses still pass real time.
 *
 * A platform's tests on it (telegram.test.ts and mattermost.test.ts are converted so): start the fake API
 * and this stack with the channel's settings; start a run with `ask` (it returns once the ask function has
 * delivered and recorded the copies, so no waiting for posts); send webhook requests with `request`;
 * `await run.result()` for what the run received (it drains the stream first, so copies are retired by
 * then), `run.outcome()` after `settled()` for "still waits"; `stack.store.items` for the table's items;
 * `clock.advance` instead of waiting for a timer; `afterEach(() => stack.settled())` so one test's stream
 * work ends before the next counts calls. The wiring end to end stays in `<platform>-e2e.test.ts` on the
 * local stack, sharing the fake and request builders through test/integration/support/<platform>-fake.ts.
 *
 * @example
 * const stack = await startInProcessStack({ TELEGRAM_BOT_TOKEN: "1:t", TELEGRAM_API_BASE: fake.url });
 * const run = await stack.ask({ owner: "telegram:42", deliverTo: [{ channel: "telegram", chatId: "-1" }],
 *   questions: [single] });
 * await stack.request("POST", "/webhooks/telegram", { headers, body: JSON.stringify(update) });
 * expect(await run.result()).toMatchObject({ kind: "succeeded", output: { status: "answered" } });
 * await stack.clock.advance(60_000); // fires the timers due on the way (expiry, reminders, escalation)
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import {
  DescribeExecutionCommand,
  ExecutionDoesNotExist,
  InvalidOutput,
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  type SFNClient,
  TaskDoesNotExist,
  TaskTimedOut,
} from "@aws-sdk/client-sfn";
import { createStreamEmulator } from "#infra/local/dynamodb-streams.ts";
import { type HandlerFactory, handlerFactories, type LocalHandler } from "#infra/local/handler-factories.ts";
import { apiGatewayEvent, compileRoutePath, toResult } from "#infra/local/http-gateway.ts";
import { lambdaContext } from "#infra/local/lambda-context.ts";
import { readServerlessFunctions } from "#infra/local/serverless-functions.ts";
import type { AwsService } from "#lib/aws-client-settings.ts";
import { createSfnTaskCallbacks } from "#lib/callbacks/sfn-task-callbacks.ts";
import { CHANNELS } from "#lib/channels/channel-list.ts";
import { type Config, loadConfig } from "#lib/config.ts";
import type { AskUserResult } from "#lib/questions/schema.ts";
import {
  createInMemoryQuestionStore,
  type InMemoryQuestionStore,
} from "#lib/store/in-memory-question-store.ts";
import type { TimerEvent, Timers } from "#lib/timers/timers.ts";

const ROOT = resolvePath(import.meta.dirname, "../..");

export const IN_PROCESS_API_KEY = "in-process-api-key-0123456789";
/** Where the clock starts unless a test says otherwise: a fixed day, so nothing depends on the date. */
export const IN_PROCESS_T0 = Date.UTC(2030, 0, 1);

/** The functions built (by serverless.yml key) besides each channel's webhook. */
const FUNCTIONS = ["questionsApi", "ask", "answerPage", "questionEvents", "questionTimer"] as const;

export interface HttpResult {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  body: any;
}

/** What a run's AskUser task ended with, as the Step Functions API was told. */
export type RunOutcome =
  | { kind: "succeeded"; output: AskUserResult }
  | { kind: "failed"; error: string; cause: string };

export interface InProcessRun {
  taskToken: string;
  questionId: string;
  /** What the task has received so far; undefined while it waits. */
  outcome(): RunOutcome | undefined;
  /** Once the stream is drained: what the task received (throws when it still waits). */
  result(): Promise<RunOutcome>;
  /** The task times out (States.Timeout): a later SendTask* call is answered TaskTimedOut. */
  timeOut(): void;
}

/** The AskUser task's input besides its task token (lib/handlers/ask.ts). */
export interface AskInput {
  owner: string;
  deliverTo: { channel: string; chatId: string }[];
  questions: unknown;
  runId?: string;
  toolCallId?: string;
  sessionKey?: string;
  timeoutSeconds?: number;
  [more: string]: unknown;
}

/**
 * The time every handler reads. It runs on from where it started as time passes (a platform call's deadline
 * is measured on it, so a slow platform runs a deadline out as it does deployed), and a test moves it ahead:
 * a question's timers fire only when `advance` passes them, never on their own.
 */
export interface InProcessClock {
  now(): number;
  /**
   * Moves the time `ms` forward; each timer due on the way fires in time order (the question-timer handler
   * runs with its event at its due time), and the stream is drained after each.
   */
  advance(ms: number): Promise<void>;
}

export interface InProcessStack {
  config: Config;
  store: InMemoryQuestionStore;
  clock: InProcessClock;
  /** The question timers set and not cleared or fired, by name. */
  timers: ReadonlyMap<string, TimerEvent>;
  /** Every SendTaskSuccess / SendTaskFailure / SendTaskHeartbeat call, in order. */
  taskCalls: { command: "success" | "failure" | "heartbeat"; input: Record<string, unknown> }[];
  /** Starts a run's AskUser task: the ask handler with a new task token. Rejects as the task would fail. */
  ask(input: AskInput): Promise<InProcessRun>;
  /** An HTTP request as API Gateway hands it to the function serverless.yml routes it to. */
  request(
    method: string,
    pathAndQuery: string,
    options?: { headers?: Record<string, string>; body?: string },
  ): Promise<HttpResult>;
  /** The question API with this stack's key (`auth: null` sends none), as TestStack.api. */
  api(
    method: string,
    path: string,
    body?: unknown,
    options?: { auth?: string | null; raw?: string },
  ): Promise<HttpResult>;
  /** Calls a built function's handler with an event (serverless.yml key). */
  invoke(fn: string, event: unknown): Promise<unknown>;
  /** Resolves once every store change so far has been through the stream consumer. */
  settled(): Promise<void>;
  /**
   * Holds the store's changes back from the stream consumer until the returned function is called, as the
   * table's stream lags a closing function in AWS: a test of what that function alone does and says.
   */
  holdStream(): () => void;
  stop(): Promise<void>;
}

/** Step Functions' largest task output, in UTF-8 bytes: above it SendTaskSuccess fails with InvalidOutput. */
const MAX_TASK_OUTPUT_BYTES = 262_144;

/**
 * Step Functions' task-token calls, as the fake sees them: each task is live until it is sent an outcome, and
 * an output over Step Functions' limit is refused as it refuses it (the task stays waiting).
 */
function fakeStepFunctions(calls: InProcessStack["taskCalls"]) {
  const tasks = new Map<string, { outcome?: RunOutcome; ended: boolean; runId?: string }>();
  const task = (token: string) => {
    const found = tasks.get(token);
    if (!found) throw new TaskDoesNotExist({ message: "Provided task does not exist", $metadata: {} });
    if (found.ended)
      throw new TaskTimedOut({ message: "Provided task does not exist anymore", $metadata: {} });
    return found;
  };
  const client = {
    async send(command: unknown) {
      if (command instanceof SendTaskSuccessCommand) {
        calls.push({ command: "success", input: { ...command.input } });
        const found = task(command.input.taskToken ?? "");
        if (Buffer.byteLength(command.input.output ?? "") > MAX_TASK_OUTPUT_BYTES) {
          throw new InvalidOutput({ message: "The output is too large", $metadata: {} });
        }
        Object.assign(found, {
          ended: true,
          outcome: { kind: "succeeded", output: JSON.parse(command.input.output ?? "null") },
        });
      } else if (command instanceof SendTaskFailureCommand) {
        calls.push({ command: "failure", input: { ...command.input } });
        const found = task(command.input.taskToken ?? "");
        Object.assign(found, {
          ended: true,
          outcome: { kind: "failed", error: command.input.error ?? "", cause: command.input.cause ?? "" },
        });
      } else if (command instanceof SendTaskHeartbeatCommand) {
        calls.push({ command: "heartbeat", input: { ...command.input } });
        task(command.input.taskToken ?? "");
      } else if (command instanceof DescribeExecutionCommand) {
        // A run goes on while its task waits; one whose task timed out (timeOut) has ended with it.
        const found = [...tasks.values()].find((t) => t.runId === command.input.executionArn);
        if (!found) throw new ExecutionDoesNotExist({ message: "Execution does not exist", $metadata: {} });
        return { status: found.ended ? (found.outcome ? "SUCCEEDED" : "TIMED_OUT") : "RUNNING" };
      } else {
        throw new Error(`the in-process stack's Step Functions has no ${String(command)}`);
      }
      return {};
    },
  };
  return { client: client as unknown as SFNClient, tasks };
}

/**
 * `env`: the deployment's settings over this stack's (a channel's token and API base, HANDRAISE_PUBLIC_URL, …).
 * `startMs`: where the clock starts.
 * `endpoints`: an AWS service the wiring still builds a client for, reached at a fake the test runs (the
 * e-mail channel's `sesv2` at infra/local/ses.ts, `lambda` for a durable run's callbacks at
 * infra/local/durable-callbacks.ts) instead of nowhere.
 */
export async function startInProcessStack(
  env: Record<string, string> = {},
  options: { startMs?: number; endpoints?: Partial<Record<AwsService, string>> } = {},
): Promise<InProcessStack> {
  // Powertools reads its settings from the environment: warnings and errors only, no metrics, no tracer.
  process.env.POWERTOOLS_LOG_LEVEL ??= "WARN";
  process.env.POWERTOOLS_METRICS_DISABLED ??= "true";
  process.env.POWERTOOLS_TRACE_ENABLED ??= "false";
  const config = loadConfig({
    HANDRAISE_TABLE: "handraise-in-process",
    HANDRAISE_API_KEY: IN_PROCESS_API_KEY,
    HANDRAISE_LINK_SECRET: randomUUID() + randomUUID(),
    HANDRAISE_PUBLIC_URL: "https://handraise.test",
    HANDRAISE_MIN_TIMEOUT_SECONDS: "1",
    ...env,
  });

  const startedAt = performance.now();
  /** How far tests moved the clock ahead of the time that passed. */
  let skippedMs = 0;
  const nowMs = () =>
    (options.startMs ?? IN_PROCESS_T0) + Math.floor(performance.now() - startedAt) + skippedMs;
  const skipTo = (atMs: number) => {
    skippedMs += Math.max(0, atMs - nowMs());
  };
  const taskCalls: InProcessStack["taskCalls"] = [];
  const sfn = fakeStepFunctions(taskCalls);
  const pendingTimers = new Map<string, TimerEvent>();
  const timers: Timers = {
    async set({ name, event }) {
      if (!pendingTimers.has(name)) pendingTimers.set(name, event);
    },
    async clear(name) {
      pendingTimers.delete(name);
    },
  };
  const functions = readServerlessFunctions(ROOT);
  const stream = createStreamEmulator({
    region: "us-east-1",
    account: "000000000000",
    // A failed record is retried at once: nothing here waits real time.
    retryBaseMs: 0,
    consumers: () => consumers,
  });
  type StreamRecord = Parameters<typeof stream.record>[0];
  let held: StreamRecord[] | undefined;
  const store = createInMemoryQuestionStore({
    retentionSeconds: config.retentionSeconds,
    onChange: ({ oldImage, newImage }) => {
      const pk = (newImage ?? oldImage)?.pk;
      const record: StreamRecord = { tableName: config.tableName, keys: { pk } as never, oldImage, newImage };
      if (held) held.push(record);
      else stream.record(record);
    },
  });
  const ports = {
    store,
    stepFunctions: createSfnTaskCallbacks(sfn.client),
    timers,
    now: nowMs,
    // A wait (the question API's long poll, a timer fired early) moves the clock instead of passing time.
    sleep: async (ms: number) => {
      skippedMs += ms;
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
  // Every AWS client the wiring still builds points nowhere unless the test runs a fake of it: a call that was
  // not given a port fails at once.
  const aws = {
    region: "us-east-1",
    credentials: { accessKeyId: "in-process", secretAccessKey: "in-process" },
    endpoints: {
      ...Object.fromEntries(
        ["dynamodb", "sfn", "lambda", "ssm", "eventbridge", "scheduler", "sqs", "sesv2"].map((service) => [
          service,
          "http://127.0.0.1:9",
        ]),
      ),
      ...options.endpoints,
    },
  };

  const factories = await handlerFactories(CHANNELS);
  const webhooks = CHANNELS.flatMap((channel) =>
    channel.manifest.webhook === undefined ? [] : [channel.manifest.webhook as string],
  );
  const handlers = new Map<string, LocalHandler>();
  await Promise.all(
    [...FUNCTIONS, ...webhooks].map(async (key) => {
      const factory = factories[key] as HandlerFactory;
      handlers.set(key, await factory(config, { aws, ports }));
    }),
  );
  const handler = (key: string) => {
    const found = handlers.get(key);
    if (!found) throw new Error(`the in-process stack does not build ${key}`);
    return found;
  };
  const consumers = functions
    .filter((fn) => handlers.has(fn.key))
    .flatMap((fn) =>
      fn.streams.map((subscription) => ({
        name: fn.key,
        handler: handler(fn.key) as never,
        filterPatterns: subscription.filterPatterns,
        maximumRetryAttempts: subscription.maximumRetryAttempts,
      })),
    );
  const routes = functions
    .filter((fn) => handlers.has(fn.key))
    .flatMap((fn) => fn.routes.map((route) => ({ ...route, key: fn.key, ...compileRoutePath(route.path) })));

  const invoke = (key: string, event: unknown) => handler(key)(event, lambdaContext(key));

  async function request(
    method: string,
    pathAndQuery: string,
    options: { headers?: Record<string, string>; body?: string } = {},
  ): Promise<HttpResult> {
    const url = new URL(pathAndQuery, "https://in-process.test");
    const verb = method.toUpperCase();
    for (const route of routes) {
      const match = route.method === verb ? route.pattern.exec(decodeURIComponent(url.pathname)) : null;
      if (!match) continue;
      const pathParameters = Object.fromEntries(route.names.map((name, i) => [name, match[i + 1] ?? ""]));
      const routeKey = `${route.method} ${route.path}`;
      const headers = Object.fromEntries(
        Object.entries(options.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
      );
      const event = apiGatewayEvent({
        method: verb,
        routeKey,
        url,
        pathParameters,
        headers,
        body: Buffer.from(options.body ?? ""),
        at: new Date(nowMs()),
      });
      return toHttpResult(await invoke(route.key, event));
    }
    return toHttpResult({ statusCode: 404, body: JSON.stringify({ message: "Not Found" }) });
  }

  async function settled(): Promise<void> {
    await stream.drained();
  }

  function holdStream(): () => void {
    const records: StreamRecord[] = [];
    held = records;
    return () => {
      held = undefined;
      for (const record of records) stream.record(record);
    };
  }

  const clock: InProcessClock = {
    now: nowMs,
    async advance(ms) {
      const until = nowMs() + ms;
      for (;;) {
        await settled();
        const [next] = [...pendingTimers.entries()]
          .filter(([, event]) => event.dueAtMs <= until)
          .sort(([, a], [, b]) => a.dueAtMs - b.dueAtMs);
        if (!next) break;
        const [name, event] = next;
        pendingTimers.delete(name);
        skipTo(event.dueAtMs);
        await invoke("questionTimer", event);
      }
      skipTo(until);
      await settled();
    },
  };

  let runs = 0;
  return {
    config,
    store,
    clock,
    timers: pendingTimers,
    taskCalls,
    request,
    invoke,
    settled,
    holdStream,
    api: (method, path, body, options = {}) => {
      const auth = options.auth === undefined ? `Bearer ${IN_PROCESS_API_KEY}` : options.auth;
      return request(method, path, {
        headers: { "content-type": "application/json", ...(auth !== null && { authorization: auth }) },
        ...(options.raw !== undefined
          ? { body: options.raw }
          : body !== undefined && { body: JSON.stringify(body) }),
      });
    },
    async ask(input) {
      const taskToken = `task-${++runs}-${randomUUID()}`;
      const runId = `arn:aws:states:us-east-1:000000000000:execution:agent:run-${runs}`;
      sfn.tasks.set(taskToken, { ended: false, runId });
      const { questionId } = (await invoke("ask", {
        runId,
        toolCallId: "c1",
        ...input,
        taskToken,
      })) as { questionId: string };
      const outcome = () => sfn.tasks.get(taskToken)?.outcome;
      return {
        taskToken,
        questionId,
        outcome,
        async result() {
          await settled();
          const ended = outcome();
          if (!ended) throw new Error(`the run of ${questionId} still waits`);
          return ended;
        },
        timeOut() {
          const task = sfn.tasks.get(taskToken);
          if (task) task.ended = true;
        },
      };
    },
    async stop() {
      await stream.stop();
    },
  };
}

/** A handler's result as the client receives it, by API Gateway's rules for a v2 result (the local gateway's). */
function toHttpResult(result: unknown): HttpResult {
  const structured = toResult(result);
  const text = structured.isBase64Encoded
    ? Buffer.from(structured.body ?? "", "base64").toString("utf8")
    : (structured.body ?? "");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const headers = Object.fromEntries(
    Object.entries(structured.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]),
  );
  return { status: structured.statusCode ?? 200, headers, text, body };
}

interface AskUserState {
  Catch: { ErrorEquals: string[]; Next: string }[];
}

/**
 * What the agent's model is given after its AskUser task ended so (infra/state-machines/agent.asl.json): the
 * task's output, or for a failure the Result of the Pass state its Catch goes to.
 *
 * @example runResult({ kind: "failed", error: "Handraise.Skipped", cause: "…" }) // { status: "no_answer", reason: "skipped" }
 */
export function runResult(outcome: RunOutcome): Record<string, any> {
  if (outcome.kind === "succeeded") return outcome.output;
  const machine = JSON.parse(readFileSync(resolvePath(ROOT, "infra/state-machines/agent.asl.json"), "utf8"));
  const states = machine.States as Record<string, { Result?: Record<string, unknown> }>;
  const caught = (states.AskUser as unknown as AskUserState).Catch.find(
    (entry) => entry.ErrorEquals.includes(outcome.error) || entry.ErrorEquals.includes("States.ALL"),
  );
  const result = caught && states[caught.Next]?.Result;
  if (!result) throw new Error(`the agent state machine has no result for ${outcome.error}`);
  return result;
}
