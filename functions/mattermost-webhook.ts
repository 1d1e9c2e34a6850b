/** `POST /webhooks/mattermost`: button taps, dialog submissions, `/handraise`, outgoing-webhook replies. */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { createMattermostApi } from "#lib/channels/mattermost/mattermost-api.ts";
import { mattermostWebhookUrl } from "#lib/channels/mattermost/mattermost-render.ts";
import { parseTokenList } from "#lib/channels/mattermost/mattermost-signature.ts";
import { createMattermostWebhook } from "#lib/channels/mattermost/mattermost-webhook.ts";
import { loadConfig } from "#lib/config.ts";
import { httpErrors } from "#lib/http/middlewares.ts";
import { logError } from "#lib/log.ts";
import { createServices } from "#lib/wiring.ts";

const config = loadConfig();
const { store, handleInbound } = createServices(config);
const { url, botToken, actionSecret, commandToken } = config.mattermost;
// Without a configured server every request is refused: no secret, no tokens.
const configured = url !== undefined && botToken !== undefined;

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(httpErrors((error) => logError("mattermost-webhook", error)))
  .handler(
    createMattermostWebhook({
      actionSecret: configured ? actionSecret : undefined,
      tokens: configured ? parseTokenList(commandToken) : [],
      target: { url: mattermostWebhookUrl(config.publicUrl ?? ""), secret: actionSecret ?? "" },
      api: createMattermostApi({ url: url ?? "http://mattermost.invalid", botToken: botToken ?? "" }),
      store,
      handleInbound,
      onError: (error, context) => logError(context, error),
    }),
  );
