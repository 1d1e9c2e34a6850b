/** The Telegram channel (Bot API): delivers with sendMessage, listens at `POST /webhooks/telegram`. */
import { createLinkHandover } from "../../app/link-handover.ts";
import { botTokenClient, type ChannelWebhookDefinition, defineChannel } from "../channel-descriptor.ts";
import { createTelegramApi, type TelegramApi } from "./telegram-api.ts";
import { createTelegramChannel } from "./telegram-channel.ts";
import { telegramSecretTokenCheck } from "./telegram-secret-token.ts";
import { telegramSpec } from "./telegram-spec.ts";
import { createTelegramWebhook } from "./telegram-webhook.ts";

export const telegram = defineChannel(telegramSpec, {
  client: botTokenClient<TelegramApi>(createTelegramApi, "telegram/bot-token"),
  channel: (api, { links }) => createTelegramChannel(api, links),
});

/** Its webhook, `POST /webhooks/telegram` (functions/telegram-webhook.ts). */
export const telegramWebhook: ChannelWebhookDefinition<typeof telegram> = {
  channel: telegram,
  // Telegram documents no acknowledgement deadline for a webhook, so the prelude sets none.
  create: (api, context) => ({
    prelude: telegramSecretTokenCheck(context.secret("telegram/webhook-secret")),
    handler: createTelegramWebhook({
      ...context,
      botToken: context.secret("telegram/bot-token"),
      api,
      handover: createLinkHandover(context),
    }),
  }),
};
