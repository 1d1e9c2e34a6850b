/** The Slack channel (Web API): delivers with chat.postMessage, listens at `POST /webhooks/slack`. */
import { botTokenChannel, defineChannel, defineWebhook } from "../channel-descriptor.ts";
import { createSlackApi } from "./slack-api.ts";
import { createSlackChannel } from "./slack-channel.ts";
import { slackPrelude } from "./slack-signature.ts";
import { slackSpec } from "./slack-spec.ts";
import { createSlackWebhook } from "./slack-webhook.ts";

export const slack = defineChannel(
  slackSpec,
  botTokenChannel(createSlackApi, "slack/bot-token", createSlackChannel),
);

/** Its webhook, `POST /webhooks/slack` (functions/slack-webhook.ts). */
export const slackWebhook = /* @__PURE__ */ defineWebhook(slack, (api, context) => ({
  prelude: slackPrelude(context.secret("slack/signing-secret"), context.now),
  handler: createSlackWebhook({ ...context, api }),
}));
