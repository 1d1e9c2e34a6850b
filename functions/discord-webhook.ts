/** `POST /webhooks/discord`: Discord interactions (button taps, select menus, modals, /question, /cancel). */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { createDiscordApi } from "#lib/channels/discord/discord-api.ts";
import { discordPublicKey } from "#lib/channels/discord/discord-signature.ts";
import { createDiscordWebhook } from "#lib/channels/discord/discord-webhook.ts";
import { loadConfig } from "#lib/config.ts";
import { httpErrors } from "#lib/http/middlewares.ts";
import { logError } from "#lib/log.ts";
import { createServices } from "#lib/wiring.ts";

const config = loadConfig();
const { store, handleInbound } = createServices(config);
const { botToken = "", publicKey } = config.discord;

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(httpErrors((error) => logError("discord-webhook", error)))
  .handler(
    createDiscordWebhook({
      // Without the bot token the channel is not configured: refuse everything rather than half-work.
      publicKey: botToken && publicKey ? discordPublicKey(publicKey) : undefined,
      api: createDiscordApi({ apiBase: config.discord.apiBase, botToken }),
      store,
      handleInbound,
      now: () => Date.now(),
      onBackgroundError: (error, context) => logError(context, error),
    }),
  );
