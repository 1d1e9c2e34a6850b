/** The Slack channel (Web API): delivers with chat.postMessage, listens at `POST /webhooks/slack`. */
import { botTokenClient, type ChannelWebhookDefinition, defineChannel } from "../channel-descriptor.ts";
import { createSlackApi, type SlackApi } from "./slack-api.ts";
import { createSlackChannel } from "./slack-channel.ts";
import { slackPrelude } from "./slack-signature.ts";
import { slackSpec } from "./slack-spec.ts";
import { createSlackWebhook } from "./slack-webhook.ts";

export const slack = defineChannel(slackSpec, {
  client: botTokenClient<SlackApi>(createSlackApi, "slack/bot-token"),
  channel: (api, { links, privacyUnconfirmed }) => createSlackChannel(api, links, privacyUnconfirmed),
});

/** Its webhook, `POST /webhooks/slack` (functions/slack-webhook.ts). */
export const slackWebhook: ChannelWebhookDefinition<typeof slack> = {
  channel: slack,
  create: (api, context) => ({
    prelude: slackPrelude(context.secret("slack/signing-secret"), context.now),
    handler: createSlackWebhook({ ...context, api }),
  }),
};
