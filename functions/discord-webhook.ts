/** `POST /webhooks/discord`: Discord interactions (button taps, select menus, modals, /question, /cancel). */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { createDiscordApi } from "#lib/channels/discord/discord-api.ts";
import { discordPublicKey } from "#lib/channels/discord/discord-signature.ts";
import { createDiscordWebhook } from "#lib/channels/discord/discord-webhook.ts";
import { loadConfig } from "#lib/config.ts";
import { channelDisabled } from "#lib/http/channel-disabled.ts";
import { httpErrors } from "#lib/http/middlewares.ts";
import { secretValue } from "#lib/secrets/secrets.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { createServices } from "#lib/wiring.ts";

const observability = createObservability("discordWebhook");
const { telemetry } = observability;
const services = createServices(loadConfig(), "discordWebhook", observability);
await services.ready();
const { config, secrets, store, handleInbound } = services;
const discord = config.channels.discord;

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(observability.middlewares)
  .use(httpErrors(telemetry, { platform: "discord" }))
  .handler(
    discord
      ? createDiscordWebhook({
          publicKey: discordPublicKey(discord.publicKey),
          api: createDiscordApi({
            apiBase: discord.apiBase,
            botToken: secretValue(secrets, "discord/bot-token"),
          }),
          store,
          handleInbound,
          now: () => Date.now(),
          onBackgroundError: (error, context) => telemetry.failed(context, error),
        })
      : channelDisabled("discord"),
  );
