/** `POST /webhooks/slack`: Slack Events API (typed replies), interactivity (buttons, modals), slash commands. */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { createSlackApi } from "#lib/channels/slack/slack-api.ts";
import { createSlackWebhook } from "#lib/channels/slack/slack-webhook.ts";
import { loadConfig } from "#lib/config.ts";
import { channelDisabled } from "#lib/http/channel-disabled.ts";
import { httpErrors } from "#lib/http/middlewares.ts";
import { secretValue } from "#lib/secrets/secrets.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { createServices } from "#lib/wiring.ts";

const observability = createObservability("slackWebhook");
const { telemetry } = observability;
const services = createServices(loadConfig(), "slackWebhook", observability);
await services.ready();
const { config, secrets, store, handleInbound } = services;
const slack = config.channels.slack;

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(observability.middlewares)
  .use(httpErrors(telemetry, { platform: "slack" }))
  .handler(
    slack
      ? createSlackWebhook({
          signingSecret: secretValue(secrets, "slack/signing-secret"),
          api: createSlackApi({ apiBase: slack.apiBase, botToken: secretValue(secrets, "slack/bot-token") }),
          store,
          handleInbound,
          now: () => Date.now(),
          onError: (error, context) => telemetry.failed(context, error),
        })
      : channelDisabled("slack"),
  );
