/**
 * `npm run telegram:whoami` against a fake Bot API: the chat and user ids of the recent updates, read
 * without confirming them; a bot with a webhook (getUpdates refused with 409) told how to proceed; and the
 * script as a process, with its exit codes.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "#infra/local/stack.ts";
import { createTelegramApi } from "#lib/channels/telegram/telegram-api.ts";
import { readRecentChats, whoamiLines } from "#lib/channels/telegram/telegram-whoami.ts";
import { type FakePlatform, type FakeReply, startFakePlatform } from "./support/fake-platform.ts";

const TOKEN = "7000000001:AAH-whoami_token";
const ANN = { id: 111111111, is_bot: false, first_name: "Ann", last_name: "Lee", username: "ann" };
const BOB = { id: 222222222, is_bot: false, first_name: "Bob" };
const GROUP = { id: -1001234567890, type: "supergroup", title: "dev", is_forum: true };

/** Updates as getUpdates returns them: a private message, a forum topic, a tap, a channel post, others. */
const UPDATES = [
  {
    update_id: 1,
    message: { message_id: 1, from: ANN, chat: { ...ANN, type: "private" }, date: 1, text: "/start" },
  },
  {
    update_id: 2,
    message: {
      message_id: 2,
      message_thread_id: 7,
      is_topic_message: true,
      from: ANN,
      chat: GROUP,
      date: 2,
      text: "/start@handraise_bot",
    },
  },
  {
    update_id: 3,
    callback_query: {
      id: "cb",
      from: BOB,
      chat_instance: "1",
      message: { message_id: 3, chat: { id: -4001, type: "group", title: "ops" }, date: 3 },
    },
  },
  // Sent on behalf of a channel: the channel is listed, nobody as its sender.
  {
    update_id: 4,
    channel_post: {
      message_id: 4,
      sender_chat: { id: -1009, type: "channel", title: "news" },
      chat: { id: -1009, type: "channel", title: "news", username: "news" },
      date: 4,
    },
  },
  { update_id: 5, poll: { id: "p", question: "?" } },
  { update_id: 6, message: { chat: "not a chat" } },
  {
    update_id: 7,
    message: { message_id: 7, from: ANN, chat: { ...ANN, type: "private" }, date: 7, text: "again" },
  },
];

const ok = (result: unknown): FakeReply => ({ body: { ok: true, result } });
const refused = (status: number, description: string): FakeReply => ({
  status,
  body: { ok: false, error_code: status, description },
});

let telegram: FakePlatform;
let webhookUrl = "";
beforeAll(async () => {
  telegram = await startFakePlatform(() => ok(true));
});
afterAll(async () => {
  await telegram?.stop();
});
beforeEach(() => {
  telegram.calls.length = 0;
  webhookUrl = "";
  telegram.respond((call) => {
    switch (call.method) {
      case "getMe":
        return ok({ id: 7000000001, is_bot: true, first_name: "Handraise", username: "handraise_bot" });
      case "getWebhookInfo":
        return ok({ url: webhookUrl, has_custom_certificate: false, pending_update_count: 0 });
      case "deleteWebhook":
        webhookUrl = "";
        return ok(true);
      case "getUpdates":
        // What Telegram does while the bot has a webhook.
        return webhookUrl
          ? refused(
              409,
              "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
            )
          : ok(UPDATES);
      default:
        return refused(404, "Not Found");
    }
  });
});

const api = () => createTelegramApi({ apiBase: telegram.url, botToken: async () => TOKEN, now: Date.now });

describe("npm run telegram:whoami", () => {
  it("lists each chat's id, type and title and each sender's user id and name, ready as owner and target", async () => {
    const report = await readRecentChats(api());
    expect(report).toEqual({
      kind: "seen",
      bot: { id: "7000000001", username: "handraise_bot" },
      chats: [
        {
          id: "111111111",
          type: "private",
          name: "Ann Lee",
          username: "ann",
          people: [{ id: "111111111", name: "Ann Lee", username: "ann", isBot: false }],
        },
        {
          id: "-1001234567890",
          type: "supergroup",
          name: "dev",
          threadId: "7",
          people: [{ id: "111111111", name: "Ann Lee", username: "ann", isBot: false }],
        },
        {
          id: "-4001",
          type: "group",
          name: "ops",
          people: [{ id: "222222222", name: "Bob", isBot: false }],
        },
        { id: "-1009", type: "channel", name: "news", username: "news", people: [] },
      ],
    });
    const text = whoamiLines(report).join("\n");
    expect(text).toContain(
      "private chat with Ann Lee (@ann)\n  chat id 111111111   target: telegram:111111111",
    );
    expect(text).toContain("from Ann Lee (@ann), user id 111111111   owner: telegram:111111111");
    expect(text).toContain('supergroup "dev", topic 7');
    expect(text).toContain('target: {"channel":"telegram","chatId":"-1001234567890","threadId":"7"}');
    expect(text).toContain(
      'group "ops"\n  chat id -4001   target: telegram:-4001\n  from Bob, user id 222222222',
    );

    // Read without an offset (which would confirm the updates) and without allowed_updates (which would
    // change what the bot receives from then on).
    expect(telegram.calls.map((call) => call.method)).toEqual(["getMe", "getUpdates"]);
    expect(telegram.callsTo("getUpdates")[0]?.body).toEqual({ timeout: 0, limit: 100 });
  });

  it("no recent messages: says how to make one (in a group: a command or a mention)", async () => {
    telegram.answerOnce((call) => call.method === "getUpdates", ok([]));
    const text = whoamiLines(await readRecentChats(api())).join("\n");
    expect(text).toContain("No recent messages to @handraise_bot. Send it one");
    expect(text).toContain("/start@handraise_bot");
  });

  it("a bot with a webhook: getUpdates is refused (409), and it says so and how to proceed, changing nothing", async () => {
    webhookUrl = "https://x.example/webhooks/telegram";
    const report = await readRecentChats(api());
    expect(report).toEqual({
      kind: "webhook",
      bot: { id: "7000000001", username: "handraise_bot" },
      webhookUrl,
    });
    const text = whoamiLines(report).join("\n");
    expect(text).toContain("has a webhook (https://x.example/webhooks/telegram)");
    expect(text).toContain("409 Conflict");
    expect(text).toContain("npm run telegram:whoami -- --delete-webhook");
    expect(text).toContain("npm run telegram:setup -- https://x.example/webhooks/telegram");
    expect(telegram.callsTo("deleteWebhook")).toEqual([]);
  });

  it("--delete-webhook removes the webhook, keeping Telegram's pending updates, and says how to set it again", async () => {
    webhookUrl = "https://x.example/webhooks/telegram";
    const report = await readRecentChats(api(), { deleteWebhook: true });
    expect(report).toMatchObject({ kind: "seen", removedWebhook: "https://x.example/webhooks/telegram" });
    expect(telegram.calls.map((call) => call.method)).toEqual([
      "getMe",
      "getWebhookInfo",
      "deleteWebhook",
      "getUpdates",
    ]);
    expect(telegram.callsTo("deleteWebhook")[0]?.body).toEqual({ drop_pending_updates: false });
    expect(whoamiLines(report).join("\n")).toContain(
      "Set it again when done:\n  TELEGRAM_BOT_TOKEN=… TELEGRAM_WEBHOOK_SECRET=… npm run telegram:setup -- https://x.example/webhooks/telegram",
    );
  });

  it("refused with no webhook set: another program reads the updates (npm start's demo polls them)", async () => {
    telegram.answerOnce(
      (call) => call.method === "getUpdates",
      refused(
        409,
        "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
      ),
    );
    const report = await readRecentChats(api());
    expect(report.kind).toBe("other_reader");
    expect(whoamiLines(report).join("\n")).toContain("another program is reading its updates");
  });

  it("a token Telegram does not know: the method and Telegram's words, never the token", async () => {
    telegram.answerOnce((call) => call.method === "getMe", refused(401, "Unauthorized"));
    const error = await readRecentChats(api()).catch((e: unknown) => e);
    expect(String(error)).toContain("telegram getMe failed: Unauthorized");
    expect(String(error)).not.toContain(TOKEN);
  });
});

const run = promisify(execFile);

/** The script as `npm run telegram:whoami` runs it (Node with tsx's loader, without npm's start-up). */
async function whoami(env: Record<string, string>, args: string[] = []) {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ["--import", "tsx", "scripts/telegram-whoami.ts", ...args],
      { cwd: PROJECT_ROOT, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env } },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

// Each test starts Node with tsx: seconds on a busy 2-core machine.
describe("npm run telegram:whoami as a process", { timeout: 120_000 }, () => {
  it("prints the ids on stdout and exits 0; a bot with a webhook: how to proceed on stderr, exit 1", async () => {
    const env = { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_BASE: telegram.url };
    const read = await whoami(env);
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toContain("owner: telegram:111111111");

    webhookUrl = "https://x.example/webhooks/telegram";
    const refusedRead = await whoami(env);
    expect(refusedRead.code).toBe(1);
    expect(refusedRead.stdout).toBe("");
    expect(refusedRead.stderr).toContain("--delete-webhook");
  });

  it("without TELEGRAM_BOT_TOKEN, or with an unknown option: one line and the usage, exit 1, no call", async () => {
    const missing = await whoami({ TELEGRAM_API_BASE: telegram.url });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      "telegram:whoami: TELEGRAM_BOT_TOKEN is not set\nusage: TELEGRAM_BOT_TOKEN=… npm run telegram:whoami [-- --delete-webhook]\n",
    );
    const unknown = await whoami({ TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_BASE: telegram.url }, [
      "--delete",
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Unknown option '--delete'");
    expect(telegram.calls).toEqual([]);
  });
});
