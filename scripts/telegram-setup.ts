/**
 * `npm run telegram:setup -- <TelegramWebhookUrl>`: registers the webhook (with TELEGRAM_WEBHOOK_SECRET) and
 * the /question and /cancel commands for the bot TELEGRAM_BOT_TOKEN. The URL is the stack output
 * TelegramWebhookUrl.
 */
import { createTelegramApi } from "#lib/channels/telegram/telegram-api.ts";
import { setUpTelegramBot } from "#lib/channels/telegram/telegram-setup.ts";

const [webhookUrl] = process.argv.slice(2);
const { TELEGRAM_BOT_TOKEN: botToken, TELEGRAM_WEBHOOK_SECRET: secret } = process.env;
if (!webhookUrl || !botToken || !secret) {
  console.error(
    "usage: TELEGRAM_BOT_TOKEN=… TELEGRAM_WEBHOOK_SECRET=… npm run telegram:setup -- <TelegramWebhookUrl>",
  );
  process.exit(2);
}
const apiBase = process.env.TELEGRAM_API_BASE ?? "https://api.telegram.org";
await setUpTelegramBot(createTelegramApi({ apiBase, botToken: async () => botToken, now: Date.now }), {
  webhookUrl,
  secret,
});
console.log(
  `Telegram now sends the bot's updates to ${webhookUrl}; commands /question and /cancel registered.`,
);
