/**
 * The whole system on one machine: embedded DynamoDB, the Step Functions API over the AWS
 * JSON protocol, the HTTP API, an event bus and a Scheduler for the question timers — all calling the real
 * handlers, each function of serverless.yml built by the factory its entry in functions/ calls
 * (handler-factories.ts), with a configuration object made from this stack's environment record. The
 * handlers reach the local services the way they reach AWS: through the SDK, at the endpoints of the
 * standard AWS_ENDPOINT_URL_* variables.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { AwsClientSettings } from "#lib/aws-client-settings.ts";
import { loadConfig } from "#lib/config.ts";
import tableDefinition from "../table.json" with { type: "json" };
import { type LocalDurableCallbacks, startLocalDurableCallbacks } from "./durable-callbacks.ts";
import { ensureTable, localDynamoDbClient, startLocalDynamoDb } from "./dynamodb.ts";
import { type ItemChange, startDynamoDbProxy } from "./dynamodb-proxy.ts";
import { createStreamEmulator, type FailedStreamRecord, type StreamConsumer } from "./dynamodb-streams.ts";
import { executionStatusEvent, matchesPattern } from "./event-bridge.ts";
import { type PublishedEvent, startLocalEventBus } from "./event-bus.ts";
import type { FaultSwitch } from "./faults.ts";
import { awsClientSettingsFrom, handlerFactories, type LocalHandler } from "./handler-factories.ts";
import {
  type GatewayRoute,
  type HttpHandler,
  type RequestLogEntry,
  startHttpGateway,
} from "./http-gateway.ts";
import { inProcessRequestHandler } from "./in-process-http-handler.ts";
import { lambdaContext } from "./lambda-context.ts";
import { type LocalSchedule, startLocalScheduler } from "./scheduler.ts";
import { readServerlessFunctions } from "./serverless-functions.ts";
import { type LocalSes, startLocalSes } from "./ses.ts";
import { type DeadLetter, type QueueConsumer, startLocalSqs } from "./sqs.ts";
import {
  type ExecutionStatusChange,
  type LocalLambdaHandler,
  startLocalStepFunctions,
} from "./stepfunctions/index.ts";

export const PROJECT_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const REGION = "us-east-1";
const ACCOUNT = "000000000000";

export interface LocalStackOptions {
  host?: string;
  /** HTTP API port (default 3000; 0 = any free port). */
  port?: number;
  sfnPort?: number;
  dynamodbPort?: number;
  dataDir?: string | undefined;
  tableName?: string;
  apiKey?: string;
  /**
   * The DynamoDB Streams emulation (default on; `setStreams` switches it later). The benchmark turns it off
   * while timing: on AWS the stream consumer runs in its own Lambda, off the answer path; here it would
   * share the one event loop.
   */
  streams?: boolean;
  /**
   * Extra environment for the handlers (e.g. HANDRAISE_MIN_TIMEOUT_SECONDS, *_API_BASE): read into their
   * configuration, over the process's own environment, and not written to process.env (but for the AWS
   * SDK's and Powertools' variables: see startLocalStack).
   */
  env?: Record<string, string>;
  onExecutionStatusChange?: (change: ExecutionStatusChange) => void | Promise<void>;
  /** Print each question event as an `event {…}` line on stdout (default on; the demo keeps its terminal quiet). */
  printEvents?: boolean;
  /** Print each mail the local SES is sent (its plain text) on stdout (default off; the demo turns it on). */
  printMails?: boolean;
  /** Called with each question event as the bus takes it (the terminal follows the questions shown there). */
  onEvent?: (event: PublishedEvent) => void;
  /** Called after each HTTP request the local API served (method, route, status, milliseconds). */
  onRequest?: (entry: RequestLogEntry) => void;
  /**
   * Called with each DynamoDB client the handlers build, before its first request (the benchmark counts
   * DynamoDB units with it). The stack builds every handler, and with it its clients, when it starts.
   */
  observeDynamoDbClient?: AwsClientSettings["observeDynamoDbClient"];
  /**
   * The handlers reach DynamoDB in this process (in-process-http-handler.ts) instead of over the proxy's
   * port: the same requests and answers, faults and stream capture, without a socket each way. Off by
   * default: the benchmark counts DynamoDB round trips on the wire.
   */
  dynamoDbInProcess?: boolean;
}

export interface LocalStack {
  httpUrl: string;
  sfnUrl: string;
  dynamodbUrl: string;
  apiKey: string;
  tableName: string;
  stateMachineArns: Record<string, string>;
  /**
   * Fault injection for tests: `faults.dynamodb.failNext(3, {code: "ProvisionedThroughputExceededException",
   * status: 400, operations: ["UpdateItem"]})` makes the next 3 UpdateItem calls fail as throttled DynamoDB
   * does; `faults.stepFunctions` does the same for the Step Functions API.
   */
  faults: {
    dynamodb: FaultSwitch;
    stepFunctions: FaultSwitch;
    eventBridge: FaultSwitch;
    scheduler: FaultSwitch;
  };
  /**
   * The local EventBridge Scheduler the question timers run on: the schedules waiting to fire, how many
   * calls of each operation it served and targets it invoked, and a promise for when no target is running.
   */
  scheduler: {
    schedules(): LocalSchedule[];
    counts(): Record<string, number>;
    idle(): Promise<void>;
  };
  /** The question events published on the local bus (each also printed as an `event {…}` line). */
  events: PublishedEvent[];
  /**
   * The local SES (API v2) the e-mail channel sends through when HANDRAISE_EMAIL_FROM is set: the mails it
   * was sent, `refuseNext` to answer sends with SES's own errors, and `setIdentity` for what it says of a
   * sender's identity (`npm run doctor` asks). Nothing leaves the machine.
   */
  ses: Pick<LocalSes, "mails" | "refuseNext" | "setIdentity">;
  /** The DynamoDB Streams emulation: resolves once every captured change has been delivered (or failed). */
  streamsDrained(): Promise<void>;
  /** Switches the DynamoDB Streams emulation on or off (changes made while it is off are not delivered). */
  setStreams(on: boolean): void;
  /**
   * Sets the first retry delay of a failed stream record (doubling up to 2 s); undefined restores the
   * default, 100 ms. A test whose record fails every attempt sets it short, so the eleven attempts take
   * about a second instead of thirteen.
   */
  setStreamRetryDelay(firstMs: number | undefined): void;
  /** Stream records that failed every retry: what AWS sends to the mapping's on-failure queue. */
  streamFailures: FailedStreamRecord[];
  /**
   * Lambda's durable-execution callback API (infra/local/durable-callbacks.ts): a test attaches each
   * callback its in-process durable execution waits on, and the handlers' SendDurableExecutionCallback*
   * calls reach it.
   */
  durableCallbacks: LocalDurableCallbacks;
  /** The SQS emulation: resolves once no message waits or is being handled. */
  queuesDrained(): Promise<void>;
  /**
   * Messages that failed every receive (what AWS moves to the dead-letter queue), and timers whose function
   * failed every attempt (what lands in QuestionTimerDeadLetterQueue).
   */
  deadLetters: DeadLetter[];
  /**
   * Invokes a function of serverless.yml (its key, e.g. `questionTimer`) in process with `event`, as
   * `aws lambda invoke` would, and resolves with its result: how a test fires a timer out of turn.
   */
  invoke(functionKey: string, event: unknown): Promise<unknown>;
  /**
   * The handler this stack built for a function of serverless.yml (its key), for a test that drives it
   * with a runner of its own (the durable SDK's) or with a context of its own.
   */
  handler(functionKey: string): LocalHandler;
  stop(): Promise<void>;
}

/** The key attributes of the table (infra/table.json), which the DynamoDB proxy needs to key a PutItem. */
const tableKeyAttributes = tableDefinition.KeySchema.map((key) => key.AttributeName);

/** The state machines of serverless.yml, by name, with their ASL files. */
const STATE_MACHINES = [{ name: "agent", file: "infra/state-machines/agent.asl.json" }];

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  // The SDK warns on every start that Node 20 support ends in 2027; deployed functions run Node 22.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const host = options.host ?? "127.0.0.1";
  const tableName = options.tableName ?? "handraise-local";
  const apiKey = options.apiKey ?? "local-api-key-change-me";
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const fn of stops.reverse()) await fn();
  };

  try {
    // dynalite on a free port behind the DynamoDB proxy, which serves the DynamoDB port: it adds fault
    // injection and the change capture the DynamoDB Streams emulation needs (dynamodb-proxy.ts).
    const dynamodb = await startLocalDynamoDb({ host, port: 0, dataDir: options.dataDir });
    stops.push(dynamodb.stop);
    const client = localDynamoDbClient(dynamodb.url);
    stops.push(async () => client.destroy());
    await ensureTable(client, tableName);
    const streamConsumers: StreamConsumer[] = [];
    const streamFailures: FailedStreamRecord[] = [];
    // Read by the emulator at each retry, so setStreamRetryDelay takes effect at once.
    const streamOptions: Parameters<typeof createStreamEmulator>[0] = {
      region: REGION,
      account: ACCOUNT,
      onFailure: (failed) => streamFailures.push(failed),
      consumers: (table) => (table === tableName ? streamConsumers : []),
    };
    const streams = createStreamEmulator(streamOptions);
    const captureChange = (change: ItemChange) => streams.record(change);
    // Read by the proxy on every write, so switching it (setStreams) takes effect at once.
    const proxyOptions: Parameters<typeof startDynamoDbProxy>[0] = {
      dynamodb,
      host,
      port: options.dynamodbPort ?? 8000,
      keyAttributes: () => tableKeyAttributes,
      ...(options.streams !== false && { onChange: captureChange }),
    };
    const proxy = await startDynamoDbProxy(proxyOptions);
    stops.push(proxy.stop);

    // The stack's event bus, where the stream consumer publishes question events.
    const eventBus = await startLocalEventBus({
      host,
      ...(options.printEvents === false && { print: () => {} }),
      ...(options.onEvent && { onEvent: options.onEvent }),
    });
    stops.push(eventBus.stop);
    const ses = await startLocalSes({
      host,
      ...(options.printMails && { print: (text: string) => process.stdout.write(text) }),
    });
    stops.push(ses.stop);

    // The SFN port must be known before the handlers load their configuration, so start it with the
    // handlers resolved lazily.
    const lambdas: Record<string, LocalLambdaHandler> = {};
    // Set once the handlers are loaded; status changes before that have no subscriber yet.
    let deliverStatusChange = async (_change: ExecutionStatusChange): Promise<void> => {};
    const functions = readServerlessFunctions(PROJECT_ROOT);
    const functionName = (key: string) => `handraise-local-${key}`;
    const functionArns = Object.fromEntries(
      functions.map((fn) => [
        fn.logicalId,
        `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${functionName(fn.key)}`,
      ]),
    );
    const sfn = await startLocalStepFunctions({
      host,
      port: options.sfnPort ?? 8083,
      region: REGION,
      accountId: ACCOUNT,
      stateMachines: STATE_MACHINES.map(({ name, file }) => ({
        name,
        definition: resolveFunctionArns(
          JSON.parse(readFileSync(join(PROJECT_ROOT, file), "utf8")),
          functionArns,
        ),
      })),
      lambdas,
      onExecutionStatusChange: async (change) => {
        await deliverStatusChange(change);
        await options.onExecutionStatusChange?.(change);
      },
    });
    stops.push(sfn.stop);

    // The question timers' Scheduler: a due schedule invokes its target function in process.
    const scheduler = await startLocalScheduler({
      host,
      region: REGION,
      account: ACCOUNT,
      invoke: async (arn, input) => {
        const name = arn.split(":function:")[1] ?? "";
        const handler = lambdas[name];
        if (!handler) throw new Error(`no local function ${arn}`);
        await handler(input as never, lambdaContext(name));
      },
      // A timer that failed every attempt is kept as a dead letter of its queue (by the queue's name).
      deadLetter: (queueArn, body, attempts) =>
        sqs.deadLetters.push({ queue: queueArn.split(":").at(-1) ?? queueArn, body, receives: attempts }),
    });
    stops.push(scheduler.stop);

    // Lambda's durable callbacks and SQS, which the handlers reach through AWS_ENDPOINT_URL_LAMBDA / _SQS.
    const durableCallbacks = await startLocalDurableCallbacks({ host });
    stops.push(durableCallbacks.stop);
    const queueConsumers = new Map<string, QueueConsumer[]>();
    const sqs = await startLocalSqs({
      host,
      region: REGION,
      account: ACCOUNT,
      consumers: (queue) => queueConsumers.get(queue) ?? [],
    });
    stops.push(sqs.stop);

    // Listening before the handlers load: they read its URL as their public URL (the answer page's links).
    const gateway = await startHttpGateway({
      routes: [],
      host,
      port: options.port ?? 3000,
      ...(options.onRequest && { onRequest: options.onRequest }),
    });
    stops.push(gateway.stop);
    const fromSsm = (options.env?.HANDRAISE_SSM_PREFIX ?? process.env.HANDRAISE_SSM_PREFIX) !== undefined;

    // The handlers' environment, as Lambda gives a function its own: the process's (what a person exported
    // before `npm run local`), then the stack's services and settings, then the caller's `env`.
    const env: Record<string, string | undefined> = {
      ...process.env,
      AWS_REGION: REGION,
      AWS_ACCESS_KEY_ID: "local",
      AWS_SECRET_ACCESS_KEY: "local",
      AWS_ENDPOINT_URL_DYNAMODB: proxy.url,
      AWS_ENDPOINT_URL_SFN: sfn.url,
      AWS_ENDPOINT_URL_LAMBDA: durableCallbacks.url,
      AWS_ENDPOINT_URL_SQS: sqs.url,
      // serverless.yml's NotifyQueue; notify receivers on this machine are allowed (http://127.0.0.1:…).
      HANDRAISE_NOTIFY_QUEUE_URL: sqs.queueUrl("NotifyQueue"),
      HANDRAISE_NOTIFY_LOOPBACK: "true",
      AWS_ENDPOINT_URL_EVENTBRIDGE: eventBus.url,
      AWS_ENDPOINT_URL_SESV2: ses.url,
      HANDRAISE_EVENT_BUS: "handraise-local",
      AWS_ENDPOINT_URL_SCHEDULER: scheduler.url,
      HANDRAISE_SCHEDULE_GROUP: "handraise-local",
      HANDRAISE_TIMER_FUNCTION_ARN: functionArns.QuestionTimerLambdaFunction ?? "",
      HANDRAISE_TIMER_ROLE_ARN: `arn:aws:iam::${ACCOUNT}:role/handraise-local-scheduler`,
      // serverless.yml's QuestionTimerDeadLetterQueue: a timer that fails every attempt is kept there.
      HANDRAISE_TIMER_DEAD_LETTER_ARN: `arn:aws:sqs:${REGION}:${ACCOUNT}:QuestionTimerDeadLetterQueue`,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      HANDRAISE_TABLE: tableName,
      // Read from SSM instead when the handlers are pointed at it (a secret may not be in both places).
      ...(!fromSsm && { HANDRAISE_API_KEY: apiKey }),
      // The answer page is on locally: a link secret made up for this run unless one is set (links made
      // with it stop working when the stack restarts; set HANDRAISE_LINK_SECRET to keep them).
      ...(!fromSsm &&
        process.env.HANDRAISE_LINK_SECRET === undefined && {
          HANDRAISE_LINK_SECRET: randomBytes(32).toString("base64url"),
        }),
      // Notifications are signed locally too: a key made up for this run unless one is set.
      ...(!fromSsm &&
        process.env.HANDRAISE_NOTIFY_SECRET === undefined && {
          HANDRAISE_NOTIFY_SECRET: `whsec_${randomBytes(32).toString("base64")}`,
        }),
      HANDRAISE_PUBLIC_URL: process.env.HANDRAISE_PUBLIC_URL ?? gateway.url,
      HANDRAISE_CONSOLE_CHANNEL: "true",
      // There is no X-Ray daemon here: the handlers' Tracer stays off, and is not even loaded (deployed,
      // tracing is on; lib/telemetry/observability.ts).
      POWERTOOLS_TRACE_ENABLED: "false",
      ...options.env,
    };
    // The Handraise settings reach the handlers as a configuration object only, so two stacks in one
    // process each serve their own. The AWS SDK's and Powertools' variables are still set in process.env:
    // Powertools reads its settings there itself, and so do the SDK clients the handlers do not build
    // through lib/wiring.ts (the e-mail channel's SES client, Bedrock's, the durable execution SDK's) — as
    // on Lambda, where they are the function's environment. Those are the last stack's when several run;
    // the wiring's clients (DynamoDB, Step Functions, Lambda, SQS, EventBridge, Scheduler, SSM) are given
    // this stack's explicitly (`aws`), so no stack's handlers reach another's services.
    for (const [name, value] of Object.entries(env)) {
      if (value !== undefined && /^(AWS|POWERTOOLS)_/.test(name)) process.env[name] = value;
    }
    const config = loadConfig(env);
    const inProcess = options.dynamoDbInProcess ? inProcessRequestHandler(proxy.serve) : undefined;
    const observe = options.observeDynamoDbClient;
    const aws: AwsClientSettings = {
      ...awsClientSettingsFrom(env),
      ...((inProcess || observe) && {
        observeDynamoDbClient: (client: DynamoDBClient) => {
          // Set before the client's first request, which is when it reads its request handler.
          if (inProcess) (client.config as { requestHandler: unknown }).requestHandler = inProcess;
          observe?.(client);
        },
      }),
    };
    const factories = await handlerFactories();

    const subscribers: { patterns: Record<string, unknown>[]; handler: LocalLambdaHandler; name: string }[] =
      [];
    // `!Ref <Name>StateMachine` in a pattern means that state machine's ARN.
    const resolveRef = (value: unknown): unknown => {
      const ref = (value as { "Fn::Ref"?: unknown } | null)?.["Fn::Ref"];
      if (typeof ref !== "string") return value;
      const machine = STATE_MACHINES.find(
        ({ name }) => `${name[0]?.toUpperCase()}${name.slice(1)}StateMachine` === ref,
      );
      return machine ? sfn.stateMachineArn(machine.name) : value;
    };
    deliverStatusChange = async (change) => {
      const event = executionStatusEvent(change, REGION, ACCOUNT);
      for (const subscriber of subscribers) {
        if (!subscriber.patterns.some((pattern) => matchesPattern(event, pattern, resolveRef))) continue;
        await subscriber.handler(event, lambdaContext(subscriber.name));
      }
    };

    const routes: GatewayRoute[] = [];
    for (const fn of functions) {
      const factory = factories[fn.key];
      if (!factory)
        throw new Error(
          `serverless.yml's ${fn.key} has no handler factory (infra/local/handler-factories.ts)`,
        );
      const handler = await factory(config, { aws });
      lambdas[functionName(fn.key)] = handler as LocalLambdaHandler;
      if (fn.eventPatterns.length > 0) {
        subscribers.push({
          patterns: fn.eventPatterns,
          handler: handler as LocalLambdaHandler,
          name: functionName(fn.key),
        });
      }
      for (const stream of fn.streams) {
        // The one table of serverless.yml is the local table.
        if (stream.table !== "QuestionsTable")
          throw new Error(`${fn.key} reads an unknown stream ${stream.table}`);
        streamConsumers.push({
          name: functionName(fn.key),
          handler: handler as StreamConsumer["handler"],
          filterPatterns: stream.filterPatterns,
          maximumRetryAttempts: stream.maximumRetryAttempts,
        });
      }
      for (const queue of fn.queues) {
        const consumers = queueConsumers.get(queue) ?? [];
        consumers.push({ name: functionName(fn.key), handler: handler as QueueConsumer["handler"] });
        queueConsumers.set(queue, consumers);
      }
      for (const route of fn.routes) {
        routes.push({ ...route, functionName: functionName(fn.key), handler: handler as HttpHandler });
      }
    }
    gateway.setRoutes(routes);
    const handlerOf = (functionKey: string): LocalHandler => {
      const handler = lambdas[functionName(functionKey)];
      if (!handler) throw new Error(`no local function ${functionKey}`);
      return handler as LocalHandler;
    };
    // Stopped first: no stream delivery may outlive the services it calls.
    stops.push(streams.stop);

    return {
      httpUrl: gateway.url,
      sfnUrl: sfn.url,
      dynamodbUrl: proxy.url,
      apiKey,
      tableName,
      stateMachineArns: Object.fromEntries(
        STATE_MACHINES.map(({ name }) => [name, sfn.stateMachineArn(name)]),
      ),
      faults: {
        dynamodb: proxy.faults,
        stepFunctions: sfn.faults,
        eventBridge: eventBus.faults,
        scheduler: scheduler.faults,
      },
      scheduler: { schedules: scheduler.schedules, counts: scheduler.counts, idle: scheduler.idle },
      events: eventBus.events,
      ses: { mails: ses.mails, refuseNext: ses.refuseNext, setIdentity: ses.setIdentity },
      streamsDrained: () => streams.drained(),
      setStreams: (on) => {
        if (on) proxyOptions.onChange = captureChange;
        else delete proxyOptions.onChange;
      },
      setStreamRetryDelay: (firstMs) => {
        if (firstMs === undefined) delete streamOptions.retryBaseMs;
        else streamOptions.retryBaseMs = firstMs;
      },
      streamFailures,
      durableCallbacks,
      queuesDrained: () => sqs.drained(),
      deadLetters: sqs.deadLetters,
      invoke: async (functionKey, event) =>
        handlerOf(functionKey)(event, lambdaContext(functionName(functionKey))),
      handler: handlerOf,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Replaces `{"Fn::GetAtt": ["<Function>LambdaFunction", "Arn"]}` with the local function's ARN. */
function resolveFunctionArns(node: unknown, arns: Record<string, string>): Record<string, unknown> {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (typeof value !== "object" || value === null) return value;
    const getAtt = (value as Record<string, unknown>)["Fn::GetAtt"];
    if (Array.isArray(getAtt) && getAtt[1] === "Arn" && typeof getAtt[0] === "string") {
      const arn = arns[getAtt[0]];
      if (!arn) throw new Error(`state machine references unknown function ${getAtt[0]}`);
      return arn;
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
  };
  return walk(node) as Record<string, unknown>;
}
