import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replies } from "#lib/channels/replies.ts";
import { createTelegramApi } from "#lib/channels/telegram/telegram-api.ts";
import { setUpTelegramBot } from "#lib/channels/telegram/telegram-setup.ts";
import { type FakePlatform, startFakePlatform } from "./support/fake-platform.ts";

let telegram: FakePlatform;
beforeAll(async () => {
  telegram = await startFakePlatform(() => ({ body: { ok: true, result: true } }));
});
afterAll(async () => {
  await telegram?.stop();
});

describe("npm run telegram:setup", () => {
  const api = () =>
    createTelegramApi({ apiBase: telegram.url, botToken: async () => "1:tok", now: Date.now });

  it("sets the webhook with the secret and only the updates Handraise reads, then the commands", async () => {
    await setUpTelegramBot(api(), {
      webhookUrl: "https://x.example/webhooks/telegram",
      secret: "tg_Secret-123",
    });
    expect(telegram.calls.map((c) => c.path)).toEqual(["/bot1:tok/setWebhook", "/bot1:tok/setMyCommands"]);
    expect(telegram.calls[0]?.body).toEqual({
      url: "https://x.example/webhooks/telegram",
      secret_token: "tg_Secret-123",
      allowed_updates: ["message", "callback_query"],
    });
    // Bot API setMyCommands: a description of 1–256 characters, worded in the reply catalog.
    expect(telegram.calls[1]?.body.commands).toEqual([
      { command: "question", description: replies.questionCommandAbout },
      { command: "cancel", description: replies.cancelCommandAbout },
    ]);
    for (const { description } of telegram.calls[1]?.body.commands ?? [])
      expect(description.length).toBeLessThanOrEqual(256);
  });

  it("refuses a secret Telegram would reject and a non-https URL, calling nothing", async () => {
    telegram.calls.length = 0;
    await expect(setUpTelegramBot(api(), { webhookUrl: "https://x", secret: "has space" })).rejects.toThrow(
      /SECRET/,
    );
    await expect(setUpTelegramBot(api(), { webhookUrl: "http://x", secret: "ok" })).rejects.toThrow(/https/);
    expect(telegram.calls).toEqual([]);
  });

  it("reports Telegram's refusal with the method, never the token", async () => {
    telegram.respond(() => ({
      status: 401,
      body: { ok: false, error_code: 401, description: "Unauthorized" },
    }));
    const error = await setUpTelegramBot(api(), { webhookUrl: "https://x", secret: "ok" }).catch(
      (e: unknown) => e,
    );
    expect(String(error)).toContain("telegram setWebhook failed: Unauthorized");
    expect(String(error)).not.toContain("1:tok");
  });
});
