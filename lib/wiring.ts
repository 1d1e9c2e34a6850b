/**
 * The composition root: builds each adapter once (functions call this at module scope, so clients are reused
 * across warm invocations) and hands use cases their ports. Each function names itself, and gets only the
 * secrets of its row in infra/secrets.json and only the channels whose credentials those are: a platform's
 * webhook can post and edit on its own platform only.
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { SFNClient } from "@aws-sdk/client-sfn";
import { createModelStep } from "./agent/model-step.ts";
import { createModelProviders } from "./agent/providers.ts";
import { createAskQuestion } from "./app/ask-question.ts";
import { createCancelStoppedRun } from "./app/cancel-stopped-run.ts";
import { createHandleInbound } from "./app/handle-inbound.ts";
import { createResolveQuestion } from "./app/resolve-question.ts";
import { createSettleClosedQuestion } from "./app/settle-closed-question.ts";
import { createWaitForQuestion } from "./app/wait-for-question.ts";
import { createSfnTaskCallbacks } from "./callbacks/sfn-task-callbacks.ts";
import type { ChatChannel } from "./channels/chat-channel.ts";
import { createConsoleChannel } from "./channels/console-channel.ts";
import { createDiscordApi } from "./channels/discord/discord-api.ts";
import { createDiscordChannel } from "./channels/discord/discord-channel.ts";
import { createMattermostApi } from "./channels/mattermost/mattermost-api.ts";
import { createMattermostChannel } from "./channels/mattermost/mattermost-channel.ts";
import { mattermostWebhookUrl } from "./channels/mattermost/mattermost-render.ts";
import { createSlackApi } from "./channels/slack/slack-api.ts";
import { createSlackChannel } from "./channels/slack/slack-channel.ts";
import { createTelegramApi } from "./channels/telegram/telegram-api.ts";
import { createTelegramChannel } from "./channels/telegram/telegram-channel.ts";
import type { Config } from "./config.ts";
import { createQuestionApi } from "./http/question-api.ts";
import { logError } from "./log.ts";
import { createEnvSecrets } from "./secrets/env-secrets.ts";
import {
  type FunctionName,
  fixedSecrets,
  functionSecrets,
  type SecretGrant,
} from "./secrets/secret-catalog.ts";
import { limitSecrets, preloadSecrets, type Secrets, secretValue } from "./secrets/secrets.ts";
import { createSsmSecrets } from "./secrets/ssm-secrets.ts";
import { createDynamoDbQuestionStore } from "./store/dynamodb-question-store.ts";
import { createDynamoDbTranscriptStore } from "./store/dynamodb-transcript-store.ts";

const now = () => Date.now();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Instrumentation for processes that load the functions in process (the local stack and the benchmark):
 * called with each DynamoDB client the services build, before its first request, e.g. to count the read and
 * write units the real handlers consume. Nothing sets it when deployed, and unset it changes nothing.
 */
export type DynamoDbClientObserver = (client: DynamoDBClient) => void;
let observeDynamoDbClient: DynamoDbClientObserver | undefined;

/** Installs (or, with undefined, removes) the observer. Functions build their services at import: call first. */
export function setDynamoDbClientObserver(observer: DynamoDbClientObserver | undefined): void {
  observeDynamoDbClient = observer;
}

/** The secrets function `fn` may read in this deployment: SSM deployed, the environment locally. */
export function createSecrets(config: Config, fn: FunctionName): Secrets {
  const source =
    config.secrets.kind === "ssm"
      ? createSsmSecrets({ prefix: config.secrets.prefix, maxAgeSeconds: config.secrets.maxAgeSeconds })
      : createEnvSecrets(config.secrets.values, config.secrets.modelKeys);
  return limitSecrets(source, functionSecrets(fn, config.enabledChannels));
}

/**
 * The enabled channels this function can post to: those whose bot token it may read (every one for the
 * functions that deliver or retire, its own for a platform's webhook).
 */
export function createChannels(config: Config, secrets: Secrets, allowed: readonly SecretGrant[]) {
  const channels = new Map<string, ChatChannel>();
  const add = (channel: ChatChannel) => channels.set(channel.name, channel);
  const may = new Set(allowed);
  const { telegram, slack, discord, mattermost } = config.channels;
  if (config.consoleChannel) add(createConsoleChannel((text) => process.stdout.write(text)));
  if (telegram && may.has("telegram/bot-token")) {
    add(
      createTelegramChannel(
        createTelegramApi({
          apiBase: telegram.apiBase,
          botToken: secretValue(secrets, "telegram/bot-token"),
        }),
      ),
    );
  }
  if (slack && may.has("slack/bot-token")) {
    add(
      createSlackChannel(
        createSlackApi({ apiBase: slack.apiBase, botToken: secretValue(secrets, "slack/bot-token") }),
      ),
    );
  }
  if (discord && may.has("discord/bot-token")) {
    add(
      createDiscordChannel(
        createDiscordApi({ apiBase: discord.apiBase, botToken: secretValue(secrets, "discord/bot-token") }),
      ),
    );
  }
  if (mattermost && may.has("mattermost/bot-token")) {
    add(
      createMattermostChannel(
        createMattermostApi({ url: mattermost.url, botToken: secretValue(secrets, "mattermost/bot-token") }),
        // Only delivering signs buttons; a function that only retires never reads the key.
        {
          url: mattermostWebhookUrl(mattermost.publicUrl),
          secret: secretValue(secrets, "mattermost/action-secret"),
        },
      ),
    );
  }
  return channels;
}

/**
 * Everything function `fn` needs, built once per process.
 *
 * @example
 * const { handleInbound, secrets } = createServices(loadConfig(), "telegramWebhook");
 */
export function createServices(config: Config, fn: FunctionName) {
  const dynamodb = new DynamoDBClient({});
  observeDynamoDbClient?.(dynamodb);
  const sfn = new SFNClient({});
  const secrets = createSecrets(config, fn);
  const secretNames = functionSecrets(fn, config.enabledChannels);
  const store = createDynamoDbQuestionStore({
    client: dynamodb,
    tableName: config.tableName,
    retentionSeconds: config.retentionSeconds,
  });
  const callbacks = createSfnTaskCallbacks(sfn);
  const channels = createChannels(config, secrets, secretNames);
  const askQuestion = createAskQuestion({
    store,
    channels,
    callbacks,
    limits: config.limits,
    now,
    onDeliveryError: (target, error) => logError("delivery", error, { channel: target.channel }),
    onError: (error, context) => logError(context, error),
  });
  const resolve = createResolveQuestion({
    store,
    callbacks,
    now,
    onBackgroundError: (error, context) => logError(context, error),
  });
  const waitForQuestion = createWaitForQuestion({ store, now, sleep });
  return {
    config,
    secrets,
    /**
     * Resolves once every secret this function reads is there and well-formed (functions await it at
     * start); rejects with a ConfigError naming each one that is not. Locally without an API key, the
     * question API runs and refuses every request.
     */
    ready: () =>
      preloadSecrets(secrets, fixedSecrets(secretNames), config.secrets.kind === "env" ? ["api-key"] : []),
    store,
    channels,
    handleInbound: createHandleInbound({ store, resolve, channels, now }),
    cancelStoppedRun: createCancelStoppedRun({ store, resolve, now }),
    settleClosedQuestion: createSettleClosedQuestion({
      callbacks,
      channels,
      onRetireError: (error, channel) => logError("retire", error, { channel }),
    }),
    askQuestion,
    resolve,
    questionApi: createQuestionApi({ store, askQuestion, resolve, waitForQuestion, now }),
  };
}

/**
 * The reference agent's model step, with every model provider and the model keys (`models/*`): apart from
 * createServices, so that only the modelStep bundle carries the provider adapters.
 *
 * @example
 * const modelStep = createModelStepService(loadConfig());
 */
export function createModelStepService(config: Config) {
  const dynamodb = new DynamoDBClient({});
  observeDynamoDbClient?.(dynamodb);
  const providerFor = createModelProviders({
    secrets: createSecrets(config, "modelStep"),
    now,
    sleep,
    random: Math.random,
    // Status, attempt and wait only: never the request, the response body or the key.
    onRetry: (info) => console.warn(JSON.stringify({ level: "warn", context: "model-retry", ...info })),
  });
  return createModelStep({
    transcripts: createDynamoDbTranscriptStore({
      client: dynamodb,
      tableName: config.tableName,
      keepSeconds: config.limits.maxTimeoutSeconds + config.retentionSeconds,
    }),
    questions: createDynamoDbQuestionStore({
      client: dynamodb,
      tableName: config.tableName,
      retentionSeconds: config.retentionSeconds,
    }),
    limits: config.limits,
    now,
    providerFor,
  });
}
