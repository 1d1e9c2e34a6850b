/**
 * `npm run telegram:whoami [-- --delete-webhook]`: prints, for the recent messages to the bot
 * TELEGRAM_BOT_TOKEN, each chat's id, type and title and each sender's user id and name — what an owner
 * (`telegram:<user id>`) and a target (the chat id) are made of. A bot with a webhook cannot be read this way
 * (Telegram refuses getUpdates); the script then says how to proceed. lib/channels/telegram/telegram-whoami.ts
 * has the rules; docs/channels.md the steps.
 */
import { parseArgs } from "node:util";
import { PlatformApiError } from "#lib/channels/platform-api-error.ts";
import { createTelegramApi } from "#lib/channels/telegram/telegram-api.ts";
import { readRecentChats, whoamiLines } from "#lib/channels/telegram/telegram-whoami.ts";

const USAGE = "usage: TELEGRAM_BOT_TOKEN=… npm run telegram:whoami [-- --delete-webhook]";

function fail(message: string): never {
  process.stderr.write(`telegram:whoami: ${message}\n`);
  process.exit(1);
}

let deleteWebhook = false;
try {
  const { values } = parseArgs({ options: { "delete-webhook": { type: "boolean", default: false } } });
  deleteWebhook = values["delete-webhook"] === true;
} catch (error) {
  fail(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
}
const botToken = process.env.TELEGRAM_BOT_TOKEN?.trim();
if (!botToken) fail(`TELEGRAM_BOT_TOKEN is not set\n${USAGE}`);
const apiBase = process.env.TELEGRAM_API_BASE ?? "https://api.telegram.org";

try {
  const report = await readRecentChats(
    createTelegramApi({ apiBase, botToken: async () => botToken, now: Date.now }),
    { deleteWebhook },
  );
  const text = `${whoamiLines(report).join("\n")}\n`;
  // Refused (the bot has a webhook, or another program reads its updates): what to do, on stderr.
  if (report.kind === "seen") process.stdout.write(text);
  else {
    process.stderr.write(text);
    process.exitCode = 1;
  }
} catch (error) {
  if (!(error instanceof PlatformApiError)) throw error;
  // 401 Unauthorized or 404 Not Found: Telegram does not know the token.
  const hint =
    error.status === 401 || error.status === 404 ? " (is TELEGRAM_BOT_TOKEN the bot's token?)" : "";
  fail(`${error.message}${hint}`);
}
