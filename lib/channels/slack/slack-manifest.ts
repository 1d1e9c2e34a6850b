/** The placeholder infra/slack/manifest.yml uses wherever Slack needs the webhook's URL. */
export const WEBHOOK_URL_PLACEHOLDER = "<SlackWebhookUrl>";

/**
 * The app manifest with the webhook URL (the stack output SlackWebhookUrl) in every Request URL: events,
 * interactivity and the slash command.
 *
 * @example
 * fillSlackManifest(readFileSync("infra/slack/manifest.yml", "utf8"),
 *   "https://abc123.execute-api.us-east-1.amazonaws.com/webhooks/slack")
 * @throws Error when the URL is not an https URL (Slack accepts no other).
 */
export function fillSlackManifest(manifest: string, webhookUrl: string): string {
  let url: URL;
  try {
    url = new URL(webhookUrl);
  } catch {
    throw new Error(`not a URL: ${webhookUrl}`);
  }
  if (url.protocol !== "https:") throw new Error(`Slack only calls https URLs, got ${webhookUrl}`);
  if (!manifest.includes(WEBHOOK_URL_PLACEHOLDER)) {
    throw new Error(`the manifest has no ${WEBHOOK_URL_PLACEHOLDER} to fill in`);
  }
  return manifest.replaceAll(WEBHOOK_URL_PLACEHOLDER, url.href);
}
