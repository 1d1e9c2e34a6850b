/** The Google Chat channel (an HTTP endpoint app): delivers cards v2, listens at `POST /webhooks/gchat`. */
import { type ChannelWebhookDefinition, defineChannel } from "../channel-descriptor.ts";
import { createGchatApi } from "./gchat-api.ts";
import { createGoogleChatAuth } from "./gchat-auth.ts";
import { createGchatChannel } from "./gchat-channel.ts";
import { gchatSpec } from "./gchat-spec.ts";
import {
  createGchatWebhook,
  GCHAT_ACK_WITHIN_MS,
  GCHAT_REFUSAL,
  gchatVerification,
} from "./gchat-webhook.ts";

export const gchat = defineChannel(gchatSpec, {
  // One client per process. The webhook never calls the Chat API (every answer is its synchronous response),
  // so it may not read the service account's key at all (manifest.json).
  client: ({ settings, secret, now }) =>
    createGchatApi({
      apiBase: settings.apiBase,
      tokenUrl: settings.tokenUrl,
      serviceAccount: secret("gchat/service-account"),
      now,
    }),
  channel: (api, { links, privacyUnconfirmed }) => createGchatChannel(api, links, privacyUnconfirmed),
});

/** Its webhook, `POST /webhooks/gchat` (functions/gchat-webhook.ts). */
export const gchatWebhook: ChannelWebhookDefinition<typeof gchat> = {
  channel: gchat,
  create: (_api, context) => ({
    prelude: {
      // Built once per process: Google's certificates are fetched once and reused while warm. The 401 itself
      // is counted by httpErrors; the warning says which check refused it (never the token).
      verify: gchatVerification(
        createGoogleChatAuth({
          projectNumber: context.settings.projectNumber,
          certsUrl: context.settings.certsUrl,
          now: context.now,
          onRefreshFailed: (error) => context.telemetry.failed("gchat certificates refresh", error),
        }),
        (why) => context.logger.warn("gchat request refused", { why }),
      ),
      refusal: GCHAT_REFUSAL,
      ackWithinMs: GCHAT_ACK_WITHIN_MS,
    },
    handler: createGchatWebhook(context),
  }),
};
