/**
 * Several people decide, in process (test/support/in-process-stack.ts) with Telegram: what no DynamoDB wire is
 * needed for — a vote given up on as busy, each person's own stepper, a person answerer's typed reply in their
 * private chat, a non-owner's /cancel, and an abstention (its sentence, and its copies retired through the
 * table stream's filter, which the stack applies as serverless.yml states it).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MAX_VOTE_ATTEMPTS } from "#lib/app/resolve-question.ts";
import { replies } from "#lib/channels/replies.ts";
import { jsonBytes } from "#lib/questions/record-budget.ts";
import { MAX_DRAFTS_BYTES, MAX_VOTES_BYTES } from "#lib/questions/schema.ts";
import { answerPath, type LinkQuestion, signAnswerLink } from "#lib/web/answer-link.ts";
import { type InProcessStack, startInProcessStack } from "../support/in-process-stack.ts";
import type { FakePlatform, RecordedCall } from "./support/fake-platform.ts";
import { answerThroughLinkInProcess, linkPath } from "./support/link-answer.ts";
import { multiQuestion, noteQuestion, singleQuestion, unique } from "./support/sample-questions.ts";
import {
  buttons,
  OWNER_ID,
  startFakeTelegram,
  tapUpdate,
  telegramSettings,
  textUpdate,
  webhookRequest,
} from "./support/telegram-fake.ts";

const LINK_SECRET = "quorum-in-process-link-secret-4Hq8s1mWc0yPf7kR";
const BOB = 43;

let stack: InProcessStack;
let telegram: FakePlatform;

beforeAll(async () => {
  telegram = await startFakeTelegram();
  stack = await startInProcessStack({ ...telegramSettings(telegram), HANDRAISE_LINK_SECRET: LINK_SECRET });
});
afterAll(async () => {
  await stack?.stop();
  await telegram?.stop();
});
beforeEach(() => {
  telegram.calls.length = 0;
});
afterEach(() => stack.settled());

/** What the bot last sent to `chat` as a message. */
const lastSentTo = (chat: number) =>
  telegram
    .callsTo("sendMessage")
    .filter((call) => String(call.body.chat_id) === String(chat))
    .at(-1)?.body.text as string | undefined;

/** The question as the API reads it. */
const read = async (id: string) => (await stack.api("GET", `/questions/${id}`)).body.question;

/**
 * A question for the owner and bob (user `bob`), each in their private chat with the bot, decided by both
 * agreeing. A test whose bob types a line replying to nothing gives a bob of its own: such a line goes to the
 * oldest question pending for him there, and other tests leave theirs pending.
 */
async function askBoth(questions: unknown[] = [singleQuestion], bobId = 43, quorum = 2) {
  const id = unique("qip");
  const created = await stack.api("POST", "/questions", {
    id,
    questions,
    owner: `telegram:${OWNER_ID}`,
    deliverTo: [{ channel: "telegram", chatId: String(OWNER_ID) }],
    answerers: [{ owner: `telegram:${bobId}`, deliverTo: [{ channel: "telegram", chatId: String(bobId) }] }],
    quorum,
  });
  expect(created.status).toBe(201);
  const posts = telegram.callsTo("sendMessage");
  const postTo = (chat: number) => {
    const post = posts.find((call) => String(call.body.chat_id) === String(chat));
    if (!post) throw new Error(`no copy in chat ${chat}`);
    return post;
  };
  const { deliveries } = await read(id);
  const messageIn = (chat: number) =>
    Number(deliveries.find((d: { chatId: string }) => d.chatId === String(chat))?.messageId);
  return {
    id,
    owner: { post: postTo(OWNER_ID), messageId: messageIn(OWNER_ID) },
    bob: { post: postTo(bobId), messageId: messageIn(bobId) },
  };
}

/** Sends a Telegram update to the webhook; the text its callback query was answered with, if any. */
async function send(update: ReturnType<typeof tapUpdate> | ReturnType<typeof textUpdate>) {
  const response = await stack.request("POST", "/webhooks/telegram", webhookRequest(update));
  expect(response.status, response.text).toBe(200);
  if (!("callback_query" in update)) return undefined;
  return telegram
    .callsTo("answerCallbackQuery")
    .find((call) => call.body.callback_query_id === update.callback_query.id)?.body.text as
    | string
    | undefined;
}

/** Bob's own answer link to `question`, on the deployment's public URL, as his copies carry it. */
function bobsLink(question: LinkQuestion): string {
  const answerer = `telegram:${BOB}`;
  const sig = signAnswerLink(LINK_SECRET, { id: question.id, answerer, expiresAtMs: question.expiresAtMs });
  return `https://handraise.test${answerPath(question, answerer, sig)}`;
}

/** Skip pressed on the page of the link `url` (the page's form, as a browser posts it). */
function skipThroughLink(url: string) {
  const sig = new URL(url).searchParams.get("sig") ?? "";
  return stack.request("POST", linkPath(url), {
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ sig, action: "skip" }).toString(),
  });
}

/** The callback data of a copy's first option button. */
const firstOption = (post: RecordedCall) => buttons(post)[0]?.callback_data ?? "";

describe("a vote that keeps losing to other votes", () => {
  it("is refused as retryable on the API, the page and in chat, changing nothing, and counts when sent again", async () => {
    const { id, bob } = await askBoth();
    const question = await read(id);
    // Every counting write finds that another vote landed first, as under a crowd of simultaneous votes.
    const vote = stack.store.vote;
    let tries = 0;
    stack.store.vote = async (questionId, _votes, _seen, nowMs) => {
      tries++;
      const current = await stack.store.get(questionId, nowMs);
      if (!current) throw new Error("no question");
      return { kind: "stale", record: current };
    };
    try {
      const api = await stack.api("POST", `/questions/${id}/answer`, {
        answers: { [singleQuestion.id]: [singleQuestion.options[0]?.label] },
        resolvedBy: `telegram:${BOB}`,
      });
      expect(api.status).toBe(503);
      expect(api.body.error.code).toBe("VOTES_BUSY");
      expect(api.headers["retry-after"]).toBe("1");
      expect(tries).toBe(MAX_VOTE_ATTEMPTS);

      const page = await answerThroughLinkInProcess(stack, bobsLink(question), { [singleQuestion.id]: "0" });
      expect(page.status).toBe(503);
      expect(page.headers["retry-after"]).toBe("1");
      expect(page.text).toContain("Many answers are arriving at once, so yours was not counted.");

      const tapped = await send(tapUpdate(firstOption(bob.post), bob.messageId, { chatId: BOB, from: BOB }));
      expect(tapped).toBe(replies.tryAgain);
      expect(await read(id)).toMatchObject({ status: "pending", votes: [] });
    } finally {
      stack.store.vote = vote;
    }
    const again = await send(tapUpdate(firstOption(bob.post), bob.messageId, { chatId: BOB, from: BOB }));
    expect(again).toBe("Your answer is recorded — waiting for 1 more.");
    expect((await read(id)).votes).toMatchObject([{ by: `telegram:${BOB}` }]);
  });
});

describe("a write DynamoDB refuses for the item's size", () => {
  /** What DynamoDB (and the in-memory store) throws for an item over 400 KB. */
  const tooLarge = () =>
    Object.assign(new Error("Item size has exceeded the maximum allowed size"), {
      name: "ValidationException",
    });

  it("is a full question, not a fault: a vote over the API and a chat step are refused, nothing changed", async () => {
    const { id, bob } = await askBoth([singleQuestion, noteQuestion]);
    const before = await read(id);
    // Others' drafts written at the same moment left the item no room: every write of this one is refused.
    const { vote, saveDraft } = stack.store;
    stack.store.vote = async () => Promise.reject(tooLarge());
    stack.store.saveDraft = async () => Promise.reject(tooLarge());
    try {
      const api = await stack.api("POST", `/questions/${id}/answer`, {
        answers: { [singleQuestion.id]: ["Production"], [noteQuestion.id]: ["ok"] },
        resolvedBy: `telegram:${BOB}`,
      });
      expect(api.status).toBe(413);
      expect(api.body.error.code).toBe("VOTES_FULL");
      const tapped = await send(tapUpdate(`o|0|1|${id}`, bob.messageId, { chatId: BOB, from: BOB }));
      expect(tapped).toBe(replies.full);
    } finally {
      Object.assign(stack.store, { vote, saveDraft });
    }
    expect(await read(id)).toEqual(before);
  });
});

describe("/cancel from an answerer who is not the owner", () => {
  it("is told only the owner cancels, in a sentence of its own, and changes nothing", async () => {
    const { id, bob } = await askBoth();
    await send(
      textUpdate("/cancel", { chatId: BOB, from: BOB, chatType: "private", replyTo: bob.messageId }),
    );
    expect(lastSentTo(BOB)).toBe("Only the question's owner can cancel it; you can skip it instead.");
    expect(await read(id)).toMatchObject({ status: "pending", votes: [] });
  });

  it("with quorum 1, someone who skipped does not answer afterwards through their link either", async () => {
    const { id, bob } = await askBoth([singleQuestion], 43, 1);
    const question = await read(id);
    await send(tapUpdate(`s|0|0|${id}`, bob.messageId, { chatId: BOB, from: BOB }));
    expect((await read(id)).votes).toMatchObject([{ by: `telegram:${BOB}`, skipped: true }]);
    const page = await answerThroughLinkInProcess(stack, bobsLink(question), { [singleQuestion.id]: "0" });
    expect(page.status, page.text).toBe(409);
    expect(page.text).toContain("You have already answered.");
    expect(await read(id)).toMatchObject({ status: "pending" });
  });

  it("with the first answer closing (quorum 1) too: one answerer cannot take it from the others", async () => {
    const { id, bob } = await askBoth([singleQuestion], 43, 1);
    await send(
      textUpdate("/cancel", { chatId: BOB, from: BOB, chatType: "private", replyTo: bob.messageId }),
    );
    expect(lastSentTo(BOB)).toBe("Only the question's owner can cancel it; you can skip it instead.");
    expect(await read(id)).toMatchObject({ status: "pending" });
  });
});

describe("an abstention on a question the first answer closes (quorum 1, several people)", () => {
  it("takes the controls off the abstainer's own copies, skipped anywhere; the owner's copy keeps them", async () => {
    const { id, bob } = await askBoth([singleQuestion], 43, 1);
    await stack.settled();
    telegram.calls.length = 0;
    // Skipped on the page, so only the table's stream can reach Bob's Telegram copy.
    const skipped = await skipThroughLink(bobsLink(await read(id)));
    expect(skipped.status, skipped.text).toBe(303);
    await stack.settled();
    expect(await read(id)).toMatchObject({
      status: "pending",
      votes: [{ by: `telegram:${BOB}`, skipped: true }],
    });
    const edits = telegram.callsTo("editMessageText");
    expect(edits.map((edit) => [String(edit.body.chat_id), edit.body.message_id])).toEqual([
      [String(BOB), bob.messageId],
    ]);
    expect(edits[0]?.body.reply_markup).toEqual({ inline_keyboard: [] });
    expect(edits[0]?.body.text).toContain(replies.abstained);
    // The page says the same, not how many more answers it waits for.
    const page = await stack.request("GET", linkPath(bobsLink(await read(id))));
    expect(page.status).toBe(200);
    expect(page.text).toContain("You skipped this question; the others can still answer.");
    expect(page.text).not.toContain("waiting for");
  });

  it("a Skip in chat is told it was kept as the person's abstention, not that it waits for more", async () => {
    for (const quorum of [1, 2]) {
      const carol = { owner: "web:carol" };
      const id = unique("qab");
      const created = await stack.api("POST", "/questions", {
        id,
        questions: [singleQuestion],
        owner: `telegram:${OWNER_ID}`,
        deliverTo: [{ channel: "telegram", chatId: String(OWNER_ID) }],
        answerers: [
          { owner: `telegram:${BOB}`, deliverTo: [{ channel: "telegram", chatId: String(BOB) }] },
          carol,
        ],
        quorum,
      });
      expect(created.status).toBe(201);
      const bobs = (await read(id)).deliveries.find((d: { chatId: string }) => d.chatId === String(BOB));
      telegram.calls.length = 0;
      const told = await send(tapUpdate(`s|0|0|${id}`, Number(bobs.messageId), { chatId: BOB, from: BOB }));
      expect(told, `quorum ${quorum}`).toBe("You skipped this question; the others can still answer.");
      await stack.settled();
      const edit = telegram.callsTo("editMessageText").find((e) => String(e.body.chat_id) === String(BOB));
      expect(edit?.body.text, `quorum ${quorum}`).toContain(replies.abstained);
      expect(await read(id)).toMatchObject({ status: "pending" });
    }
  });
  it("an abstainer who taps again is told they skipped it, not that they answered", async () => {
    const { id, bob } = await askBoth([singleQuestion], 43, 1);
    await send(tapUpdate(`s|0|0|${id}`, bob.messageId, { chatId: BOB, from: BOB }));
    expect((await read(id)).votes).toMatchObject([{ by: `telegram:${BOB}`, skipped: true }]);
    const tapped = await send(tapUpdate(firstOption(bob.post), bob.messageId, { chatId: BOB, from: BOB }));
    expect(tapped).toBe(replies.abstained);
    expect(await read(id)).toMatchObject({ status: "pending", votes: [{ skipped: true }] });
    // Someone whose vote holds answers is told they answered, as before.
    await stack.settled();
    telegram.calls.length = 0;
    const { id: voted, bob: voter } = await askBoth([singleQuestion], 43, 2);
    await send(tapUpdate(firstOption(voter.post), voter.messageId, { chatId: BOB, from: BOB }));
    const again = await send(tapUpdate(firstOption(voter.post), voter.messageId, { chatId: BOB, from: BOB }));
    expect(again).toBe(replies.alreadyAnswered);
    expect((await read(voted)).votes).toHaveLength(1);
  });
});

describe("each person's own stepper", () => {
  /** A tap on option `n` of question `q` of the copy in `chat`, by the person whose private chat it is. */
  const choose = (id: string, copy: { messageId: number }, chat: number, q: number, n: number) =>
    send(tapUpdate(`o|${q}|${n}|${id}`, copy.messageId, { chatId: chat, from: chat }));

  it("one person's choices never show in another's, and each vote is their own", async () => {
    const { id, owner, bob } = await askBoth([singleQuestion, noteQuestion]);
    await choose(id, owner, OWNER_ID, 0, 0);
    const afterOwner = await read(id);
    expect(afterOwner.drafts).toEqual({
      [`telegram:${OWNER_ID}`]: { answers: { [singleQuestion.id]: ["Staging (Recommended)"] }, step: 1 },
    });
    expect(afterOwner.draft).toBeUndefined();

    // Bob's first step: his own choice, shown on his copy at his second step.
    telegram.calls.length = 0;
    await choose(id, bob, BOB, 0, 1);
    const redrawn = telegram.calls.filter((call) => String(call.body.chat_id) === String(BOB));
    expect(redrawn.length).toBeGreaterThan(0);
    expect(JSON.stringify(redrawn.map((call) => call.body))).not.toContain("Staging");

    // Each finishes their own: the owner's vote keeps the owner's first answer, bob's his.
    await choose(id, owner, OWNER_ID, 1, 0);
    await choose(id, bob, BOB, 1, 0);
    const { votes } = await read(id);
    expect(votes).toMatchObject([
      {
        by: `telegram:${OWNER_ID}`,
        answers: {
          [singleQuestion.id]: ["Staging (Recommended)"],
          [noteQuestion.id]: ["Routine (Recommended)"],
        },
      },
      {
        by: `telegram:${BOB}`,
        answers: { [singleQuestion.id]: ["Production"], [noteQuestion.id]: ["Routine (Recommended)"] },
      },
    ]);
  });

  it("the escalation owner's stepper starts at their own first step, not where the owner stopped", async () => {
    const id = unique("qip-esc");
    const escalationOwner = 47;
    const created = await stack.api("POST", "/questions", {
      id,
      questions: [singleQuestion, noteQuestion],
      owner: `telegram:${OWNER_ID}`,
      deliverTo: [{ channel: "telegram", chatId: String(OWNER_ID) }],
      escalate: {
        afterSeconds: 60,
        owner: `telegram:${escalationOwner}`,
        deliverTo: [{ channel: "telegram", chatId: String(escalationOwner) }],
      },
    });
    expect(created.status).toBe(201);
    const { deliveries } = await read(id);
    await choose(id, { messageId: Number(deliveries[0].messageId) }, OWNER_ID, 0, 0);
    await stack.clock.advance(61_000);
    const posted = lastSentTo(escalationOwner) ?? "";
    expect(posted).toContain(singleQuestion.question);
    expect(posted).not.toContain(noteQuestion.question);
    expect((await read(id)).drafts).toEqual({
      [`telegram:${OWNER_ID}`]: { answers: { [singleQuestion.id]: ["Staging (Recommended)"] }, step: 1 },
    });
  });

  it("a question for the owner alone keeps one draft, as before", async () => {
    const id = unique("qip-one");
    const created = await stack.api("POST", "/questions", {
      id,
      questions: [singleQuestion, noteQuestion],
      owner: `telegram:${OWNER_ID}`,
      deliverTo: [{ channel: "telegram", chatId: String(OWNER_ID) }],
    });
    expect(created.status).toBe(201);
    const { deliveries } = await read(id);
    await choose(id, { messageId: Number(deliveries[0].messageId) }, OWNER_ID, 0, 1);
    const question = await read(id);
    expect(question.draft).toEqual({ [singleQuestion.id]: ["Production"] });
    expect(question.step).toBe(1);
    expect(question.drafts).toBeUndefined();
  });
});

describe("a person answerer typing in their own chat with the bot", () => {
  it("a plain line, replying to nothing, answers the question posted to them there", async () => {
    const bobId = 45;
    const { id } = await askBoth([singleQuestion], bobId);
    await send(textUpdate("2", { chatId: bobId, from: bobId, chatType: "private" }));
    const question = await read(id);
    expect(question.status).toBe("pending");
    expect(question.votes).toMatchObject([
      { by: `telegram:${bobId}`, answers: { [singleQuestion.id]: ["Production"] } },
    ]);
  });

  it("/question posts it again there; someone it was not posted to is told nothing waits", async () => {
    const bobId = 46;
    const { id } = await askBoth([singleQuestion], bobId);
    telegram.calls.length = 0;
    await send(textUpdate("/question", { chatId: bobId, from: bobId, chatType: "private" }));
    expect(lastSentTo(bobId)).toContain("Where should it go?");
    expect(
      (await read(id)).deliveries.filter((d: { chatId: string }) => d.chatId === String(bobId)),
    ).toHaveLength(2);

    const stranger = 44;
    await send(textUpdate("/question", { chatId: stranger, from: stranger, chatType: "private" }));
    expect(lastSentTo(stranger)).toBe(replies.nothingWaiting);
  });
});

describe("one vote per person, one per key", () => {
  it("a key's vote naming a person who voted in their chat is the key's own, and the key votes once", async () => {
    const { id, bob } = await askBoth();
    await send(tapUpdate(firstOption(bob.post), bob.messageId, { chatId: BOB, from: BOB }));
    const answer = (resolvedBy: string) =>
      stack.api("POST", `/questions/${id}/answer`, {
        answers: { [singleQuestion.id]: ["Production"] },
        resolvedBy,
      });
    // Never recorded as Bob: a key's vote reads `api:…`, so it can neither pass for nor replace his.
    expect((await answer(`telegram:${BOB}`)).status).toBe(202);
    const again = await answer("telegram:77");
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("ALREADY_ANSWERED");
    expect(await read(id)).toMatchObject({
      status: "pending",
      votes: [{ by: `telegram:${BOB}` }, { by: `api:telegram:${BOB}`, key: "default" }],
    });
    expect((await read(id)).votes).toHaveLength(2);
  });
});

describe("a question whose votes or drafts are at their size budget", () => {
  /** `n` people's votes or drafts of one long own answer each (8 KB of UTF-8 apiece), none agreeing. */
  const longAnswer = (n: number) => ({ [singleQuestion.id]: [`${n} ${"😀".repeat(1990)}`] });
  const crowd = (count: number) => Array.from({ length: count }, (_, n) => `telegram:${9000 + n}`);

  it("refuses one more vote over the API, the page and in chat, changing nothing", async () => {
    const { id, bob } = await askBoth();
    const question = await read(id);
    // Earlier votes a few bytes under the budget (as a group's members might cast them; here laid down at
    // once): the last one padded to it.
    const votes = crowd(8).map((by, n) => ({ by, answers: longAnswer(n), atMs: 1 }));
    const last = { by: "telegram:9999", answers: { x: [""] }, atMs: 1 };
    const room = MAX_VOTES_BYTES - jsonBytes([...votes, last]);
    votes.push({ ...last, answers: { [singleQuestion.id]: ["x".repeat(room - 8)] } });
    expect((await stack.store.vote(id, votes, 0, Date.now())).kind).toBe("recorded");
    const before = await read(id);

    const api = await stack.api("POST", `/questions/${id}/answer`, {
      answers: { [singleQuestion.id]: ["Production"] },
      resolvedBy: `telegram:${BOB}`,
    });
    expect(api.status).toBe(413);
    expect(api.body.error.code).toBe("VOTES_FULL");

    const page = await answerThroughLinkInProcess(stack, bobsLink(question), { [singleQuestion.id]: "0" });
    expect(page.status, page.text).toBe(413);
    expect(page.text).toContain("This question holds as many answers as it can, so yours was not counted.");

    const tapped = await send(tapUpdate(firstOption(bob.post), bob.messageId, { chatId: BOB, from: BOB }));
    expect(tapped).toBe(replies.full);
    expect(await read(id)).toEqual(before);
  });

  it("refuses a chat step that would take the drafts past theirs, changing nothing", async () => {
    const { id, bob } = await askBoth([singleQuestion, noteQuestion]);
    // Drafts filled to a few bytes under the budget: the last one padded to it.
    const drafts: Record<string, { answers: Record<string, string[]>; step: number }> = {};
    for (const [n, person] of crowd(8).entries()) drafts[person] = { answers: longAnswer(n), step: 1 };
    const room =
      MAX_DRAFTS_BYTES - jsonBytes({ ...drafts, "telegram:9999": { answers: { x: [""] }, step: 1 } });
    drafts["telegram:9999"] = { answers: { [singleQuestion.id]: ["x".repeat(room - 8)] }, step: 1 };
    for (const [person, own] of Object.entries(drafts)) {
      const saved = await stack.store.saveDraft(id, own.answers, own.step, Date.now(), person);
      expect(saved.kind).toBe("saved");
    }
    const before = await read(id);
    const tapped = await send(tapUpdate(`o|0|1|${id}`, bob.messageId, { chatId: BOB, from: BOB }));
    expect(tapped).toBe(replies.full);
    expect(await read(id)).toEqual(before);
  });
});

describe("a step on a group's shared copy of a prompt of several questions", () => {
  const GROUP = -1009000000077;
  const MEMBER = 77;

  /** A question for the owner (in their private chat) and the group: its id and the group's copy. */
  async function askWithGroup(questions: unknown[]) {
    const id = unique("qsh");
    const created = await stack.api("POST", "/questions", {
      id,
      questions,
      owner: `telegram:${OWNER_ID}`,
      deliverTo: [{ channel: "telegram", chatId: String(OWNER_ID) }],
      answerers: [{ group: { channel: "telegram", chatId: String(GROUP) } }],
    });
    expect(created.status).toBe(201);
    const { deliveries } = await read(id);
    const shared = Number(deliveries.find((d: { chatId: string }) => d.chatId === String(GROUP))?.messageId);
    return { id, shared };
  }

  it("hands the tapper their own way to answer and leaves the shared message as it is", async () => {
    const { id, shared } = await askWithGroup([singleQuestion, noteQuestion]);
    telegram.calls.length = 0;

    const tap = tapUpdate(`o|0|1|${id}`, shared, { chatId: GROUP, from: MEMBER });
    await send(tap);
    // Their own way in: a t.me link to the bot's private chat, as "Answer in browser" hands it.
    const answered = telegram
      .callsTo("answerCallbackQuery")
      .find((call) => call.body.callback_query_id === tap.callback_query.id);
    expect(answered?.body.url).toMatch(/^https:\/\/t\.me\/HandraiseBot\?start=/);
    // The shared message is not redrawn with the member's choice, and nothing was kept for them.
    const edits = telegram.calls.filter((call) => call.method.startsWith("edit"));
    expect(edits).toEqual([]);
    const after = await read(id);
    expect(after.status).toBe("pending");
    expect(after.drafts ?? {}).toEqual({});
  });

  it("a multi-select toggle on the shared copy hands over too: its ticks would show, and be submitted, for all", async () => {
    const { id, shared } = await askWithGroup([multiQuestion]);
    telegram.calls.length = 0;

    const tap = tapUpdate(`t0|0|1|${id}`, shared, { chatId: GROUP, from: MEMBER });
    await send(tap);
    const answered = telegram
      .callsTo("answerCallbackQuery")
      .find((call) => call.body.callback_query_id === tap.callback_query.id);
    expect(answered?.body.url).toMatch(/^https:\/\/t\.me\/HandraiseBot\?start=/);
    expect(telegram.calls.filter((call) => call.method.startsWith("edit"))).toEqual([]);
    const after = await read(id);
    expect(after.status).toBe("pending");
    expect(after.drafts ?? {}).toEqual({});
  });

  it("a one-question prompt still answers by tap on the shared copy", async () => {
    const { id, shared } = await askWithGroup([singleQuestion]);
    await send(tapUpdate(`o|0|1|${id}`, shared, { chatId: GROUP, from: MEMBER }));
    expect(await read(id)).toMatchObject({ status: "answered", resolvedBy: `telegram:${MEMBER}` });
  });
});
