/** `POST /webhooks/telegram`: Telegram updates (typed replies, button taps, /cancel, /question, /start <token>). */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { createLinkHandover } from "#lib/app/link-handover.ts";
import { createTelegramApi } from "#lib/channels/telegram/telegram-api.ts";
import { telegramSecretTokenCheck } from "#lib/channels/telegram/telegram-secret-token.ts";
import { createTelegramWebhook } from "#lib/channels/telegram/telegram-webhook.ts";
import { loadConfig } from "#lib/config.ts";
import { channelDisabled } from "#lib/http/channel-disabled.ts";
import { httpErrors } from "#lib/http/middlewares.ts";
import { webhookPrelude } from "#lib/http/webhook-prelude.ts";
import { secretValue } from "#lib/secrets/secrets.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { createServices } from "#lib/wiring.ts";

const observability = await createObservability("telegramWebhook");
const { telemetry } = observability;
const services = createServices(loadConfig(), "telegramWebhook", observability);
await services.ready();
const { config, secrets, store, handleInbound, links, now } = services;
const telegram = config.channels.telegram;

const base = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(observability.middlewares)
  .use(httpErrors(telemetry, { platform: "telegram" }));

// Telegram documents no acknowledgement deadline for a webhook, so the prelude sets none.
export const handler = telegram
  ? base
      .use(
        webhookPrelude({ ...telegramSecretTokenCheck(secretValue(secrets, "telegram/webhook-secret")), now }),
      )
      .handler(
        createTelegramWebhook({
          botToken: secretValue(secrets, "telegram/bot-token"),
          api: createTelegramApi({
            apiBase: telegram.apiBase,
            botToken: secretValue(secrets, "telegram/bot-token"),
            now,
          }),
          store,
          handleInbound,
          links,
          handover: createLinkHandover({ store, links, now }),
          now,
          onError: (error, context) => telemetry.failed(context, error),
        }),
      )
  : base.handler(channelDisabled("telegram"));
