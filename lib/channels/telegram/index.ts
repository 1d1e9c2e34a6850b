/** The Telegram channel (Bot API): delivers with sendMessage, listens at `POST /webhooks/telegram`. */
import { createLinkHandover } from "../../app/link-handover.ts";
import { botTokenChannel, defineChannel, defineWebhook } from "../channel-descriptor.ts";
import { createTelegramApi } from "./telegram-api.ts";
import { createTelegramChannel } from "./telegram-channel.ts";
import { telegramSecretTokenCheck } from "./telegram-secret-token.ts";
import { telegramSpec } from "./telegram-spec.ts";
import { createTelegramWebhook } from "./telegram-webhook.ts";

export const telegram = defineChannel(
  telegramSpec,
  botTokenChannel(createTelegramApi, "telegram/bot-token", createTelegramChannel),
);

/**
 * Its webhook, `POST /webhooks/telegram` (functions/telegram-webhook.ts). Telegram documents no
 * acknowledgement deadline for a webhook, so the prelude sets none.
 */
export const telegramWebhook = /* @__PURE__ */ defineWebhook(telegram, (api, context) => ({
  prelude: telegramSecretTokenCheck(context.secret("telegram/webhook-secret")),
  handler: createTelegramWebhook({
    ...context,
    botToken: context.secret("telegram/bot-token"),
    api,
    handover: createLinkHandover(context),
  }),
}));
