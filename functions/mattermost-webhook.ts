/** `POST /webhooks/mattermost`: button taps, dialog submissions, `/handraise`, outgoing-webhook replies. */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { createMattermostApi } from "#lib/channels/mattermost/mattermost-api.ts";
import { mattermostWebhookUrl } from "#lib/channels/mattermost/mattermost-render.ts";
import { MATTERMOST_REFUSAL } from "#lib/channels/mattermost/mattermost-request.ts";
import { createMattermostWebhook } from "#lib/channels/mattermost/mattermost-webhook.ts";
import { loadConfig } from "#lib/config.ts";
import { channelDisabled } from "#lib/http/channel-disabled.ts";
import { httpErrors, MAX_BODY_BYTES } from "#lib/http/middlewares.ts";
import { webhookPrelude } from "#lib/http/webhook-prelude.ts";
import { secretValue } from "#lib/secrets/secrets.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { createServices } from "#lib/wiring.ts";

const observability = await createObservability("mattermostWebhook");
const { telemetry } = observability;
const services = createServices(loadConfig(), "mattermostWebhook", observability);
await services.ready();
const { config, secrets, store, handleInbound, links, now } = services;
const mattermost = config.channels.mattermost;

const webhook =
  mattermost &&
  createMattermostWebhook({
    actionSecret: secretValue(secrets, "mattermost/action-secret"),
    commandTokens: secretValue(secrets, "mattermost/command-token"),
    outgoingTokens: () => secrets.get("mattermost/outgoing-token"),
    webhookUrl: mattermostWebhookUrl(mattermost.publicUrl),
    api: createMattermostApi({
      url: mattermost.url,
      botToken: secretValue(secrets, "mattermost/bot-token"),
      now,
    }),
    store,
    handleInbound,
    links,
    onError: (error, context) => telemetry.failed(context, error),
    onRejected: (reason) => telemetry.webhookRejected("mattermost", 200, reason),
    now,
  });

const base = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(observability.middlewares)
  .use(httpErrors(telemetry, { platform: "mattermost" }));

// Mattermost waits 30 s for an answer (its outgoing-request timeout): no acknowledgement deadline beyond each
// API call's own limit. Its requests are small: 64 KiB, well over any tap, dialog or message.
export const handler = webhook
  ? base
      .use(
        webhookPrelude({
          maxBytes: MAX_BODY_BYTES,
          verify: webhook.verify,
          refusal: MATTERMOST_REFUSAL,
          now,
        }),
      )
      .handler(webhook.handler)
  : base.handler(channelDisabled("mattermost"));
