import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createDiscordApi } from "#lib/channels/discord/discord-api.ts";
import {
  DISCORD_COMMANDS,
  interactionsEndpointUrl,
  registerDiscordCommands,
} from "#lib/channels/discord/discord-commands.ts";
import { replies } from "#lib/channels/replies.ts";
import { type FakePlatform, startFakePlatform } from "./support/fake-platform.ts";

const BOT_TOKEN = "MTA5.register-test-token";
const APPLICATION_ID = "111111111111111111";
const echo = (call: { body: unknown }) => ({ body: call.body });

let discord: FakePlatform;
beforeAll(async () => {
  discord = await startFakePlatform(echo);
});
afterAll(async () => {
  await discord?.stop();
});
beforeEach(() => {
  discord.calls.length = 0;
  discord.respond(echo);
});

const api = () =>
  createDiscordApi({ apiBase: `${discord.url}/api/v10`, botToken: async () => BOT_TOKEN, now: Date.now });

describe("npm run discord:register", () => {
  it("overwrites the application's commands with /question (optional answer) and /cancel, as the bot", async () => {
    const registered = await registerDiscordCommands(api(), { applicationId: APPLICATION_ID });
    expect(registered.map((c) => c.name)).toEqual(["question", "cancel"]);
    const [call] = discord.calls;
    expect(discord.calls).toHaveLength(1);
    expect(call).toMatchObject({ verb: "PUT", path: `/api/v10/applications/${APPLICATION_ID}/commands` });
    expect(call?.headers.authorization).toBe(`Bot ${BOT_TOKEN}`);
    expect(call?.body).toEqual(DISCORD_COMMANDS);
    expect(call?.body[0].options).toEqual([
      expect.objectContaining({ name: "answer", type: 3, required: false }),
    ]);
    // Discord takes a command's or an option's description of 1–100 characters.
    const descriptions = DISCORD_COMMANDS.flatMap((c) => [
      c.description,
      ...(c.options ?? []).map((o) => o.description),
    ]);
    expect(descriptions).toEqual([
      replies.questionOrAnswerCommandAbout,
      replies.answerOptionAbout,
      replies.cancelCommandAbout,
    ]);
    for (const description of descriptions) expect(description.length).toBeLessThanOrEqual(100);
  });

  it("registers for one guild when asked, and refuses ids that are not snowflakes, calling nothing", async () => {
    await registerDiscordCommands(api(), { applicationId: APPLICATION_ID, guildId: "290926798626357999" });
    expect(discord.calls[0]?.path).toBe(
      `/api/v10/applications/${APPLICATION_ID}/guilds/290926798626357999/commands`,
    );
    discord.calls.length = 0;
    await expect(registerDiscordCommands(api(), { applicationId: "../x" })).rejects.toThrow(/APPLICATION_ID/);
    await expect(
      registerDiscordCommands(api(), { applicationId: APPLICATION_ID, guildId: "x/../y" }),
    ).rejects.toThrow(/guild/);
    expect(discord.calls).toEqual([]);
  });

  it("reports Discord's refusal with the method and path, never the token; a 429 it cannot wait out fails at once", async () => {
    discord.respond(() => ({ status: 401, body: { message: "401: Unauthorized", code: 0 } }));
    const refused = await registerDiscordCommands(api(), { applicationId: APPLICATION_ID }).catch((e) => e);
    expect(String(refused)).toContain("discord PUT /applications/{id}/commands failed: 401: Unauthorized");
    expect(String(refused)).not.toContain(BOT_TOKEN);
    expect(refused).toMatchObject({ name: "PlatformApiError", status: 401 });

    discord.respond(() => ({
      status: 429,
      body: { message: "You are being rate limited.", retry_after: 30, global: false },
    }));
    const started = performance.now();
    const limited = await registerDiscordCommands(api(), { applicationId: APPLICATION_ID }).catch((e) => e);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(String(limited)).toContain("rate limited, retry after 30 s");
    expect(discord.calls).toHaveLength(2);
  });

  it("a 429 whose retry_after fits the call's time is waited out, and the commands are registered", async () => {
    let limited = false;
    discord.respond((call) => {
      if (limited) return echo(call);
      limited = true;
      return {
        status: 429,
        body: { message: "You are being rate limited.", retry_after: 0.3, global: false },
      };
    });
    const registered = await registerDiscordCommands(api(), { applicationId: APPLICATION_ID });
    expect(registered.map((c) => c.name)).toEqual(["question", "cancel"]);
    expect(discord.calls).toHaveLength(2);
    const [first, second] = discord.calls.map((call) => call.at);
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(290);
  });

  it("the script registers with the environment's credentials and prints the Interactions Endpoint URL", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "scripts/discord-register.ts", "https://abc.execute-api.us-east-1.amazonaws.com"],
      {
        env: {
          ...process.env,
          DISCORD_APPLICATION_ID: APPLICATION_ID,
          DISCORD_BOT_TOKEN: BOT_TOKEN,
          DISCORD_API_BASE: `${discord.url}/api/v10`,
        },
      },
    );
    expect(discord.calls.map((c) => `${c.verb} ${c.path}`)).toEqual([
      `PUT /api/v10/applications/${APPLICATION_ID}/commands`,
    ]);
    expect(stdout).toContain("Registered /question and /cancel (global).");
    expect(stdout).toContain(
      "Interactions Endpoint URL to: https://abc.execute-api.us-east-1.amazonaws.com/webhooks/discord",
    );
    expect(stdout).not.toContain(BOT_TOKEN);
  }, 20_000);

  it("takes the stack's DiscordWebhookUrl or HttpApiUrl, https only", () => {
    expect(interactionsEndpointUrl("https://x.example/webhooks/discord")).toBe(
      "https://x.example/webhooks/discord",
    );
    expect(interactionsEndpointUrl("https://x.example/")).toBe("https://x.example/webhooks/discord");
    expect(() => interactionsEndpointUrl("http://x.example")).toThrow(/https/);
  });
});
