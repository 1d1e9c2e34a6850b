/** `POST /webhooks/telegram`: Telegram updates (typed replies, button taps, /cancel, /question). */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { createTelegramApi } from "#lib/channels/telegram/telegram-api.ts";
import { createTelegramWebhook } from "#lib/channels/telegram/telegram-webhook.ts";
import { loadConfig } from "#lib/config.ts";
import { httpErrors } from "#lib/http/middlewares.ts";
import { logError } from "#lib/log.ts";
import { createServices } from "#lib/wiring.ts";

const config = loadConfig();
const { store, handleInbound } = createServices(config);
const botToken = config.telegram.botToken ?? "";

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(httpErrors((error) => logError("telegram-webhook", error)))
  .handler(
    createTelegramWebhook({
      webhookSecret: botToken ? config.telegram.webhookSecret : undefined,
      botToken,
      api: createTelegramApi({ apiBase: config.telegram.apiBase, botToken }),
      store,
      handleInbound,
    }),
  );
