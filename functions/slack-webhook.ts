/** `POST /webhooks/slack`: Slack Events API (typed replies), interactivity (buttons, modals), slash commands. */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { createSlackApi } from "#lib/channels/slack/slack-api.ts";
import { createSlackWebhook } from "#lib/channels/slack/slack-webhook.ts";
import { loadConfig } from "#lib/config.ts";
import { httpErrors } from "#lib/http/middlewares.ts";
import { logError } from "#lib/log.ts";
import { createServices } from "#lib/wiring.ts";

const config = loadConfig();
const { store, handleInbound } = createServices(config);
const botToken = config.slack.botToken ?? "";

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(httpErrors((error) => logError("slack-webhook", error)))
  .handler(
    createSlackWebhook({
      signingSecret: botToken ? config.slack.signingSecret : undefined,
      api: createSlackApi({ apiBase: config.slack.apiBase, botToken }),
      store,
      handleInbound,
      now: () => Date.now(),
      onError: (error, context) => logError(context, error),
    }),
  );
