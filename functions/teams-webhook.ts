/** `POST /webhooks/teams`: Bot Framework activities from Microsoft Teams (card taps, typed replies). */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { createTeamsAuth } from "#lib/channels/teams/teams-auth.ts";
import { createTeamsWebhook } from "#lib/channels/teams/teams-webhook.ts";
import { loadConfig } from "#lib/config.ts";
import { channelDisabled } from "#lib/http/channel-disabled.ts";
import { httpErrors } from "#lib/http/middlewares.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { createServices, createTeamsApiFor } from "#lib/wiring.ts";

const observability = createObservability("teamsWebhook");
const { telemetry, logger } = observability;
const services = createServices(loadConfig(), "teamsWebhook", observability);
await services.ready();
const { config, secrets, store, handleInbound } = services;
const teams = config.channels.teams;

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(observability.middlewares)
  .use(httpErrors(telemetry, { platform: "teams" }))
  .handler(
    teams
      ? createTeamsWebhook({
          // Built once per process: the Bot Framework's keys are fetched once and reused while warm.
          verify: createTeamsAuth({ appId: teams.appId, metadataUrl: teams.openIdMetadataUrl }),
          api: createTeamsApiFor(config, secrets),
          store,
          handleInbound,
          now: () => Date.now(),
          onError: (error, context) => telemetry.failed(context, error),
          // The 401 itself is counted by httpErrors; this says which check refused it (never the token).
          onRejected: (why) => logger.warn("teams request refused", { why }),
        })
      : channelDisabled("teams"),
  );
