/** `POST /webhooks/teams`: Bot Framework activities from Microsoft Teams (card taps, typed replies). */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { createTeamsAuth } from "#lib/channels/teams/teams-auth.ts";
import {
  createTeamsWebhook,
  TEAMS_ACK_WITHIN_MS,
  TEAMS_REFUSAL,
  teamsVerification,
} from "#lib/channels/teams/teams-webhook.ts";
import { loadConfig } from "#lib/config.ts";
import { channelDisabled } from "#lib/http/channel-disabled.ts";
import { httpErrors } from "#lib/http/middlewares.ts";
import { webhookPrelude } from "#lib/http/webhook-prelude.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { createServices, createTeamsApiFor } from "#lib/wiring.ts";

const observability = await createObservability("teamsWebhook");
const { telemetry, logger } = observability;
const services = createServices(loadConfig(), "teamsWebhook", observability);
await services.ready();
const { config, secrets, store, handleInbound, links, now } = services;
const teams = config.channels.teams;

const http = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(observability.middlewares)
  .use(httpErrors(telemetry, { platform: "teams" }));

export const handler = teams
  ? http
      .use(
        webhookPrelude({
          // Built once per process: the Bot Framework's keys are fetched once and reused while warm.
          // The 401 itself is counted by httpErrors; onRejected says which check refused it (never the token).
          verify: teamsVerification(
            createTeamsAuth({
              appId: teams.appId,
              metadataUrl: teams.openIdMetadataUrl,
              now,
              onRefreshFailed: (error) => telemetry.failed("teams key set refresh", error),
            }),
            (why) => logger.warn("teams request refused", { why }),
          ),
          refusal: TEAMS_REFUSAL,
          ackWithinMs: TEAMS_ACK_WITHIN_MS,
          now,
        }),
      )
      .handler(
        createTeamsWebhook({
          api: createTeamsApiFor(config, secrets),
          store,
          handleInbound,
          links,
          now,
          onError: (error, context) => telemetry.failed(context, error),
        }),
      )
  : http.handler(channelDisabled("teams"));
