/** Slack's spec: its manifest (owner, secrets) and its settings. */
import { httpUrl } from "../../config-values.ts";
import * as z from "../../zod.ts";
import { type ChannelManifest, defineSpec } from "../channel-spec.ts";
import manifest from "./manifest.json" with { type: "json" };

export const slackSpec = defineSpec({
  name: "slack",
  manifest: manifest as ChannelManifest,
  config: {
    variables: { SLACK_API_BASE: z._default(httpUrl, "https://slack.com/api") },
    settings: (env) => ({ apiBase: env.SLACK_API_BASE }),
  },
});
