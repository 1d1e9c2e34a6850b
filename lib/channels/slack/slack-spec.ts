/** Slack's spec: its manifest (owner, secrets) and its settings. */
import { apiBaseConfig, type ChannelManifest, defineSpec } from "../channel-spec.ts";
import manifest from "./manifest.json" with { type: "json" };

export const slackSpec = defineSpec({
  name: "slack",
  manifest: manifest as ChannelManifest,
  config: apiBaseConfig("SLACK_API_BASE", "https://slack.com/api"),
});
