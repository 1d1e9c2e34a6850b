/**
 * The wiring of channels from their descriptors (lib/wiring.ts): a function gets the enabled channels its role
 * serves, one platform client per channel per process shared with the webhook, and refuses to start when it
 * serves a channel it was built without. Nothing is sent: building a channel calls no platform.
 */
import { describe, expect, it } from "vitest";
import { CHANNELS } from "#lib/channels/channel-list.ts";
import { discord } from "#lib/channels/discord/index.ts";
import { email } from "#lib/channels/email/index.ts";
import { telegram } from "#lib/channels/telegram/index.ts";
import { loadConfig } from "#lib/config.ts";
import type { FunctionName } from "#lib/secrets/secret-catalog.ts";
import { silentTelemetry } from "#lib/telemetry/telemetry.ts";
import { NO_ANSWER_LINKS } from "#lib/web/answer-link.ts";
import { channelClient, createChannels, createSecrets } from "#lib/wiring.ts";

const config = loadConfig({
  HANDRAISE_TABLE: "t",
  TELEGRAM_BOT_TOKEN: "123:abc",
  TELEGRAM_WEBHOOK_SECRET: "s3cret",
  SLACK_BOT_TOKEN: "xoxb-1",
  SLACK_SIGNING_SECRET: "0123456789abcdef0123456789abcdef",
  DISCORD_BOT_TOKEN: "discord-token",
  DISCORD_APPLICATION_ID: "123",
  DISCORD_PUBLIC_KEY: "a".repeat(64),
});

function channelsOf(fn: FunctionName, descriptors = CHANNELS) {
  const secrets = createSecrets(config, fn);
  const services = { config, secrets, links: NO_ANSWER_LINKS, telemetry: silentTelemetry };
  return { secrets, channels: createChannels(fn, descriptors, services) };
}

describe("channels from descriptors", () => {
  it("a delivering function gets every enabled channel; one that only retires too; the answer page none", () => {
    expect([...config.enabledChannels]).toEqual(["telegram", "slack", "discord"]);
    expect([...channelsOf("ask").channels.keys()]).toEqual(["telegram", "slack", "discord"]);
    expect([...channelsOf("questionEvents").channels.keys()]).toEqual(["telegram", "slack", "discord"]);
    expect([...channelsOf("answerPage", []).channels.keys()]).toEqual([]);
  });

  it("a webhook gets its own channel only, even when given every descriptor", () => {
    expect([...channelsOf("telegramWebhook", [telegram]).channels.keys()]).toEqual(["telegram"]);
    expect([...channelsOf("discordWebhook").channels.keys()]).toEqual(["discord"]);
  });

  it("a function that serves a channel it was built without refuses to start", () => {
    expect(() => channelsOf("ask", [telegram])).toThrow(
      "ask serves the slack channel but was built without it",
    );
    expect(() => channelsOf("discordWebhook", [telegram])).toThrow(
      /discordWebhook serves the discord channel/,
    );
  });

  it("one platform client per channel per process: the channel's and the webhook's are the same", () => {
    const { secrets } = channelsOf("discordWebhook", [discord]);
    const first = channelClient(discord, { config, secrets });
    expect(channelClient(discord, { config, secrets })).toBe(first);
    // Another function's secrets (another process) build their own.
    expect(channelClient(discord, { config, secrets: createSecrets(config, "ask") })).not.toBe(first);
  });

  it("an AWS SDK client a channel builds (e-mail's SES) is traced like the function's own", () => {
    const withEmail = loadConfig({
      HANDRAISE_TABLE: "t",
      HANDRAISE_CHANNELS: "email",
      HANDRAISE_EMAIL_FROM: "bot@example.com",
    });
    const captured: unknown[] = [];
    const capture = <Client>(client: Client): Client => {
      captured.push(client);
      return client;
    };
    channelClient(email, { config: withEmail, secrets: createSecrets(withEmail, "ask"), capture });
    expect(captured.map((client) => (client as object).constructor.name)).toEqual(["SESv2Client"]);
  });
});
