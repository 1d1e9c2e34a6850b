/** `POST /webhooks/telegram`: Telegram updates (typed replies, button taps, /cancel, /question). */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { createTelegramApi } from "#lib/channels/telegram/telegram-api.ts";
import { createTelegramWebhook } from "#lib/channels/telegram/telegram-webhook.ts";
import { loadConfig } from "#lib/config.ts";
import { channelDisabled } from "#lib/http/channel-disabled.ts";
import { httpErrors } from "#lib/http/middlewares.ts";
import { logError } from "#lib/log.ts";
import { secretValue } from "#lib/secrets/secrets.ts";
import { createServices } from "#lib/wiring.ts";

const services = createServices(loadConfig(), "telegramWebhook");
await services.ready();
const { config, secrets, store, handleInbound } = services;
const telegram = config.channels.telegram;

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(httpErrors((error) => logError("telegram-webhook", error)))
  .handler(
    telegram
      ? createTelegramWebhook({
          webhookSecret: secretValue(secrets, "telegram/webhook-secret"),
          botToken: secretValue(secrets, "telegram/bot-token"),
          api: createTelegramApi({
            apiBase: telegram.apiBase,
            botToken: secretValue(secrets, "telegram/bot-token"),
          }),
          store,
          handleInbound,
        })
      : channelDisabled("telegram"),
  );
