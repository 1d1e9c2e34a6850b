/** The Microsoft Teams channel (Bot Connector): delivers Adaptive Cards, listens at `POST /webhooks/teams`. */
import { type ChannelWebhookDefinition, defineChannel } from "../channel-descriptor.ts";
import { createTeamsApi, teamsTokenUrl } from "./teams-api.ts";
import { createTeamsAuth } from "./teams-auth.ts";
import { createTeamsChannel } from "./teams-channel.ts";
import { teamsSpec } from "./teams-spec.ts";
import {
  createTeamsWebhook,
  TEAMS_ACK_WITHIN_MS,
  TEAMS_REFUSAL,
  teamsVerification,
} from "./teams-webhook.ts";

export const teams = defineChannel(teamsSpec, {
  // One client per process: the channel and the webhook's replies share its cached app token.
  client: ({ settings, secret, now }) =>
    createTeamsApi({
      appId: settings.appId,
      appPassword: secret("teams/app-password"),
      tokenUrl: teamsTokenUrl(settings.loginBase, settings.tenantId),
      now,
    }),
  channel: (api, { settings, links, privacyUnconfirmed }) =>
    createTeamsChannel(api, { apiBase: settings.apiBase }, links, privacyUnconfirmed),
});

/** Its webhook, `POST /webhooks/teams` (functions/teams-webhook.ts). */
export const teamsWebhook: ChannelWebhookDefinition<typeof teams> = {
  channel: teams,
  create: (api, context) => ({
    prelude: {
      // Built once per process: the Bot Framework's keys are fetched once and reused while warm.
      // The 401 itself is counted by httpErrors; the warning says which check refused it (never the token).
      verify: teamsVerification(
        createTeamsAuth({
          appId: context.settings.appId,
          metadataUrl: context.settings.openIdMetadataUrl,
          now: context.now,
          onRefreshFailed: (error) => context.telemetry.failed("teams key set refresh", error),
        }),
        (why) => context.logger.warn("teams request refused", { why }),
      ),
      refusal: TEAMS_REFUSAL,
      ackWithinMs: TEAMS_ACK_WITHIN_MS,
    },
    handler: createTeamsWebhook({ ...context, api }),
  }),
};
