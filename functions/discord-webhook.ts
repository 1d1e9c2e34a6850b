/** `POST /webhooks/discord`: Discord interactions (button taps, select menus, modals, /question, /cancel). */
import { discordWebhook } from "#lib/channels/discord/index.ts";
import { loadConfig } from "#lib/config.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { createChatWebhookHandler } from "#lib/webhook-wiring.ts";

const observability = await createObservability("discordWebhook");
export const handler = await createChatWebhookHandler(discordWebhook, loadConfig(), { observability });
