/** `POST /webhooks/slack`: Slack Events API (typed replies), interactivity (buttons, modals), slash commands. */
import { slackWebhook } from "#lib/channels/slack/index.ts";
import { loadConfig } from "#lib/config.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { createChatWebhookHandler } from "#lib/webhook-wiring.ts";

const observability = await createObservability("slackWebhook");
export const handler = await createChatWebhookHandler(slackWebhook, loadConfig(), { observability });
