/** `POST /webhooks/telegram`: Telegram updates (typed replies, button taps, /cancel, /question, /start <token>). */
import { telegramWebhook } from "#lib/channels/telegram/index.ts";
import { loadConfig } from "#lib/config.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { createChatWebhookHandler } from "#lib/webhook-wiring.ts";

const observability = await createObservability("telegramWebhook");
export const handler = await createChatWebhookHandler(telegramWebhook, loadConfig(), { observability });
