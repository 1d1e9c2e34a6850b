/** `POST /webhooks/whatsapp`: WhatsApp Cloud API notifications (typed replies, list and button taps); `GET`: Meta's subscription check. */
import { whatsappWebhook } from "#lib/channels/whatsapp/index.ts";
import { loadConfig } from "#lib/config.ts";
import { createChatWebhookHandler } from "#lib/handlers/chat-webhook.ts";
import { createObservability } from "#lib/telemetry/observability.ts";

const observability = await createObservability("whatsappWebhook");
export const handler = await createChatWebhookHandler(whatsappWebhook, loadConfig(), { observability });
