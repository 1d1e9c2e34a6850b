/** The Discord channel (REST API): delivers with channel messages, listens at `POST /webhooks/discord`. */
import { botTokenClient, type ChannelWebhookDefinition, defineChannel } from "../channel-descriptor.ts";
import { createDiscordApi, type DiscordApi } from "./discord-api.ts";
import { createDiscordChannel } from "./discord-channel.ts";
import { DISCORD_REFUSAL, discordPublicKey, discordRequestVerifier } from "./discord-signature.ts";
import { discordSpec } from "./discord-spec.ts";
import { createDiscordWebhook, DISCORD_ACK_BUDGET_MS } from "./discord-webhook.ts";

export const discord = defineChannel(discordSpec, {
  // One client per process: it keeps Discord's rate-limit buckets, which the channel and the webhook share.
  client: botTokenClient<DiscordApi>(createDiscordApi, "discord/bot-token"),
  channel: (api, { links, privacyUnconfirmed }) => createDiscordChannel(api, links, privacyUnconfirmed),
});

/** Its webhook, `POST /webhooks/discord` (functions/discord-webhook.ts). */
export const discordWebhook: ChannelWebhookDefinition<typeof discord> = {
  channel: discord,
  create: (api, context) => ({
    prelude: {
      verify: discordRequestVerifier(discordPublicKey(context.settings.publicKey)),
      refusal: DISCORD_REFUSAL,
      ackWithinMs: DISCORD_ACK_BUDGET_MS,
    },
    handler: createDiscordWebhook({ ...context, api }),
  }),
};
