/**
 * The composition of every chat platform's webhook function, from its channel's descriptor: the services
 * (lib/wiring.ts), the middlewares, the prelude's proof check and the platform's handler — or, when the
 * deployment does not enable the channel, a handler that answers 404 CHANNEL_DISABLED and reads nothing.
 * `functions/<name>-webhook.ts` is a few lines that call this with its channel's webhook.
 */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { createHandleInbound } from "../app/handle-inbound.ts";
import { AWS_WEBHOOK_CALLBACK_TIMEOUTS } from "../aws/signed-request.ts";
import type { AnyChannel, ChannelWebhookDefinition } from "../channels/channel-descriptor.ts";
import type { Config } from "../config.ts";
import { channelDisabled } from "../http/channel-disabled.ts";
import { httpErrors } from "../http/middlewares.ts";
import { webhookPrelude } from "../http/webhook-prelude.ts";
import type { FunctionName } from "../secrets/secret-catalog.ts";
import { channelClient, channelServices, createServices } from "../wiring.ts";
import type { HandlerDeps } from "./handler-deps.ts";

/**
 * The Lambda handler of a channel's webhook function (its manifest's `webhook`), built once per process.
 * Resolves once the function's secrets are there and well-formed (it rejects naming each one that is not).
 *
 * @example
 * const observability = await createObservability("telegramWebhook");
 * export const handler = await createChatWebhookHandler(telegramWebhook, loadConfig(), { observability });
 */
export async function createChatWebhookHandler<Descriptor extends AnyChannel>(
  webhook: ChannelWebhookDefinition<Descriptor>,
  config: Config,
  { observability, aws, ports }: HandlerDeps,
) {
  const descriptor = webhook.channel;
  const fn = descriptor.manifest.webhook as FunctionName | undefined;
  if (fn === undefined)
    throw new Error(`the ${descriptor.name} channel's manifest names no webhook function`);
  const { telemetry, logger } = observability;
  // Durable callbacks held to the platform's reply time: AWS_WEBHOOK_CALLBACK_TIMEOUTS says why.
  const services = createServices(config, fn, observability, [descriptor], aws, ports, {
    callbackTimeouts: AWS_WEBHOOK_CALLBACK_TIMEOUTS,
  });
  await services.ready();
  const base = () =>
    middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
      .use(observability.middlewares)
      .use(httpErrors(telemetry, { platform: descriptor.name }));
  if (!(config.enabledChannels as ReadonlySet<string>).has(descriptor.name)) {
    return base().handler(channelDisabled(descriptor.name));
  }
  const { secrets, store, resolve, channels, links, now } = services;
  const handleInbound = createHandleInbound({ store, resolve, channels, links, now });
  const client = channelClient(descriptor, { config, secrets, aws, now });
  const { prelude, handler, handshake } = webhook.create(client, {
    ...channelServices(descriptor, { config, secrets, links, telemetry, aws, now }),
    secrets,
    store,
    handleInbound,
    onError: (error: unknown, context: string) => telemetry.failed(context, error),
    telemetry,
    logger,
  });
  const verified = base()
    .use(webhookPrelude({ ...prelude, now }))
    .handler(handler);
  if (handshake === undefined) return verified;
  // Only a GET skips the prelude, and only to the handshake: every other method is verified first.
  const confirm = base().handler(handshake);
  return (event: APIGatewayProxyEventV2, context: Context) =>
    event.requestContext?.http?.method === "GET" ? confirm(event, context) : verified(event, context);
}
