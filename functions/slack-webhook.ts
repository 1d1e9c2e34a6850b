/** `POST /webhooks/slack`: Slack Events API (typed replies), interactivity (buttons, modals), slash commands. */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { createSlackApi } from "#lib/channels/slack/slack-api.ts";
import { slackPrelude } from "#lib/channels/slack/slack-signature.ts";
import { createSlackWebhook } from "#lib/channels/slack/slack-webhook.ts";
import { loadConfig } from "#lib/config.ts";
import { channelDisabled } from "#lib/http/channel-disabled.ts";
import { httpErrors } from "#lib/http/middlewares.ts";
import { webhookPrelude } from "#lib/http/webhook-prelude.ts";
import { secretValue } from "#lib/secrets/secrets.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { createServices } from "#lib/wiring.ts";

const observability = await createObservability("slackWebhook");
const { telemetry } = observability;
const services = createServices(loadConfig(), "slackWebhook", observability);
await services.ready();
const { config, secrets, store, handleInbound, links, now } = services;
const slack = config.channels.slack;

const base = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(observability.middlewares)
  .use(httpErrors(telemetry, { platform: "slack" }));

export const handler = slack
  ? base.use(webhookPrelude(slackPrelude(secretValue(secrets, "slack/signing-secret"), now))).handler(
      createSlackWebhook({
        api: createSlackApi({
          apiBase: slack.apiBase,
          botToken: secretValue(secrets, "slack/bot-token"),
          now,
        }),
        links,
        store,
        handleInbound,
        now,
        onError: (error, context) => telemetry.failed(context, error),
      }),
    )
  : base.handler(channelDisabled("slack"));
