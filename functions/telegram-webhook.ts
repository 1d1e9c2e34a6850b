/** `POST /webhooks/telegram`: Telegram updates (typed replies, button taps, /cancel, /question). */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { createTelegramApi } from "#lib/channels/telegram/telegram-api.ts";
import { createTelegramWebhook } from "#lib/channels/telegram/telegram-webhook.ts";
import { loadConfig } from "#lib/config.ts";
import { channelDisabled } from "#lib/http/channel-disabled.ts";
import { httpErrors } from "#lib/http/middlewares.ts";
import { secretValue } from "#lib/secrets/secrets.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { createServices } from "#lib/wiring.ts";

const observability = createObservability("telegramWebhook");
const { telemetry } = observability;
const services = createServices(loadConfig(), "telegramWebhook", observability);
await services.ready();
const { config, secrets, store, handleInbound } = services;
const telegram = config.channels.telegram;

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(observability.middlewares)
  .use(httpErrors(telemetry, { platform: "telegram" }))
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
