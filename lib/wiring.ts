/**
 * The composition root: builds each adapter once (functions call this at module scope, so clients are reused
 * across warm invocations) and hands use cases their ports. Each function names itself, and gets only the
 * secrets of its row in infra/secrets.json and, of the channels its entry gives it, those its role serves
 * (lib/secrets/secret-catalog.ts functionSecrets): a platform's webhook can post and edit on its own platform
 * only.
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { SFNClient } from "@aws-sdk/client-sfn";
import { createModelStep } from "./agent/model-step.ts";
import { createModelProviders } from "./agent/providers.ts";
import { createAskQuestion } from "./app/ask-question.ts";
import { createResolveQuestion } from "./app/resolve-question.ts";
import { createWaitForQuestion } from "./app/wait-for-question.ts";
import { createApiKeyring } from "./auth/api-keys.ts";
import { AWS_CALLBACK_TIMEOUTS, type AwsTimeouts, createAwsRequests } from "./aws/signed-request.ts";
import {
  type AwsClientSettings,
  type AwsService,
  awsClientConfig,
  sdkConfig,
} from "./aws-client-settings.ts";
import { createDurableCallbacks } from "./callbacks/durable-callbacks.ts";
import { createSfnTaskCallbacks } from "./callbacks/sfn-task-callbacks.ts";
import type { TaskCallbacks } from "./callbacks/task-callbacks.ts";
import { createWaiterCallbacks } from "./callbacks/waiter-callbacks.ts";
import type { AnyChannel } from "./channels/channel-descriptor.ts";
import type { ChatChannel } from "./channels/chat-channel.ts";
import { createConsoleChannel } from "./channels/console-channel.ts";
import type { Config } from "./config.ts";
import { createEnvSecrets } from "./secrets/env-secrets.ts";
import {
  type FunctionName,
  fixedSecrets,
  functionChannels,
  functionSecrets,
  grantsGroup,
  OPTIONAL_SECRETS,
  type SecretGrant,
  type SecretName,
} from "./secrets/secret-catalog.ts";
import { limitSecrets, preloadSecrets, type Secrets, secretValue } from "./secrets/secrets.ts";
import { SsmParameterProvider } from "./secrets/ssm-parameter-provider.ts";
import { createSsmSecrets } from "./secrets/ssm-secrets.ts";
import { createDynamoDbQuestionStore } from "./store/dynamodb-question-store.ts";
import { createDynamoDbTranscriptStore } from "./store/dynamodb-transcript-store.ts";
import type { QuestionStore } from "./store/question-store.ts";
import type { Observability } from "./telemetry/observability.ts";
import type { Telemetry } from "./telemetry/telemetry.ts";
import type { Timers } from "./timers/timers.ts";
import { type AnswerLinks, createAnswerLinks, NO_ANSWER_LINKS } from "./web/answer-link.ts";

const now = () => Date.now();
const systemSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Ports a process that runs the handlers side by side in one place gives in place of the ones built here
 * (the in-process test harness: test/support/in-process-stack.ts): the question store, the Step Functions
 * task callbacks (a durable callback still goes to Lambda, at `aws`'s endpoint), the question timers, the
 * clock and the waits. Each one absent is built as deployed.
 */
export interface ServicePorts {
  store?: QuestionStore | undefined;
  stepFunctions?: TaskCallbacks | undefined;
  timers?: Timers | undefined;
  now?: (() => number) | undefined;
  sleep?: ((ms: number) => Promise<void>) | undefined;
}

/** Traces each call an AWS SDK client makes (X-Ray), when the function is traced. */
export type CaptureClient = Observability["tracer"]["captureAWSv3Client"];

/** The secrets function `fn` may read in this deployment: SSM deployed, the environment locally. */
export function createSecrets(config: Config, fn: FunctionName, aws?: AwsClientSettings): Secrets {
  const source =
    config.secrets.kind === "ssm"
      ? createSsmSecrets({
          prefix: config.secrets.prefix,
          maxAgeSeconds: config.secrets.maxAgeSeconds,
          now,
          // SSM's API spoken with the SDK pieces the DynamoDB client already brings, not the SSM client.
          provider: new SsmParameterProvider(awsClientConfig(aws, "ssm")),
        })
      : createEnvSecrets(config.secrets.values, config.secrets.modelKeys, config.secrets.apiKeys);
  return limitSecrets(source, functionSecrets(fn, config.enabledChannels));
}

/**
 * The answer page's links, for the functions that show them (their row of infra/secrets.json lists the link
 * secret): chat messages, the question API. Off without a link secret or a public URL.
 */
export function createLinks(config: Config, secrets: Secrets, allowed: readonly SecretGrant[]): AnswerLinks {
  if (!allowed.includes("link-secret")) return NO_ANSWER_LINKS;
  return createAnswerLinks({ publicUrl: config.publicUrl, key: () => secrets.get("link-secret") });
}

/** What a channel's client, ChatChannel and webhook are built with in this function. */
export interface ChannelServices {
  config: Config;
  secrets: Secrets;
  links: AnswerLinks;
  telemetry: Telemetry;
  /** The process's own AWS client settings (the local stack's); undefined when deployed. */
  aws?: AwsClientSettings | undefined;
  /** The clock the function's use cases read (ServicePorts); absent, the system's. */
  now?: (() => number) | undefined;
  /** Traces an AWS SDK client a channel builds (e-mail's SES) like the function's own; absent, untraced. */
  capture?: CaptureClient | undefined;
}

/** What a channel's platform client is built from. */
export type ClientServices = Pick<ChannelServices, "config" | "secrets" | "aws" | "now" | "capture">;

const clients = new WeakMap<Secrets, Map<string, unknown>>();

/**
 * The channel's platform client, one per function process (keyed by its secrets): its ChatChannel and its
 * webhook share it, and with it whatever it keeps — Discord's rate-limit buckets, Teams' app token.
 */
export function channelClient<Descriptor extends AnyChannel>(
  descriptor: Descriptor,
  services: ClientServices,
): ReturnType<Descriptor["client"]> {
  const built = clients.get(services.secrets) ?? new Map<string, unknown>();
  clients.set(services.secrets, built);
  if (!built.has(descriptor.name))
    built.set(descriptor.name, descriptor.client(channelContext(descriptor, services)));
  return built.get(descriptor.name) as ReturnType<Descriptor["client"]>;
}

function channelContext(
  descriptor: AnyChannel,
  { config, secrets, aws, now: clock, capture }: ClientServices,
) {
  const settings = (config.channels as Record<string, unknown>)[descriptor.name];
  if (settings === undefined) throw new Error(`the ${descriptor.name} channel is not enabled`);
  return {
    settings,
    secret: (name: SecretName) => secretValue(secrets, name),
    now: clock ?? now,
    awsClientConfig: (service: AwsService) => sdkConfig(aws, service),
    traced: <Client>(client: Client): Client => (capture ? capture(client) : client),
  };
}

/** The context a channel's ChatChannel (and its webhook) is built with. */
export function channelServices(descriptor: AnyChannel, services: ChannelServices) {
  return {
    ...channelContext(descriptor, services),
    links: services.links,
    privacyUnconfirmed: (error: unknown) =>
      services.telemetry.failed(
        `${descriptor.name}: a conversation could not be confirmed as private; posted as shared`,
        error,
      ),
  };
}

/**
 * The enabled channels function `fn` posts to, from the descriptors its entry point gives it: every one for
 * the functions that deliver or retire, its own for a platform's webhook (infra/secrets.json
 * `channelReaders`, a manifest's `webhook`). Each posted question carries the answer page's link from
 * `links`. A channel the function serves whose descriptor it was not given stops it: a bundle without a
 * channel's code must not silently deliver nowhere.
 */
export function createChannels(
  fn: FunctionName,
  descriptors: readonly AnyChannel[],
  services: ChannelServices,
): Map<string, ChatChannel> {
  const { config } = services;
  const channels = new Map<string, ChatChannel>();
  const add = (channel: ChatChannel) => channels.set(channel.name, channel);
  if (config.consoleChannel) add(createConsoleChannel((text) => process.stdout.write(text), services.links));
  for (const name of functionChannels(fn, config.enabledChannels)) {
    const descriptor = descriptors.find((candidate) => candidate.name === name);
    if (!descriptor) throw new Error(`${fn} serves the ${name} channel but was built without it`);
    add(descriptor.channel(channelClient(descriptor, services), channelServices(descriptor, services)));
  }
  return channels;
}

/**
 * What every function builds on: the DynamoDB client, its secrets and the question store. The model step and
 * the notifier, which never complete a run's waiter, are composed from this alone, so they neither build a
 * Step Functions client at start nor carry one.
 *
 * @example
 * const observability = await createObservability("notifier");
 * const { dynamodb, secrets, ready } = createBaseServices(loadConfig(), "notifier", observability);
 */
export function createBaseServices(
  config: Config,
  fn: FunctionName,
  observability: Observability,
  aws?: AwsClientSettings,
  ports: ServicePorts = {},
) {
  const clock = ports.now ?? now;
  const { telemetry, tracer } = observability;
  const capture: CaptureClient = (client) => tracer.captureAWSv3Client(client);
  const dynamodb = capture(new DynamoDBClient(sdkConfig(aws, "dynamodb")));
  aws?.observeDynamoDbClient?.(dynamodb);
  const secrets = createSecrets(config, fn, aws);
  const secretNames = functionSecrets(fn, config.enabledChannels);
  const store =
    ports.store ??
    createDynamoDbQuestionStore({
      client: dynamodb,
      tableName: config.tableName,
      retentionSeconds: config.retentionSeconds,
    });
  return {
    config,
    telemetry,
    capture,
    dynamodb,
    secrets,
    secretNames,
    store,
    now: clock,
    /**
     * Resolves once every secret this function reads is there and well-formed (functions await it at
     * start); rejects with a ConfigError naming each one that is not — or, with `tolerate`, reports it and
     * starts anyway (the stream consumer and the timer function: one channel's bad token must not stop every
     * run's resume, or every question's expiry).
     * Locally without an API key, the question API runs and refuses every request; without a link secret,
     * the answer page is off.
     */
    ready: async (options: { tolerate?: boolean } = {}) => {
      try {
        // The optional ones (infra/secrets.json): without the link secret the answer page is off, without
        // the notify secret each notification attempt fails and says why, and so on. Locally the API may run
        // on named keys alone (HANDRAISE_API_KEYS); deployed, api-key is the operator's key and must be there.
        await preloadSecrets(
          secrets,
          fixedSecrets(secretNames),
          [...(config.secrets.kind === "env" ? (["api-key"] as const) : []), ...OPTIONAL_SECRETS],
          grantsGroup(secretNames, "api-keys") ? ["api-keys"] : [],
        );
      } catch (error) {
        if (!options.tolerate) throw error;
        telemetry.failed(
          "starting with a secret missing or malformed: its channel's messages are not posted or edited",
          error,
        );
      }
    },
  };
}

/** How the function's durable callbacks are sent. */
export interface CallbackOptions {
  /** How long a durable callback may wait for Lambda; absent, AWS_CALLBACK_TIMEOUTS. */
  callbackTimeouts?: AwsTimeouts | undefined;
}

/**
 * The base services, the run callbacks and the answer / cancel use case. The answer page is composed from this
 * alone (functions/answer-page.ts), so its bundle carries no chat channel, model step or question API — and
 * theirs carry no page.
 *
 * @example
 * const observability = await createObservability("answerPage");
 * const { store, resolve, secrets, ready } = createCoreServices(loadConfig(), "answerPage", observability);
 */
export function createCoreServices(
  config: Config,
  fn: FunctionName,
  observability: Observability,
  aws?: AwsClientSettings,
  ports: ServicePorts = {},
  options: CallbackOptions = {},
) {
  const base = createBaseServices(config, fn, observability, aws, ports);
  const { store, telemetry, capture, now: clock } = base;
  // A question's waiter is a Step Functions task token or a durable execution's callback id (per record).
  const callbacks = createWaiterCallbacks({
    stepFunctions:
      ports.stepFunctions ?? createSfnTaskCallbacks(capture(new SFNClient(sdkConfig(aws, "sfn")))),
    // Lambda's callback API spoken with the SDK pieces the DynamoDB client already brings, not its client.
    durable: createDurableCallbacks(
      createAwsRequests(
        { signingName: "lambda", label: "Lambda", protocol: "restJson1" },
        {
          ...awsClientConfig(aws, "lambda"),
          timeouts: options.callbackTimeouts ?? AWS_CALLBACK_TIMEOUTS,
        },
      ),
    ),
  });
  const resolve = createResolveQuestion({ store, callbacks, now: clock, telemetry });
  return { ...base, callbacks, resolve };
}

/**
 * Everything function `fn` needs, built once per process.
 *
 * @example
 * const observability = await createObservability("telegramWebhook");
 * const { store, secrets } = createServices(loadConfig(), "telegramWebhook", observability, [telegram]);
 */
export function createServices(
  config: Config,
  fn: FunctionName,
  observability: Observability,
  descriptors: readonly AnyChannel[] = [],
  aws?: AwsClientSettings,
  ports: ServicePorts = {},
  options: CallbackOptions = {},
) {
  const core = createCoreServices(config, fn, observability, aws, ports, options);
  const { secrets, secretNames, store, callbacks, resolve, telemetry, capture, now } = core;
  const sleep = ports.sleep ?? systemSleep;
  const links = createLinks(config, secrets, secretNames);
  const channels = createChannels(fn, descriptors, { config, secrets, links, telemetry, aws, now, capture });
  const waitForQuestion = createWaitForQuestion({ store, now, sleep });
  // The use cases only some functions run (asking: createAsker; the question API, the chat pipeline, the
  // timers, the run-status consumer: in their handlers, lib/handlers/) are built there, so no other bundle
  // carries them.
  return {
    config,
    secrets,
    ready: core.ready,
    now,
    sleep,
    waitForQuestion,
    store,
    channels,
    telemetry,
    /** The answer page's links, for a webhook that redraws a posted question (the stepper). */
    links,
    /** The question API's and /mcp's keys (functions whose row grants `api-keys/*`). */
    keyring: createApiKeyring(secrets),
    /** For lib/question-change-wiring.ts: the stream consumer's clients are built there, not in every bundle. */
    callbacks,
    capture,
    aws,
    /** The question timers given in place of the deployment's (ServicePorts); absent, built from config. */
    timers: ports.timers,
    resolve,
  };
}

/**
 * The ask use case, for the functions that ask (the question API, the ask task, /mcp, the durable agent):
 * apart from createServices, so the other bundles carry neither it nor the ask_user argument schema it checks
 * requests with.
 */
export function createAsker(services: ReturnType<typeof createServices>) {
  const { store, channels, callbacks, config, now, telemetry } = services;
  return createAskQuestion({
    store,
    channels,
    callbacks,
    limits: config.limits,
    defaultRemindAfterSeconds: config.remindAfterSeconds,
    now,
    telemetry,
  });
}

/**
 * The reference agent's model step, with every model provider and the model keys (`models/*`): apart from
 * createServices, so that only the modelStep bundle carries the provider adapters.
 *
 * @example
 * const observability = await createObservability("modelStep");
 * const modelStep = createModelStepService(loadConfig(), observability);
 */
export function createModelStepService(
  config: Config,
  observability: Observability,
  aws?: AwsClientSettings,
) {
  const { dynamodb, secrets, store, telemetry } = createBaseServices(config, "modelStep", observability, aws);
  const providerFor = createProviderFor(secrets, observability);
  return createModelStep({
    transcripts: createDynamoDbTranscriptStore({
      client: dynamodb,
      tableName: config.tableName,
      keepSeconds: config.limits.maxTimeoutSeconds + config.retentionSeconds,
    }),
    questions: store,
    telemetry,
    limits: config.limits,
    now,
    providerFor,
  });
}

/** The model a run names, as a provider: for the two agents (modelStep and durableAgent) only. */
export function createProviderFor(secrets: Secrets, observability: Observability) {
  return createModelProviders({
    secrets,
    now,
    sleep: systemSleep,
    random: Math.random,
    // Provider, attempt, status, wait and the (redacted) reason: never the request, a body or the key.
    onRetry: (info) => observability.logger.warn("model call retried", { ...info }),
  });
}
