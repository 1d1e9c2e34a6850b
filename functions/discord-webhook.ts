/** `POST /webhooks/discord`: Discord interactions (button taps, select menus, modals, /question, /cancel). */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { createDiscordApi } from "#lib/channels/discord/discord-api.ts";
import {
  DISCORD_REFUSAL,
  discordPublicKey,
  discordRequestVerifier,
} from "#lib/channels/discord/discord-signature.ts";
import { createDiscordWebhook, DISCORD_ACK_BUDGET_MS } from "#lib/channels/discord/discord-webhook.ts";
import { loadConfig } from "#lib/config.ts";
import { channelDisabled } from "#lib/http/channel-disabled.ts";
import { httpErrors } from "#lib/http/middlewares.ts";
import { webhookPrelude } from "#lib/http/webhook-prelude.ts";
import { secretValue } from "#lib/secrets/secrets.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { createServices } from "#lib/wiring.ts";

const observability = await createObservability("discordWebhook");
const { telemetry } = observability;
const services = createServices(loadConfig(), "discordWebhook", observability);
await services.ready();
const { config, secrets, store, handleInbound, links, now } = services;
const discord = config.channels.discord;

const http = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(observability.middlewares)
  .use(httpErrors(telemetry, { platform: "discord" }));

export const handler = discord
  ? http
      .use(
        webhookPrelude({
          verify: discordRequestVerifier(discordPublicKey(discord.publicKey)),
          refusal: DISCORD_REFUSAL,
          ackWithinMs: DISCORD_ACK_BUDGET_MS,
          now,
        }),
      )
      .handler(
        createDiscordWebhook({
          api: createDiscordApi({
            apiBase: discord.apiBase,
            botToken: secretValue(secrets, "discord/bot-token"),
            now,
          }),
          store,
          handleInbound,
          links,
          now,
          onError: (error, context) => telemetry.failed(context, error),
        }),
      )
  : http.handler(channelDisabled("discord"));
