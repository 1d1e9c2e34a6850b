import { replies } from "../replies.ts";
import type { TelegramApi } from "./telegram-api.ts";

/** The secret token Telegram accepts: 1–256 of A-Z a-z 0-9 _ - (Bot API setWebhook). */
export const TELEGRAM_SECRET_PATTERN = /^[A-Za-z0-9_-]{1,256}$/;

export const TELEGRAM_COMMANDS = [
  { command: "question", description: replies.questionCommandAbout },
  { command: "cancel", description: replies.cancelCommandAbout },
];

/**
 * What a deployer runs once per bot: point the bot at the webhook with the secret Telegram will send back in
 * every request, limited to the updates Handraise reads, and register the commands it understands.
 */
export async function setUpTelegramBot(api: TelegramApi, options: { webhookUrl: string; secret: string }) {
  if (!TELEGRAM_SECRET_PATTERN.test(options.secret)) {
    throw new Error("TELEGRAM_WEBHOOK_SECRET must be 1-256 characters of A-Z, a-z, 0-9, _ or -");
  }
  if (!options.webhookUrl.startsWith("https://"))
    throw new Error("Telegram only calls https:// webhook URLs");
  await api.call("setWebhook", {
    url: options.webhookUrl,
    secret_token: options.secret,
    allowed_updates: ["message", "callback_query"],
  });
  await api.call("setMyCommands", { commands: TELEGRAM_COMMANDS });
}
