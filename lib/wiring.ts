/**
 * The composition root: builds each adapter once (functions call this at module scope, so clients are reused
 * across warm invocations) and hands use cases their ports.
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { SFNClient } from "@aws-sdk/client-sfn";
import { createModelStep } from "./agent/model-step.ts";
import { createAskQuestion } from "./app/ask-question.ts";
import { createResolveQuestion } from "./app/resolve-question.ts";
import { createWaitForQuestion } from "./app/wait-for-question.ts";
import { createSfnTaskCallbacks } from "./callbacks/sfn-task-callbacks.ts";
import type { ChatChannel } from "./channels/chat-channel.ts";
import { createConsoleChannel } from "./channels/console-channel.ts";
import type { Config } from "./config.ts";
import { createQuestionApi } from "./http/question-api.ts";
import { logError } from "./log.ts";
import { createDynamoDbQuestionStore } from "./store/dynamodb-question-store.ts";
import { createDynamoDbTranscriptStore } from "./store/dynamodb-transcript-store.ts";

const now = () => Date.now();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createChannels(config: Config): Map<string, ChatChannel> {
  const channels = new Map<string, ChatChannel>();
  if (config.consoleChannel) {
    const console = createConsoleChannel((text) => process.stdout.write(text));
    channels.set(console.name, console);
  }
  return channels;
}

export function createServices(config: Config) {
  const dynamodb = new DynamoDBClient({});
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
  return {
    store,
    askQuestion,
    resolve,
    questionApi: createQuestionApi({ store, askQuestion, resolve, waitForQuestion, now }),
    modelStep: createModelStep({ transcripts, limits: config.limits, now }),
  };
}
