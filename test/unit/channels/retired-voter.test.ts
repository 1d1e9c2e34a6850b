/**
 * A pending question's copy retired for its voter speaks of that person's own vote, not the newest one: two
 * people's votes retired in one change each get their own sentence, on every platform's rendering.
 */
import { describe, expect, it } from "vitest";
import { createHandleQuestionChange } from "#lib/app/handle-question-change.ts";
import { retiredContent } from "#lib/channels/discord/discord-render.ts";
import { renderRetiredMessage } from "#lib/channels/gchat/gchat-render.ts";
import { retiredPost } from "#lib/channels/mattermost/mattermost-render.ts";
import { replies, waitingForMoreText } from "#lib/channels/replies.ts";
import { renderRetiredText as slackRetired } from "#lib/channels/slack/slack-render.ts";
import { renderRetiredCard } from "#lib/channels/teams/teams-render.ts";
import type { TelegramApi } from "#lib/channels/telegram/telegram-api.ts";
import { createTelegramChannel } from "#lib/channels/telegram/telegram-channel.ts";
import { renderRetiredText as telegramRetired } from "#lib/channels/telegram/telegram-render.ts";
import type { Telemetry } from "#lib/telemetry/telemetry.ts";
import { questionRecord } from "../../support/records.ts";
import { deployTarget } from "../questions/fixtures.ts";

const BOB = "telegram:43";
const CAROL = "telegram:44";

/** Quorum 2 of the owner, Bob and Carol: Bob answered, then Carol skipped (the newest vote). */
const record = questionRecord({
  questions: [deployTarget],
  quorum: 2,
  answerers: [
    { owner: "telegram:42", fromMs: 0 },
    { owner: BOB, fromMs: 0 },
    { owner: CAROL, fromMs: 0 },
  ],
  votes: [
    { by: BOB, answers: { [deployTarget.id]: ["Production"] }, atMs: 1 },
    { by: CAROL, answers: {}, atMs: 2, skipped: true },
  ],
  deliveries: [
    { channel: "telegram", chatId: "43", messageId: "7", privateTo: BOB },
    { channel: "telegram", chatId: "44", messageId: "8", privateTo: CAROL },
  ],
});
/** The sentence without its full stop, which Markdown platforms escape. */
const WAITING = waitingForMoreText(1).slice(0, -1);

describe("a voter's retired copy", () => {
  it("says what its own voter did, when several voters' copies are retired at once", async () => {
    const edits: Record<string, unknown>[] = [];
    const api = {
      async call(_method: string, body: Record<string, unknown>) {
        edits.push(body);
        return {};
      },
    } as unknown as TelegramApi;
    const handle = createHandleQuestionChange({
      events: { publish: async () => {} },
      settle: async () => {},
      timers: { start: async () => {}, stop: async () => {} },
      channels: new Map([["telegram", createTelegramChannel(api)]]),
      telemetry: { failed: () => {} } as unknown as Telemetry,
    } as unknown as Parameters<typeof createHandleQuestionChange>[0]);
    await handle({ kind: "voted", record, voters: [BOB, CAROL] });
    const textIn = (chat: string) => edits.find((e) => e.chat_id === chat)?.text as string;
    expect(textIn("43")).toContain(WAITING);
    expect(textIn("43")).not.toContain(replies.abstained);
    expect(textIn("44")).toContain(replies.abstained);
  });

  it("is rendered with its voter's sentence on every platform", () => {
    const renders: [string, (voter: string) => unknown][] = [
      ["telegram", (voter) => telegramRetired(record, voter)],
      ["slack", (voter) => slackRetired(record, voter)],
      ["mattermost", (voter) => retiredPost(record, voter)],
      ["discord", (voter) => retiredContent(record, voter)],
      ["gchat", (voter) => renderRetiredMessage(record, voter)],
      ["teams", (voter) => renderRetiredCard(record, voter)],
    ];
    for (const [platform, render] of renders) {
      const bobs = JSON.stringify(render(BOB));
      expect(bobs, platform).toContain(WAITING);
      expect(bobs, platform).not.toContain("You skipped");
      expect(JSON.stringify(render(CAROL)), platform).toContain("You skipped this question");
    }
  });
});
