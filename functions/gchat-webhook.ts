/** `POST /webhooks/gchat`: Google Chat's interaction events (card clicks, typed messages, the app added). */
import { gchatWebhook } from "#lib/channels/gchat/index.ts";
import { loadConfig } from "#lib/config.ts";
import { createChatWebhookHandler } from "#lib/handlers/chat-webhook.ts";
import { createObservability } from "#lib/telemetry/observability.ts";

const observability = await createObservability("gchatWebhook");
export const handler = await createChatWebhookHandler(gchatWebhook, loadConfig(), { observability });
