/**
 * `npm run discord:register -- [<DiscordWebhookUrl>] [--guild=<id>]`: registers the /question and /cancel
 * commands of the application DISCORD_APPLICATION_ID with the bot token DISCORD_BOT_TOKEN, and prints the
 * Interactions Endpoint URL to set in the Developer Portal (Discord checks it with a signed PING on save, so
 * deploy first).
 */
import { createDiscordApi } from "#lib/channels/discord/discord-api.ts";
import { interactionsEndpointUrl, registerDiscordCommands } from "#lib/channels/discord/discord-commands.ts";

const args = process.argv.slice(2);
const guildId = args.find((arg) => arg.startsWith("--guild="))?.slice("--guild=".length);
const url = args.find((arg) => !arg.startsWith("--"));
const { DISCORD_APPLICATION_ID: applicationId, DISCORD_BOT_TOKEN: botToken } = process.env;
if (!applicationId || !botToken) {
  console.error(
    "usage: DISCORD_APPLICATION_ID=… DISCORD_BOT_TOKEN=… npm run discord:register -- [<DiscordWebhookUrl>] [--guild=<id>]",
  );
  process.exit(2);
}
const apiBase = process.env.DISCORD_API_BASE ?? "https://discord.com/api/v10";
const registered = await registerDiscordCommands(
  createDiscordApi({ apiBase, botToken: async () => botToken, now: Date.now }),
  {
    applicationId,
    guildId,
  },
);
const names = registered.map((command) => `/${command.name}`).join(" and ");
console.log(`Registered ${names}${guildId ? ` in guild ${guildId}` : " (global)"}.`);
if (url) {
  console.log(`Set the application's Interactions Endpoint URL to: ${interactionsEndpointUrl(url)}`);
} else {
  console.log(
    "Set the application's Interactions Endpoint URL to the stack output DiscordWebhookUrl:\n" +
      "  aws cloudformation describe-stacks --stack-name handraise-<stage> " +
      "--query \"Stacks[0].Outputs[?OutputKey=='DiscordWebhookUrl'].OutputValue\" --output text",
  );
}
