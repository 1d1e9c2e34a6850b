/** Reminders on every platform, who may answer an escalated question, and how its copies say who did. */
import { describe, expect, it } from "vitest";
import { createConsoleChannel } from "#lib/channels/console-channel.ts";
import type { DiscordApi } from "#lib/channels/discord/discord-api.ts";
import { createDiscordChannel } from "#lib/channels/discord/discord-channel.ts";
import type { MattermostApi } from "#lib/channels/mattermost/mattermost-api.ts";
import { createMattermostChannel } from "#lib/channels/mattermost/mattermost-channel.ts";
import { outcomeText, reminderText } from "#lib/channels/replies.ts";
import type { SlackApi } from "#lib/channels/slack/slack-api.ts";
import { createSlackChannel } from "#lib/channels/slack/slack-channel.ts";
import type { TelegramApi } from "#lib/channels/telegram/telegram-api.ts";
import { createTelegramChannel } from "#lib/channels/telegram/telegram-channel.ts";
import type { Question } from "#lib/questions/index.ts";
import { answerersOf, mayAnswer, type QuestionRecord } from "#lib/questions/question-record.ts";

const question: Question = {
  id: "deploy_target",
  header: "Deploy to",
  question: "Where?",
  options: [{ label: "Staging" }, { label: "Production" }],
  allowOther: true,
};
const record: QuestionRecord = {
  id: "ask_1",
  status: "pending",
  questions: [question],
  owner: "telegram:42",
  deliveries: [],
  createdAtMs: 0,
  expiresAtMs: 600_000,
};
/** Five minutes before the deadline, and what every platform posts for it. */
const REMINDER = { leftMs: 300_000 };
const TEXT = "Still waiting for your answer — 5 min left";

describe("reminderText", () => {
  it("says how long is left: seconds in the last minute, minutes up to two hours, then hours and minutes", () => {
    const at = (leftMs: number) => reminderText({ leftMs });
    expect(at(4_400)).toBe("Still waiting for your answer — 4 s left");
    expect(at(60_000)).toBe("Still waiting for your answer — 1 min left");
    expect(at(299_000)).toBe("Still waiting for your answer — 5 min left");
    expect(at(119 * 60_000)).toBe("Still waiting for your answer — 119 min left");
    expect(at(3 * 3_600_000)).toBe("Still waiting for your answer — 3 h left");
    expect(at(26 * 3_600_000 + 15 * 60_000)).toBe("Still waiting for your answer — 26 h 15 min left");
  });
});

describe("a reminder", () => {
  it("Telegram: a new message replying to the copy (sent even if the copy is gone), no keyboard", async () => {
    const calls: [string, Record<string, unknown>][] = [];
    const api: TelegramApi = {
      call: async (method, params) => {
        calls.push([method, params]);
        return {} as never;
      },
    };
    await createTelegramChannel(api).remind(
      record,
      { channel: "telegram", chatId: "-100", threadId: "5", messageId: "77" },
      REMINDER,
    );
    expect(calls).toEqual([
      [
        "sendMessage",
        {
          chat_id: "-100",
          message_thread_id: 5,
          text: TEXT,
          reply_parameters: { message_id: 77, allow_sending_without_reply: true },
        },
      ],
    ]);
  });

  it("Slack: in the copy's thread (or the thread it was posted into), text only", async () => {
    const calls: [string, Record<string, unknown>][] = [];
    const api: SlackApi = {
      call: async (method, params) => {
        calls.push([method, params]);
        return {} as never;
      },
    };
    const slack = createSlackChannel(api);
    await slack.remind(record, { channel: "slack", chatId: "C1", messageId: "1.2" }, { leftMs: 30_000 });
    await slack.remind(
      record,
      { channel: "slack", chatId: "C1", threadId: "0.9", messageId: "1.3" },
      REMINDER,
    );
    expect(calls.map(([method, params]) => [method, params.thread_ts, params.text, params.blocks])).toEqual([
      ["chat.postMessage", "1.2", "Still waiting for your answer — 30 s left", undefined],
      ["chat.postMessage", "0.9", TEXT, undefined],
    ]);
  });

  it("Discord: a reply to the copy that mentions nobody, no components", async () => {
    const calls: unknown[] = [];
    const api: DiscordApi = {
      request: async (method, path, body) => {
        calls.push({ method, path, body });
        return {} as never;
      },
    };
    await createDiscordChannel(api).remind(
      record,
      { channel: "discord", chatId: "9", messageId: "88" },
      REMINDER,
    );
    expect(calls).toEqual([
      {
        method: "POST",
        path: "/channels/9/messages",
        body: {
          content: TEXT,
          message_reference: { message_id: "88", fail_if_not_exists: false },
          allowed_mentions: { parse: [] },
        },
      },
    ]);
  });

  it("Mattermost: a reply in the copy's thread, without buttons", async () => {
    const posts: unknown[] = [];
    const api = {
      createPost: async (post: unknown) => {
        posts.push(post);
        return { id: "p2", channel_id: "ch" };
      },
    } as unknown as MattermostApi;
    const channel = createMattermostChannel(api, {
      url: "https://x.test/webhooks/mattermost",
      secret: async () => "s",
    });
    await channel.remind(record, { channel: "mattermost", chatId: "ch", messageId: "root1" }, REMINDER);
    expect(posts).toEqual([
      {
        channel_id: "ch",
        root_id: "root1",
        message: "Still waiting for your answer — 5 min left",
        props: { attachments: [] },
      },
    ]);
  });

  it("the terminal: a line under the question", async () => {
    let printed = "";
    await createConsoleChannel((text) => {
      printed += text;
    }).remind(record, { channel: "console", chatId: "c", messageId: "ask_1" }, REMINDER);
    expect(printed).toBe(`[ask_1] ${TEXT}\n`);
  });

  it("is not posted where the copy was never posted (no message to reply to)", async () => {
    const calls: unknown[] = [];
    const api: TelegramApi = {
      call: async (method) => {
        calls.push(method);
        return {} as never;
      },
    };
    await createTelegramChannel(api).remind(record, { channel: "telegram", chatId: "-100" }, REMINDER);
    expect(calls).toEqual([]);
  });
});

describe("an escalated question", () => {
  const escalated: QuestionRecord = {
    ...record,
    escalate: { afterSeconds: 300, owner: "slack:T1:U2", deliverTo: [{ channel: "slack", chatId: "U2" }] },
  };

  it("may be answered by its owner from the start and by the escalation owner from the escalation time", () => {
    expect(answerersOf(escalated)).toEqual([
      { owner: "telegram:42", fromMs: 0 },
      { owner: "slack:T1:U2", fromMs: 300_000 },
    ]);
    expect(mayAnswer(escalated, "telegram:42", 0)).toBe(true);
    expect(mayAnswer(escalated, "slack:T1:U2", 299_999)).toBe(false);
    expect(mayAnswer(escalated, "slack:T1:U2", 300_000)).toBe(true);
    expect(mayAnswer(escalated, "slack:T1:U3", 300_000)).toBe(false);
    expect(mayAnswer(record, "slack:T1:U2", 300_000)).toBe(false);
  });

  it("says on every copy that the escalation owner answered it; an owner's answer reads as before", () => {
    const answered = {
      ...escalated,
      status: "answered" as const,
      answers: { deploy_target: ["Production"] },
    };
    expect(outcomeText({ ...answered, resolvedBy: "slack:T1:U2" })).toBe(
      "Answered by slack:T1:U2 — Deploy to: Production",
    );
    expect(outcomeText({ ...answered, resolvedBy: "telegram:42" })).toBe("Answered — Deploy to: Production");
    expect(outcomeText({ ...answered, resolvedBy: "api" })).toBe("Answered — Deploy to: Production");
  });
});
