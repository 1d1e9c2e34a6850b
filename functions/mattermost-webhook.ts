/** `POST /webhooks/mattermost`: button taps, dialog submissions, `/handraise`, outgoing-webhook replies. */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { createMattermostApi } from "#lib/channels/mattermost/mattermost-api.ts";
import { mattermostWebhookUrl } from "#lib/channels/mattermost/mattermost-render.ts";
import { createMattermostWebhook } from "#lib/channels/mattermost/mattermost-webhook.ts";
import { loadConfig } from "#lib/config.ts";
import { channelDisabled } from "#lib/http/channel-disabled.ts";
import { httpErrors } from "#lib/http/middlewares.ts";
import { secretValue } from "#lib/secrets/secrets.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { createServices } from "#lib/wiring.ts";

const observability = createObservability("mattermostWebhook");
const { telemetry } = observability;
const services = createServices(loadConfig(), "mattermostWebhook", observability);
await services.ready();
const { config, secrets, store, handleInbound } = services;
const mattermost = config.channels.mattermost;

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(observability.middlewares)
  .use(httpErrors(telemetry, { platform: "mattermost" }))
  .handler(
    mattermost
      ? createMattermostWebhook({
          actionSecret: secretValue(secrets, "mattermost/action-secret"),
          commandTokens: secretValue(secrets, "mattermost/command-token"),
          webhookUrl: mattermostWebhookUrl(mattermost.publicUrl),
          api: createMattermostApi({
            url: mattermost.url,
            botToken: secretValue(secrets, "mattermost/bot-token"),
          }),
          store,
          handleInbound,
          onError: (error, context) => telemetry.failed(context, error),
          onRejected: (reason) => telemetry.webhookRejected("mattermost", 200, reason),
        })
      : channelDisabled("mattermost"),
  );
