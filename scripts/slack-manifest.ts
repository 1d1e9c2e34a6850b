/**
 * `npm run -s slack:manifest -- <SlackWebhookUrl>`: prints infra/slack/manifest.yml with the webhook URL
 * (the stack output SlackWebhookUrl) filled in, ready to paste into https://api.slack.com/apps →
 * "Create New App" → "From a manifest" (or an existing app's "App Manifest" page).
 */
import { readFileSync } from "node:fs";
import { fillSlackManifest } from "#lib/channels/slack/slack-manifest.ts";

const [webhookUrl] = process.argv.slice(2);
if (!webhookUrl) {
  console.error("usage: npm run -s slack:manifest -- <SlackWebhookUrl>");
  process.exit(2);
}
const manifest = readFileSync(new URL("../infra/slack/manifest.yml", import.meta.url), "utf8");
try {
  process.stdout.write(fillSlackManifest(manifest, webhookUrl));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(2);
}
