/** The Discord channel (REST API): delivers with channel messages, listens at `POST /webhooks/discord`. */
import { botTokenChannel, defineChannel, defineWebhook } from "../channel-descriptor.ts";
import { createDiscordApi } from "./discord-api.ts";
import { createDiscordChannel } from "./discord-channel.ts";
import { DISCORD_REFUSAL, discordPublicKey, discordRequestVerifier } from "./discord-signature.ts";
import { discordSpec } from "./discord-spec.ts";
import { createDiscordWebhook, DISCORD_ACK_BUDGET_MS } from "./discord-webhook.ts";

// One client per process: it keeps Discord's rate-limit buckets, which the channel and the webhook share.
export const discord = defineChannel(
  discordSpec,
  botTokenChannel(createDiscordApi, "discord/bot-token", createDiscordChannel),
);

/** Its webhook, `POST /webhooks/discord` (functions/discord-webhook.ts). */
export const discordWebhook = /* @__PURE__ */ defineWebhook(discord, (api, context) => ({
  prelude: {
    verify: discordRequestVerifier(discordPublicKey(context.settings.publicKey)),
    refusal: DISCORD_REFUSAL,
    ackWithinMs: DISCORD_ACK_BUDGET_MS,
  },
  handler: createDiscordWebhook({ ...context, api }),
}));
