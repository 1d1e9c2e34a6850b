/**
 * The local stack's composition map: for each function of serverless.yml (by its key), how to build its
 * handler from a configuration object — the factory its entry in functions/*.ts calls with `loadConfig()`,
 * given the same channels. A chat platform's webhook is found from the channel list: each channel whose
 * manifest names a `webhook` function exports that definition from its folder's index.ts, so a channel
 * added to lib/channels/channel-list.ts (its function deployed from its manifest) is served without a line
 * here.
 */
import type { AwsClientSettings, AwsService } from "#lib/aws-client-settings.ts";
import type { AnyChannel, ChannelWebhookDefinition } from "#lib/channels/channel-descriptor.ts";
import { CHANNELS } from "#lib/channels/channel-list.ts";
import type { Config } from "#lib/config.ts";
import { createAnswerPageHandler } from "#lib/handlers/answer-page.ts";
import { createAskHandler } from "#lib/handlers/ask.ts";
import { createChatWebhookHandler } from "#lib/handlers/chat-webhook.ts";
import { createDurableAgentHandler } from "#lib/handlers/durable-agent.ts";
import { createExecutionStatusHandler } from "#lib/handlers/execution-status.ts";
import { createMcpHandler } from "#lib/handlers/mcp.ts";
import { createModelStepHandler } from "#lib/handlers/model-step.ts";
import { createNotifierHandler } from "#lib/handlers/notifier.ts";
import { createOpenApiHandler } from "#lib/handlers/openapi.ts";
import { createQuestionEventsHandler } from "#lib/handlers/question-events.ts";
import { createQuestionTimerHandler } from "#lib/handlers/question-timer.ts";
import { createQuestionsApiHandler } from "#lib/handlers/questions-api.ts";
import type { FunctionName } from "#lib/secrets/secret-catalog.ts";
import { createObservability, type Observability } from "#lib/telemetry/observability.ts";
import { createUntracedObservability } from "#lib/telemetry/untraced-observability.ts";
import type { ServicePorts } from "#lib/wiring.ts";

/** A Lambda handler as the local services call it: an event and a context in, a result out. */
// biome-ignore lint/suspicious/noExplicitAny: each function takes its own event type.
export type LocalHandler = (event: any, context: any) => Promise<unknown>;

/** What every handler of one stack is built with. */
export interface LocalHandlerDeps {
  aws: AwsClientSettings;
  /** Ports in place of the AWS ones (test/support/in-process-stack.ts); the local stack gives none. */
  ports?: ServicePorts | undefined;
}

export type HandlerFactory = (config: Config, deps: LocalHandlerDeps) => Promise<LocalHandler>;

/**
 * Builds one function's handler with its own observability (Powertools reads its settings from the
 * environment itself): untraced for the functions whose entry in functions/ builds it so.
 */
const factory =
  (
    fn: FunctionName,
    create: (config: Config, deps: LocalHandlerDeps & { observability: Observability }) => unknown,
    { traced = true } = {},
  ): HandlerFactory =>
  async (config, deps) => {
    const observability = traced ? await createObservability(fn) : createUntracedObservability(fn);
    return (await create(config, { ...deps, observability })) as LocalHandler;
  };

/** The functions that are not a channel's webhook, each as functions/<name>.ts composes it. */
const FUNCTIONS: Record<string, HandlerFactory> = {
  questionsApi: factory("questionsApi", (config, deps) =>
    createQuestionsApiHandler(config, { ...deps, channels: CHANNELS }),
  ),
  ask: factory("ask", (config, deps) => createAskHandler(config, { ...deps, channels: CHANNELS })),
  modelStep: factory("modelStep", createModelStepHandler),
  answerPage: factory("answerPage", createAnswerPageHandler),
  executionStatus: factory("executionStatus", createExecutionStatusHandler),
  questionEvents: factory("questionEvents", (config, deps) =>
    createQuestionEventsHandler(config, { ...deps, channels: CHANNELS }),
  ),
  questionTimer: factory("questionTimer", (config, deps) =>
    createQuestionTimerHandler(config, { ...deps, channels: CHANNELS }),
  ),
  mcp: factory("mcp", (config, deps) => createMcpHandler(config, { ...deps, channels: CHANNELS }), {
    traced: false,
  }),
  openApi: factory("openApi", createOpenApiHandler, { traced: false }),
  durableAgent: factory(
    "durableAgent",
    (config, deps) => createDurableAgentHandler(config, { ...deps, channels: CHANNELS }),
    { traced: false },
  ),
  notifier: factory("notifier", createNotifierHandler),
};

/**
 * The webhook definition of a channel that receives: the `<manifest.webhook>` export of
 * lib/channels/<name>/index.ts (lib/channels/channel-descriptor.ts, defineWebhook).
 */
async function channelWebhook(channel: AnyChannel): Promise<ChannelWebhookDefinition<AnyChannel>> {
  const name = channel.manifest.webhook as string;
  const module = (await import(`#lib/channels/${channel.name}/index.ts`)) as Record<string, unknown>;
  const webhook = module[name] as ChannelWebhookDefinition<AnyChannel> | undefined;
  if (webhook?.channel !== channel) {
    throw new Error(
      `lib/channels/${channel.name}/index.ts exports no ${name} for the ${channel.name} channel`,
    );
  }
  return webhook;
}

/** Every factory the local stack knows, by serverless.yml function key. */
export async function handlerFactories(
  channels: readonly AnyChannel[] = CHANNELS,
): Promise<Record<string, HandlerFactory>> {
  const webhooks = await Promise.all(
    channels
      .filter((channel) => channel.manifest.webhook !== undefined)
      .map(async (channel): Promise<[string, HandlerFactory]> => {
        const webhook = await channelWebhook(channel);
        const fn = channel.manifest.webhook as FunctionName;
        return [fn, factory(fn, (config, deps) => createChatWebhookHandler(webhook, config, deps))];
      }),
  );
  return { ...FUNCTIONS, ...Object.fromEntries(webhooks) };
}

const AWS_SERVICES: readonly AwsService[] = [
  "dynamodb",
  "sfn",
  "lambda",
  "ssm",
  "eventbridge",
  "scheduler",
  "sqs",
  "sesv2",
];

/**
 * The AWS settings an SDK client would read from `env` (AWS_REGION, the access key, and the
 * `AWS_ENDPOINT_URL_<SERVICE>` of each service or the global AWS_ENDPOINT_URL), to give them explicitly.
 */
export function awsClientSettingsFrom(env: Record<string, string | undefined>): AwsClientSettings {
  const endpoints: AwsClientSettings["endpoints"] = {};
  for (const service of AWS_SERVICES) {
    const endpoint = env[`AWS_ENDPOINT_URL_${service.toUpperCase()}`] ?? env.AWS_ENDPOINT_URL;
    if (endpoint) endpoints[service] = endpoint;
  }
  return {
    region: env.AWS_REGION ?? "",
    credentials: {
      accessKeyId: env.AWS_ACCESS_KEY_ID ?? "",
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? "",
      ...(env.AWS_SESSION_TOKEN && { sessionToken: env.AWS_SESSION_TOKEN }),
    },
    endpoints,
  };
}
