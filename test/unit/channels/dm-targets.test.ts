/**
 * Slack and Discord decide from what the platform says whether a target is the bot's one-to-one
 * conversation with the person a question is posted for — only there does the copy carry that person's
 * answer link — and fail closed: anything unconfirmed is posted as in a shared conversation.
 */
import { describe, expect, it } from "vitest";
import type { DiscordApi } from "#lib/channels/discord/discord-api.ts";
import { createDiscordChannel } from "#lib/channels/discord/discord-channel.ts";
import { PlatformApiError } from "#lib/channels/platform-api-error.ts";
import type { SlackApi } from "#lib/channels/slack/slack-api.ts";
import { createSlackChannel } from "#lib/channels/slack/slack-channel.ts";
import type { QuestionRecord } from "#lib/questions/question-record.ts";
import type { AnswerLinks } from "#lib/web/answer-link.ts";
import { deployTarget } from "../questions/fixtures.ts";

const record = (owner: string): QuestionRecord => ({
  id: "ask_1",
  status: "pending",
  questions: [deployTarget],
  owner,
  deliveries: [],
  createdAtMs: 0,
  expiresAtMs: 600_000,
});
/** Why a conversation could not be confirmed private, as the channels reported it (channel, message). */
const unconfirmed: [string, unknown][] = [];
/** Each answerer's link names them, so a test sees whose link a copy shows. */
const links: AnswerLinks = {
  isOn: async () => true,
  urlFor: async (question, answerer = question.owner) => `https://x.test/${question.id}/${answerer}`,
};
/** What a channel tells the operator when it could not confirm a conversation private, recorded. */
const privacyUnconfirmed = (channel: string) => (error: unknown) =>
  unconfirmed.push([channel, (error as Error).message]);

describe("Slack: the app's DM with the answerer", () => {
  const OWNER = "slack:T1:U1";
  /** A fake Slack: IM D1 is with U1, D2 with U2, D9 errors; every call is recorded. */
  function slack(failing = new Set(["D9"])) {
    const calls: [string, Record<string, unknown>][] = [];
    const ims: Record<string, string> = { D1: "U1", D2: "U2" };
    const api: SlackApi = {
      call: async (method, params) => {
        calls.push([method, params]);
        if (method === "conversations.info") {
          const id = String(params.channel);
          if (failing.has(id)) throw new PlatformApiError("slack", method, 200, "missing_scope");
          const user = ims[id];
          return { ok: true, channel: user ? { id, is_im: true, user } : { id, is_im: false } } as never;
        }
        const channel = String(params.channel);
        return {
          ok: true,
          channel: channel.startsWith("U") ? `D${channel.slice(1)}` : channel,
          ts: "1.1",
        } as never;
      },
    };
    const posted = () => calls.filter(([method]) => method === "chat.postMessage").map(([, p]) => p);
    const lookups = () =>
      calls.filter(([method]) => method === "conversations.info").map(([, p]) => p.channel);
    return { channel: createSlackChannel(api, links, privacyUnconfirmed("slack")), posted, lookups };
  }
  const browserOf = (params: Record<string, unknown> | undefined) =>
    ((params?.blocks ?? []) as { type: string; elements?: Record<string, unknown>[] }[])
      .flatMap((block) => block.elements ?? [])
      .find((element) => (element.text as { text?: string } | undefined)?.text === "Answer in browser");

  it("its own user id as the target, or an IM Slack names them in: their link, and the copy says whose", async () => {
    const { channel, posted, lookups } = slack();
    const byId = await channel.deliver(record(OWNER), { channel: "slack", chatId: "U1" }, OWNER);
    expect(byId).toMatchObject({ chatId: "D1", privateTo: OWNER });
    expect(browserOf(posted()[0])?.url).toBe(`https://x.test/ask_1/${OWNER}`);
    expect(lookups()).toEqual([]);
    // An escalation owner's own IM: their link, not the owner's.
    const escalated = await channel.deliver(record(OWNER), { channel: "slack", chatId: "D2" }, "slack:T1:U2");
    expect(escalated.privateTo).toBe("slack:T1:U2");
    expect(browserOf(posted()[1])?.url).toBe("https://x.test/ask_1/slack:T1:U2");
  });

  it("an IM is looked up once: it stays the same person's", async () => {
    const { channel, lookups } = slack();
    for (let i = 0; i < 3; i++) {
      expect(
        (await channel.deliver(record(OWNER), { channel: "slack", chatId: "D1" }, OWNER)).privateTo,
      ).toBe(OWNER);
    }
    expect(lookups()).toEqual(["D1"]);
  });

  it("anything else gets the control and no privateTo: a channel, someone else's IM or user id, an IM Slack does not confirm, an answerer not of Slack", async () => {
    const { channel, posted, lookups } = slack();
    const cases: [string, string][] = [
      ["C1", OWNER],
      ["D2", OWNER],
      ["U2", OWNER],
      ["D9", OWNER],
      ["D1", "web:ann"],
      ["D1", "discord:1"],
    ];
    for (const [chatId, answerer] of cases) {
      const delivery = await channel.deliver(record(OWNER), { channel: "slack", chatId }, answerer);
      expect(delivery, chatId).not.toHaveProperty("privateTo");
    }
    for (const params of posted()) {
      expect(browserOf(params)).toMatchObject({ action_id: "w|0|0|ask_1" });
      expect(JSON.stringify(params)).not.toContain("https://x.test");
    }
    // Only the IMs were looked up; the failed lookup is not remembered, and fails closed again — reported
    // each time, so an operator sees why every copy is shared (here: a missing scope).
    expect(lookups()).toEqual(["D2", "D9"]);
    unconfirmed.length = 0;
    await channel.deliver(record(OWNER), { channel: "slack", chatId: "D9" }, OWNER);
    expect(lookups()).toEqual(["D2", "D9", "D9"]);
    expect(unconfirmed).toEqual([["slack", "slack conversations.info failed: missing_scope"]]);
  });
});

describe("Discord: the bot's DM with the answerer", () => {
  const OWNER = "discord:11";
  /** A fake Discord: 1 is a DM with user 11, 2 a DM with 22, 3 a group DM, 4 a guild channel, 9 fails. */
  function discord() {
    const calls: { method: string; path: string; body?: unknown }[] = [];
    const channels: Record<string, unknown> = {
      "1": { id: "1", type: 1, recipients: [{ id: "11" }] },
      "2": { id: "2", type: 1, recipients: [{ id: "22" }] },
      "3": { id: "3", type: 3, recipients: [{ id: "11" }, { id: "22" }] },
      "4": { id: "4", type: 0, guild_id: "7" },
    };
    const api: DiscordApi = {
      request: async (method, path, body) => {
        calls.push({ method, path, body });
        if (method === "POST") return { id: "100" } as never;
        const id = path.split("/")[2] ?? "";
        if (!(id in channels))
          throw new PlatformApiError("discord", "GET /channels/{id}", 404, "Unknown Channel");
        return channels[id] as never;
      },
    };
    const reads = () => calls.filter((c) => c.method === "GET").map((c) => c.path);
    const posted = () => calls.filter((c) => c.method === "POST").map((c) => c.body);
    return { channel: createDiscordChannel(api, links, privacyUnconfirmed("discord")), reads, posted };
  }
  const browserOf = (body: unknown) =>
    ((body as { components: { components: Record<string, unknown>[] }[] }).components ?? [])
      .flatMap((row) => row.components)
      .find((c) => c.label === "Answer in browser");

  it("a DM (type 1) whose one recipient is the answerer: their link, and the copy says whose", async () => {
    const { channel, posted, reads } = discord();
    const delivery = await channel.deliver(record(OWNER), { channel: "discord", chatId: "1" }, OWNER);
    expect(delivery).toMatchObject({ chatId: "1", messageId: "100", privateTo: OWNER });
    expect(browserOf(posted()[0])).toEqual({
      type: 2,
      style: 5,
      label: "Answer in browser",
      url: `https://x.test/ask_1/${OWNER}`,
    });
    expect(reads()).toEqual(["/channels/1"]);
    // The escalation owner's DM: their link.
    const escalated = await channel.deliver(record(OWNER), { channel: "discord", chatId: "2" }, "discord:22");
    expect(escalated.privateTo).toBe("discord:22");
    expect(browserOf(posted()[1])?.url).toBe("https://x.test/ask_1/discord:22");
  });

  it("what Discord described is remembered (a channel's kind never changes); a failed read is not", async () => {
    const { channel, reads } = discord();
    for (const chatId of ["1", "4", "9", "1", "4", "9"]) {
      await channel.deliver(record(OWNER), { channel: "discord", chatId }, OWNER);
    }
    expect(reads()).toEqual(["/channels/1", "/channels/4", "/channels/9", "/channels/9"]);
  });

  it("anything else gets the button and no privateTo: someone else's DM, a group DM, a guild channel, a channel Discord does not describe, an answerer not of Discord", async () => {
    const { channel, posted } = discord();
    const cases: [string, string][] = [
      ["2", OWNER],
      ["3", OWNER],
      ["4", OWNER],
      ["9", OWNER],
      ["1", "slack:T1:U1"],
    ];
    unconfirmed.length = 0;
    for (const [chatId, answerer] of cases) {
      const delivery = await channel.deliver(record(OWNER), { channel: "discord", chatId }, answerer);
      expect(delivery, chatId).not.toHaveProperty("privateTo");
    }
    // The channel Discord did not describe was reported; the others were answers, not failures.
    expect(unconfirmed.map(([platform]) => platform)).toEqual(["discord"]);
    for (const body of posted()) {
      expect(browserOf(body)).toEqual({
        type: 2,
        style: 2,
        label: "Answer in browser",
        custom_id: "w|0|0|ask_1",
      });
      expect(JSON.stringify(body)).not.toContain("https://x.test");
    }
  });
});
