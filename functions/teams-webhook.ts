/** `POST /webhooks/teams`: Bot Framework activities from Microsoft Teams (card taps, typed replies). */
import { teamsWebhook } from "#lib/channels/teams/index.ts";
import { loadConfig } from "#lib/config.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { createChatWebhookHandler } from "#lib/webhook-wiring.ts";

const observability = await createObservability("teamsWebhook");
export const handler = await createChatWebhookHandler(teamsWebhook, loadConfig(), { observability });
