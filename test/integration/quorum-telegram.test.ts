/**
 * Several people decide, through Telegram (docs/api.md, "Several people decide"): each person answerer gets
 * their own copy, a group its shared one; a group member's tap answers (or votes) and is named in
 * `resolvedBy`; a vote that does not close is told how many more it waits for, a second one is refused.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FakePlatform } from "./support/fake-platform.ts";
import { singleQuestion, unique } from "./support/sample-questions.ts";
import {
  BOT_ID,
  startFakeTelegram,
  tapUpdate,
  telegramSettings,
  textUpdate,
  webhookRequest,
} from "./support/telegram-fake.ts";
import { posted, startTestStack, type TestStack, waitFor } from "./support/test-stack.ts";

const OWNER = 42;
const BOB = 43;
const GROUP = -1009000000001;

let stack: TestStack;
let telegram: FakePlatform;

beforeAll(async () => {
  telegram = await startFakeTelegram();
  stack = await startTestStack(telegramSettings(telegram));
});
afterAll(async () => {
  await stack?.stop();
  await telegram?.stop();
});
beforeEach(async () => {
  // What an earlier test's changes set going on the stream (copies retired) ends before this one counts.
  await stack.streamsDrained();
  telegram.calls.length = 0;
});

/** Asks over the API with `overrides`; the question's id once every copy is recorded. */
async function ask(overrides: Record<string, unknown>, copies: number): Promise<string> {
  const id = unique("tgq");
  const created = await stack.api("POST", "/questions", {
    id,
    questions: [singleQuestion],
    owner: `telegram:${OWNER}`,
    deliverTo: [{ channel: "telegram", chatId: String(OWNER) }],
    ...overrides,
  });
  expect(created.status).toBe(201);
  await waitFor(
    async () => posted((await stack.api("GET", `/questions/${id}`)).body.question) >= copies || undefined,
    { what: "every copy posted" },
  );
  return id;
}

/** The message id of the copy posted in `chatId`. */
async function copyIn(id: string, chatId: number): Promise<number> {
  const { question } = (await stack.api("GET", `/questions/${id}`)).body;
  const copy = question.deliveries.find((d: { chatId: string }) => d.chatId === String(chatId));
  return Number(copy.messageId);
}

/** A tap on a control of the copy `messageId` in `chatId` by user `from`; the alert it was answered with. */
async function tap(data: string, messageId: number, from: number, chatId: number) {
  const update = tapUpdate(data, messageId, { chatId, from });
  const response = await fetch(`${stack.httpUrl}/webhooks/telegram`, {
    method: "POST",
    ...webhookRequest(update),
  });
  expect(response.status).toBe(200);
  return telegram
    .callsTo("answerCallbackQuery")
    .find((c) => c.body.callback_query_id === update.callback_query.id)?.body.text as string | undefined;
}

/** Option `n` of the first question (a tap on its button). */
const option = (id: string, n: number) => `o|0|${n}|${id}`;

describe("answerers through Telegram", () => {
  it("each person gets their own copy, a group one shared copy", async () => {
    const id = await ask(
      {
        answerers: [
          { owner: `telegram:${BOB}`, deliverTo: [{ channel: "telegram", chatId: String(BOB) }] },
          { group: { channel: "telegram", chatId: String(GROUP) } },
        ],
      },
      3,
    );
    const chats = telegram.callsTo("sendMessage").map((c) => String(c.body.chat_id));
    expect(chats.sort()).toEqual([String(OWNER), String(BOB), String(GROUP)].sort());
    const { question } = (await stack.api("GET", `/questions/${id}`)).body;
    expect(question.answerers).toEqual([
      { owner: `telegram:${OWNER}`, fromMs: question.createdAtMs },
      { owner: `telegram:${BOB}`, fromMs: question.createdAtMs },
      { group: { channel: "telegram", chatId: String(GROUP) }, fromMs: question.createdAtMs },
    ]);
  });

  it("a group the owner's targets already post to gets no second copy", async () => {
    await ask(
      {
        deliverTo: [{ channel: "telegram", chatId: String(GROUP) }],
        answerers: [{ group: { channel: "telegram", chatId: String(GROUP) } }],
      },
      1,
    );
    expect(telegram.callsTo("sendMessage").map((c) => String(c.body.chat_id))).toEqual([String(GROUP)]);
  });

  it("quorum 1 with a group: a member's tap in the group closes it, resolvedBy names the member", async () => {
    const id = await ask({ answerers: [{ group: { channel: "telegram", chatId: String(GROUP) } }] }, 2);
    const member = 77;
    expect(await tap(option(id, 1), await copyIn(id, GROUP), member, GROUP)).toBe("Got it.");
    const { question } = (await stack.api("GET", `/questions/${id}`)).body;
    expect(question).toMatchObject({ status: "answered", resolvedBy: `telegram:${member}` });
  });

  it("a group member's tap on the owner's own copy elsewhere is refused: the group counts only in the group", async () => {
    const id = await ask({ answerers: [{ group: { channel: "telegram", chatId: String(GROUP) } }] }, 2);
    const otherGroup = -1009000000002;
    expect(await tap(option(id, 1), await copyIn(id, GROUP), 77, otherGroup)).toBe(
      "This question is not yours to answer.",
    );
    expect((await stack.api("GET", `/questions/${id}`)).body.question.status).toBe("pending");
  });

  it("the requester is refused even as a group member", async () => {
    const id = await ask(
      { answerers: [{ group: { channel: "telegram", chatId: String(GROUP) } }], requestedBy: "telegram:77" },
      2,
    );
    expect(await tap(option(id, 1), await copyIn(id, GROUP), 77, GROUP)).toBe(
      "You asked for this; someone else must answer.",
    );
    expect((await stack.api("GET", `/questions/${id}`)).body.question.status).toBe("pending");
  });

  it("quorum 2 with a group: a member's vote is kept and told how many more; a second is refused", async () => {
    const id = await ask(
      { answerers: [{ group: { channel: "telegram", chatId: String(GROUP) } }], quorum: 2 },
      2,
    );
    const groupCopy = await copyIn(id, GROUP);
    expect(await tap(option(id, 1), groupCopy, 77, GROUP)).toBe(
      "Your answer is recorded — waiting for 1 more.",
    );
    expect(await tap(option(id, 0), groupCopy, 77, GROUP)).toBe("You have already answered.");
    // The group's shared copy keeps its buttons for the other members.
    expect(telegram.callsTo("editMessageText")).toEqual([]);
    expect(telegram.callsTo("editMessageReplyMarkup")).toEqual([]);
    let { question } = (await stack.api("GET", `/questions/${id}`)).body;
    expect(question.status).toBe("pending");
    expect(question.votes).toMatchObject([
      { by: "telegram:77", answers: { [singleQuestion.id]: ["Production"] } },
    ]);

    // The owner, in their own chat, agrees: two of them now, so it closes with the last voter named.
    expect(await tap(option(id, 1), await copyIn(id, OWNER), OWNER, OWNER)).toBe("Got it.");
    ({ question } = (await stack.api("GET", `/questions/${id}`)).body);
    expect(question).toMatchObject({ status: "answered", resolvedBy: `telegram:${OWNER}` });
    expect(question.votes.map((v: { by: string }) => v.by)).toEqual(["telegram:77", `telegram:${OWNER}`]);

    // Every copy of every answerer is retired: the group's and the owner's, each without buttons.
    await stack.streamsDrained();
    const edits = telegram.callsTo("editMessageText");
    expect(edits.map((e) => String(e.body.chat_id)).sort()).toEqual([String(OWNER), String(GROUP)].sort());
    for (const edit of edits) expect(edit.body.reply_markup).toEqual({ inline_keyboard: [] });
  });

  it("a person's vote in their own chat retires their own copy only, saying how many more are needed", async () => {
    const id = await ask(
      {
        answerers: [
          { owner: `telegram:${BOB}`, deliverTo: [{ channel: "telegram", chatId: String(BOB) }] },
          { owner: "web:carol" },
        ],
        quorum: 2,
      },
      2,
    );
    expect(await tap(option(id, 0), await copyIn(id, BOB), BOB, BOB)).toBe(
      "Your answer is recorded — waiting for 1 more.",
    );
    // The webhook edits the tapped copy before it answers the tap; the stream's edit of the voter's copies
    // (at once or a moment later) is the same edit.
    expect(telegram.callsTo("editMessageText").length).toBeGreaterThan(0);
    await stack.streamsDrained();
    const edits = telegram.callsTo("editMessageText");
    expect(new Set(edits.map((e) => String(e.body.chat_id)))).toEqual(new Set([String(BOB)]));
    for (const edit of edits) {
      expect(edit.body.reply_markup).toEqual({ inline_keyboard: [] });
      expect(edit.body.text).toContain("Your answer is recorded — waiting for 1 more.");
    }
    expect((await stack.api("GET", `/questions/${id}`)).body.question.status).toBe("pending");
  });

  it("a vote over the API is its key's, no person's: every copy keeps its buttons, and the person named still votes", async () => {
    const id = await ask(
      {
        answerers: [
          { owner: `telegram:${BOB}`, deliverTo: [{ channel: "telegram", chatId: String(BOB) }] },
          { group: { channel: "telegram", chatId: String(GROUP) } },
        ],
        quorum: 2,
      },
      3,
    );
    const voted = await stack.api("POST", `/questions/${id}/answer`, {
      answers: { [singleQuestion.id]: [singleQuestion.options[1]?.label] },
      resolvedBy: `telegram:${BOB}`,
    });
    expect(voted.status).toBe(202);
    expect(voted.body.votes).toMatchObject([{ by: `api:telegram:${BOB}`, key: "default" }]);
    await stack.streamsDrained();
    expect(telegram.callsTo("editMessageText")).toHaveLength(0);
    expect(telegram.callsTo("editMessageReplyMarkup")).toHaveLength(0);
    // Bob's own vote is his, beside the key's: agreeing, it closes the question.
    await tap(`o|0|1|${id}`, await copyIn(id, BOB), BOB, BOB);
    const { question } = (await stack.api("GET", `/questions/${id}`)).body;
    expect(question).toMatchObject({ status: "answered", resolvedBy: `telegram:${BOB}` });
    expect(question.votes.map((v: { by: string }) => v.by)).toEqual([
      `api:telegram:${BOB}`,
      `telegram:${BOB}`,
    ]);
  });

  it("Skip is a person's abstention: with two people and quorum 2 it leaves no quorum at once", async () => {
    const id = await ask(
      {
        answerers: [{ owner: `telegram:${BOB}`, deliverTo: [{ channel: "telegram", chatId: String(BOB) }] }],
        quorum: 2,
      },
      2,
    );
    expect(await tap(`s|0|0|${id}`, await copyIn(id, BOB), BOB, BOB)).toBe(
      "No agreement: not enough answers could agree.",
    );
    const { question } = (await stack.api("GET", `/questions/${id}`)).body;
    expect(question).toMatchObject({ status: "no_quorum", resolvedBy: `telegram:${BOB}` });
    expect(question.votes).toMatchObject([{ by: `telegram:${BOB}`, answers: {}, skipped: true }]);
    await stack.streamsDrained();
    const edits = telegram.callsTo("editMessageText");
    expect(edits.map((e) => String(e.body.chat_id)).sort()).toEqual([String(OWNER), String(BOB)].sort());
    for (const edit of edits) {
      expect(edit.body.reply_markup).toEqual({ inline_keyboard: [] });
      expect(edit.body.text).toContain("No agreement: not enough answers could agree.");
    }
  });

  it("only the owner cancels the whole question; another answerer's /cancel changes nothing", async () => {
    const id = await ask(
      {
        answerers: [{ owner: `telegram:${BOB}`, deliverTo: [{ channel: "telegram", chatId: String(BOB) }] }],
        quorum: 2,
      },
      2,
    );
    await command("/cancel", BOB, await copyIn(id, BOB));
    expect((await stack.api("GET", `/questions/${id}`)).body.question.status).toBe("pending");
    await command("/cancel", OWNER, await copyIn(id, OWNER));
    expect((await stack.api("GET", `/questions/${id}`)).body.question).toMatchObject({
      status: "cancelled",
      resolvedBy: `telegram:${OWNER}`,
    });
  });
});

/** `/cancel` sent by `from` in their private chat, as a reply to their copy. */
async function command(text: string, from: number, replyTo: number) {
  const update = textUpdate(text, {
    chatId: from,
    chatType: "private",
    from,
    replyTo,
    replyToFrom: { id: BOT_ID, is_bot: true },
    entities: [{ type: "bot_command", offset: 0, length: text.length }],
  });
  const response = await fetch(`${stack.httpUrl}/webhooks/telegram`, {
    method: "POST",
    ...webhookRequest(update),
  });
  expect(response.status).toBe(200);
}
