/**
 * The composition root: builds each adapter once (functions call this at module scope, so clients are reused
 * across warm invocations) and hands use cases their ports.
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { SFNClient } from "@aws-sdk/client-sfn";
import { createModelStep } from "./agent/model-step.ts";
import { createAskQuestion } from "./app/ask-question.ts";
import { createCancelStoppedRun } from "./app/cancel-stopped-run.ts";
import { createHandleInbound } from "./app/handle-inbound.ts";
import { createResolveQuestion } from "./app/resolve-question.ts";
import { createResumeClosedQuestion } from "./app/resume-closed-question.ts";
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

export function createChannels(config: Config): Map<string, ChatChannel> {
  const channels = new Map<string, ChatChannel>();
  const add = (channel: ChatChannel) => channels.set(channel.name, channel);
  if (config.consoleChannel) add(createConsoleChannel((text) => process.stdout.write(text)));
  if (config.telegram.botToken) {
    add(
      createTelegramChannel(
        createTelegramApi({ apiBase: config.telegram.apiBase, botToken: config.telegram.botToken }),
      ),
    );
  }
  if (config.slack.botToken) {
    add(
      createSlackChannel(createSlackApi({ apiBase: config.slack.apiBase, botToken: config.slack.botToken })),
    );
  }
  if (config.discord.botToken) {
    add(
      createDiscordChannel(
        createDiscordApi({ apiBase: config.discord.apiBase, botToken: config.discord.botToken }),
      ),
    );
  }
  const mattermost = config.mattermost;
  if (mattermost.url && mattermost.botToken) {
    // loadConfig requires the action secret and the public URL alongside these two.
    add(
      createMattermostChannel(createMattermostApi({ url: mattermost.url, botToken: mattermost.botToken }), {
        url: mattermostWebhookUrl(config.publicUrl ?? ""),
        secret: mattermost.actionSecret ?? "",
      }),
    );
  }
  return channels;
}

export function createServices(config: Config) {
  const dynamodb = new DynamoDBClient({});
  observeDynamoDbClient?.(dynamodb);
  const sfn = new SFNClient({});
  const store = createDynamoDbQuestionStore({
    client: dynamodb,
    tableName: config.tableName,
    retentionSeconds: config.retentionSeconds,
  });
  const callbacks = createSfnTaskCallbacks(sfn);
  const channels = createChannels(config);
  const askQuestion = createAskQuestion({
    store,
    channels,
    limits: config.limits,
    now,
    onDeliveryError: (target, error) => logError("delivery", error, { channel: target.channel }),
  });
  const resolve = createResolveQuestion({
    store,
    callbacks,
    channels,
    now,
    onBackgroundError: (error, context) => logError(context, error),
  });
  const waitForQuestion = createWaitForQuestion({ store, now, sleep });
  const transcripts = createDynamoDbTranscriptStore({
    client: dynamodb,
    tableName: config.tableName,
    keepSeconds: config.limits.maxTimeoutSeconds + config.retentionSeconds,
  });
  const handleInbound = createHandleInbound({ store, resolve, channels, now });
  return {
    store,
    handleInbound,
    cancelStoppedRun: createCancelStoppedRun({ store, resolve, now }),
    resumeClosedQuestion: createResumeClosedQuestion({ store, callbacks }),
    askQuestion,
    resolve,
    questionApi: createQuestionApi({ store, askQuestion, resolve, waitForQuestion, now }),
    modelStep: createModelStep({ transcripts, limits: config.limits, now }),
  };
}
