/** `POST /webhooks/mattermost`: button taps, dialog submissions, `/handraise`, outgoing-webhook replies. */
import { mattermostWebhook } from "#lib/channels/mattermost/index.ts";
import { loadConfig } from "#lib/config.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { createChatWebhookHandler } from "#lib/webhook-wiring.ts";

const observability = await createObservability("mattermostWebhook");
export const handler = await createChatWebhookHandler(mattermostWebhook, loadConfig(), { observability });
