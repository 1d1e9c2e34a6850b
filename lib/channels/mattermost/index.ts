/** The Mattermost channel (REST API v4): delivers posts, listens at `POST /webhooks/mattermost`. */
import { MAX_BODY_BYTES } from "../../http/middlewares.ts";
import { type ChannelWebhookDefinition, defineChannel } from "../channel-descriptor.ts";
import { createMattermostApi } from "./mattermost-api.ts";
import { createMattermostChannel } from "./mattermost-channel.ts";
import { mattermostWebhookUrl } from "./mattermost-render.ts";
import { MATTERMOST_REFUSAL } from "./mattermost-request.ts";
import { mattermostSpec } from "./mattermost-spec.ts";
import { createMattermostWebhook } from "./mattermost-webhook.ts";

export const mattermost = defineChannel(mattermostSpec, {
  client: ({ settings, secret, now }) =>
    createMattermostApi({ url: settings.url, botToken: secret("mattermost/bot-token"), now }),
  channel: (api, { settings, secret, links, privacyUnconfirmed }) =>
    createMattermostChannel(
      api,
      // Only delivering signs buttons; a function that only retires never reads the key.
      { url: mattermostWebhookUrl(settings.publicUrl), secret: secret("mattermost/action-secret") },
      links,
      privacyUnconfirmed,
    ),
});

/** Its webhook, `POST /webhooks/mattermost` (functions/mattermost-webhook.ts). */
export const mattermostWebhook: ChannelWebhookDefinition<typeof mattermost> = {
  channel: mattermost,
  create: (api, context) => {
    const { secret, secrets, telemetry } = context;
    const webhook = createMattermostWebhook({
      ...context,
      actionSecret: secret("mattermost/action-secret"),
      commandTokens: secret("mattermost/command-token"),
      outgoingTokens: () => secrets.get("mattermost/outgoing-token"),
      webhookUrl: mattermostWebhookUrl(context.settings.publicUrl),
      api,
      onRejected: (reason) => telemetry.webhookRejected("mattermost", 200, reason),
    });
    // Mattermost waits 30 s for an answer (its outgoing-request timeout): no acknowledgement deadline beyond
    // each API call's own limit. Its requests are small: 64 KiB, well over any tap, dialog or message.
    return {
      prelude: { maxBytes: MAX_BODY_BYTES, verify: webhook.verify, refusal: MATTERMOST_REFUSAL },
      handler: webhook.handler,
    };
  },
};
