import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MAX_ANSWER_VALUE_UNITS } from "#lib/questions/schema.ts";
import {
  type InProcessRun,
  type InProcessStack,
  runResult,
  startInProcessStack,
} from "../support/in-process-stack.ts";
import { largestArgs, largestContext, textOf } from "../support/largest-questions.ts";
import { telegramProblems } from "../support/platform-sizes.ts";
import type { FakePlatform, RecordedCall } from "./support/fake-platform.ts";
import {
  multiQuestion as multi,
  noteQuestion as note,
  singleQuestion as single,
  unique,
} from "./support/sample-questions.ts";
import {
  BOT_ID,
  BOT_TOKEN,
  BOT_USERNAME,
  button,
  buttons,
  HEADER,
  lastMessageId,
  OWNER_ID,
  SECRET,
  startFakeTelegram,
  type TextOptions,
  tapUpdate,
  telegramSettings,
  textUpdate,
  webhookRequest,
} from "./support/telegram-fake.ts";
import { posted } from "./support/test-stack.ts";

/** The deployment's public URL: links on it are URL buttons (a link to this machine would go in the text). */
const PUBLIC_URL = "https://handraise.test";
/** Each test talks in a chat of its own: a plain message goes to the oldest pending question in the chat. */
let CHAT_ID = -1001234567890;

let stack: InProcessStack;
let telegram: FakePlatform;

beforeAll(async () => {
  // Refused like Telegram past its size limits: every test here runs within them.
  telegram = await startFakeTelegram();
  stack = await startInProcessStack({ ...telegramSettings(telegram), HANDRAISE_PUBLIC_URL: PUBLIC_URL });
});
afterAll(async () => {
  await stack?.stop();
  await telegram?.stop();
});
beforeEach(() => {
  telegram.calls.length = 0;
  CHAT_ID -= 1;
});
// What a test's last change set going (a copy retired) ends before the next test counts the calls.
afterEach(() => stack.settled());

/**
 * `owner`: the asking person's user id (default OWNER_ID); a chat with that id is their private chat.
 * `input`: more of the agent's input (requestedBy, …).
 */
async function startRun(
  questions: unknown[],
  options: { chats?: number[]; sessionKey?: string; owner?: number; input?: Record<string, unknown> } = {},
) {
  const sessionKey = options.sessionKey ?? unique("tg");
  const chats = options.chats ?? [CHAT_ID];
  const before = telegram.callsTo("sendMessage").length;
  // The run's AskUser task: the ask function delivers before it returns.
  const run = await stack.ask({
    sessionKey,
    owner: `telegram:${options.owner ?? OWNER_ID}`,
    deliverTo: chats.map((chat) => ({ channel: "telegram", chatId: String(chat) })),
    questions,
    ...options.input,
  });
  const posts = telegram.callsTo("sendMessage").slice(before);
  expect(posts.length).toBeGreaterThanOrEqual(chats.length);
  // The posts are recorded once the platform answered them: the record lists every copy.
  const [question] = (await stack.api("GET", `/questions?sessionKey=${sessionKey}`)).body.questions;
  expect(question.id).toBe(run.questionId);
  expect(posted(question)).toBeGreaterThanOrEqual(chats.length);
  return { run, posts, questionId: run.questionId, sessionKey };
}

/** `secret: null` sends no secret header at all. */
const post = (update: unknown, secret?: string | null) =>
  stack.request("POST", "/webhooks/telegram", webhookRequest(update, secret));

/** A tap in the test's group, or (`chatId` = the tapper's id) in their private chat with the bot. */
const tap = (
  data: string,
  messageId: number,
  options: { from?: number; keyboard?: unknown; chatId?: number } = {},
) => tapUpdate(data, messageId, { chatId: CHAT_ID, ...options });
/** A message someone typed, by default the owner in the test's group. */
const text = (body: string, options: Partial<TextOptions> = {}) =>
  textUpdate(body, { chatId: CHAT_ID, ...options });

/** A message that starts with a mention of the bot, as Telegram marks it up. */
const mentioning = (rest: string, username = BOT_USERNAME) =>
  text(`@${username} ${rest}`, {
    entities: [{ type: "mention", offset: 0, length: username.length + 1 }],
  });
let privateChats = 900_000;

/** The answer page's link on a posted keyboard. */
const linkButton = (call: RecordedCall) =>
  (call.body.reply_markup.inline_keyboard as { text: string; url?: string }[][]).flat().find((b) => b.url);
/** Nothing a shared chat is sent may hold an answer link (in a button or in the text). */
const expectNoLink = (call: RecordedCall) => expect(JSON.stringify(call.body)).not.toContain("/answer/");
/**
 * The reply the scripted run of telegram-e2e.test.ts ends with (`{{c1.status}}|{{c1.reason}}|
 * {{c1.deploy_target}}{{c1.checks}}`), from what its AskUser task received.
 */
async function replyOf(run: InProcessRun): Promise<string> {
  const result = runResult(await run.result());
  const answers = (id: string) => (result.answers?.[id] ?? []).join(",");
  return `${result.status}|${result.reason ?? ""}|${answers("deploy_target")}${answers("checks")}`;
}
/** Every item the store holds (as a scan of the table would list them). */
const allItems = () => [...stack.store.items.values()] as Record<string, any>[];

/** The message id Telegram gave the post: the fake numbers them in order of sendMessage calls. */
async function postedMessageId(questionId: string, chat = CHAT_ID): Promise<number> {
  const record = (await stack.api("GET", `/questions/${questionId}`)).body.question;
  const delivery = record.deliveries.find((d: { chatId: string }) => d.chatId === String(chat));
  return Number(delivery.messageId);
}

describe("Telegram webhook verification", () => {
  it("accepts the configured secret token (vector TG1) and rejects a wrong or missing one with 401, storing nothing", async () => {
    expect((await post(text("hello"), SECRET)).status).toBe(200);
    const before = allItems().length;
    expect((await post(text("hello"), "tg_Secret-124")).status).toBe(401);
    expect((await post(text("hello"), null)).status).toBe(401);
    expect(allItems().length).toBe(before);
  });

  it("a body over the webhook limit → 413 before the secret is checked, storing nothing", async () => {
    const before = allItems().length;
    const huge = { ...text("hello"), padding: "x".repeat(129 * 1024) };
    expect((await post(huge, null)).status).toBe(413);
    expect((await post(huge)).status).toBe(413);
    expect(allItems().length).toBe(before);
  });

  it("a verified but malformed body → 400", async () => {
    const response = await stack.request("POST", "/webhooks/telegram", {
      headers: { "content-type": "application/json", [HEADER]: SECRET },
      body: "{not json",
    });
    expect(response.status).toBe(400);
  });
});

describe("Telegram end to end", () => {
  it("posts one single-select question with native buttons, Other…, Answer in browser and Skip, and no task token", async () => {
    const { posts, questionId } = await startRun([single]);
    const [message] = posts;
    expect(message?.path).toBe(`/bot${BOT_TOKEN}/sendMessage`);
    expect(message?.body.chat_id).toBe(String(CHAT_ID));
    expect(message?.body.text).toContain("Where should it go?");
    expect(
      ((message as RecordedCall).body.reply_markup.inline_keyboard as { text: string }[][]).map((row) =>
        row.map((b) => b.text),
      ),
    ).toEqual([["Staging (Recommended)"], ["Production"], ["Other…"], ["Answer in browser"], ["Skip"]]);
    // In a group, "Answer in browser" is a callback button (the browser control), never the link.
    expect(button(message as RecordedCall, "Answer in browser")).toBe(`w|0|0|${questionId}`);
    expectNoLink(message as RecordedCall);
    for (const b of buttons(message as RecordedCall)) {
      expect(Buffer.byteLength(b.callback_data)).toBeLessThanOrEqual(64);
      expect(b.callback_data).toContain(questionId);
    }
    const tokens = allItems().flatMap((i) => (i.taskToken ? [i.taskToken as string] : []));
    for (const call of telegram.calls)
      for (const token of tokens) expect(JSON.stringify(call.body)).not.toContain(token);
  });

  it("answered in the browser through the link button of the owner's private chat: the run resumes, every Telegram copy is retired", async () => {
    const me = ++privateChats;
    const { run, posts, questionId } = await startRun([single, multi], {
      owner: me,
      chats: [me, 778],
    });
    // Posted side by side: found by chat, not by the order they arrived in.
    const privateCopy = posts.find((p) => p.body.chat_id === String(me));
    const sharedCopy = posts.find((p) => p.body.chat_id === "778");
    // The owner's own link (no `as`): only in the chat of the bot with them.
    const link = new URL(linkButton(privateCopy as RecordedCall)?.url ?? "");
    expect(link.href).toMatch(new RegExp(`^${PUBLIC_URL}/answer/${questionId}\\?sig=[A-Za-z0-9_-]{43}$`));
    expect(button(sharedCopy as RecordedCall, "Answer in browser")).toBe(`w|0|0|${questionId}`);
    expectNoLink(sharedCopy as RecordedCall);
    expect((await stack.api("GET", `/questions/${questionId}`)).body.question.deliveries).toEqual([
      expect.objectContaining({ chatId: String(me), privateTo: `telegram:${me}` }),
      expect.not.objectContaining({ privateTo: expect.anything() }),
    ]);
    // The page is served by this stack; the link names the deployment's public URL.
    const page = `${link.pathname}${link.search}`;
    expect((await stack.request("GET", page)).status).toBe(200);
    const answered = await stack.request("POST", page, {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams([
        ["sig", link.searchParams.get("sig") ?? ""],
        ["a.deploy_target", "1"],
        ["a.checks", "0"],
        ["a.checks", "2"],
        ["action", "submit"],
      ]).toString(),
    });
    expect(answered.status).toBe(303);
    expect(await replyOf(run)).toBe("answered||ProductionUnit,Lint");
    expect((await stack.api("GET", `/questions/${questionId}`)).body.question).toMatchObject({
      status: "answered",
      resolvedBy: `web:telegram:${me}`,
    });
    // Both copies retired (the run's reply waited for the stream).
    const edits = telegram.callsTo("editMessageText");
    expect(edits).toHaveLength(2);
    expect(edits.map((e) => e.body.chat_id).sort()).toEqual([String(me), "778"].sort());
    for (const edit of edits) {
      expect(edit.body.reply_markup).toEqual({ inline_keyboard: [] });
      expect(edit.body.text).toContain("Answered — Deploy to: Production; Checks: Unit, Lint");
      expect(edit.body.text).not.toContain("Answer in browser");
    }
  });

  it("a typed answer in a direct conversation with the bot resumes the run", async () => {
    const chatId = ++privateChats;
    const { run } = await startRun([single], { chats: [chatId] });
    await post(text("2", { chatType: "private", chatId }));
    expect(await replyOf(run)).toBe("answered||Production");
  });

  it("multi-select: toggles re-render with ✅ (the browser control kept, no link), Done submits the selection", async () => {
    const { run, posts, questionId } = await startRun([multi]);
    const messageId = await postedMessageId(questionId);
    const first = posts[0] as RecordedCall;
    expect(buttons(first).map((b) => b.text)).toEqual([
      "Unit",
      "E2E",
      "Lint",
      "Done",
      "Other…",
      "Answer in browser",
      "Skip",
    ]);

    await post(tap(button(first, "Unit"), messageId, { keyboard: first.body.reply_markup }));
    const afterUnit = telegram.callsTo("editMessageReplyMarkup").at(-1) as RecordedCall;
    expect(
      buttons(afterUnit)
        .map((b) => b.text)
        .slice(0, 3),
    ).toEqual(["✅ Unit", "E2E", "Lint"]);
    expect(button(afterUnit, "Answer in browser")).toBe(button(first, "Answer in browser"));
    expectNoLink(afterUnit);
    await post(tap(button(afterUnit, "Lint"), messageId, { keyboard: afterUnit.body.reply_markup }));
    const afterLint = telegram.callsTo("editMessageReplyMarkup").at(-1) as RecordedCall;
    await post(tap(button(afterLint, "Done"), messageId, { keyboard: afterLint.body.reply_markup }));
    expect(await replyOf(run)).toBe("answered||Unit,Lint");
  });

  it("Other… asks for a forced reply, and the reply to it is the free-text answer", async () => {
    const { run, posts, questionId } = await startRun([single]);
    const messageId = await postedMessageId(questionId);
    await post(tap(button(posts[0] as RecordedCall, "Other…"), messageId));
    const prompt = telegram.callsTo("sendMessage").at(-1) as RecordedCall;
    expect(prompt.body.reply_markup).toMatchObject({ force_reply: true, selective: true });
    const promptId = lastMessageId();
    await post(text("blue-green on Friday", { replyTo: promptId }));
    expect(await replyOf(run)).toBe("answered||blue-green on Friday");
  });

  it("someone else's tap gets a private alert and changes nothing", async () => {
    const { posts, questionId, run } = await startRun([single]);
    const messageId = await postedMessageId(questionId);
    await post(tap(button(posts[0] as RecordedCall, "Production"), messageId, { from: 99 }));
    expect(telegram.callsTo("answerCallbackQuery").at(-1)?.body).toMatchObject({
      text: "This question is not yours to answer.",
      show_alert: true,
    });
    expect((await stack.api("GET", `/questions/${questionId}`)).body.question.status).toBe("pending");
    await post(text("1", { replyTo: messageId }));
    expect(await replyOf(run)).toBe("answered||Staging (Recommended)");
  });

  it("the person the run acts for (requestedBy) is told to leave it to someone else, and changes nothing", async () => {
    const { posts, questionId, run } = await startRun([single], {
      input: { requestedBy: "telegram:99" },
    });
    const messageId = await postedMessageId(questionId);
    const alerts = () => telegram.callsTo("answerCallbackQuery").at(-1)?.body;
    await post(tap(button(posts[0] as RecordedCall, "Production"), messageId, { from: 99 }));
    expect(alerts()).toMatchObject({
      text: "You asked for this; someone else must answer.",
      show_alert: true,
    });
    await post(tap(button(posts[0] as RecordedCall, "Skip"), messageId, { from: 99 }));
    expect(alerts()).toMatchObject({
      text: "You asked for this; someone else must answer.",
      show_alert: true,
    });
    // A typed reply from them in the group is conversation: no message, no change.
    const sent = telegram.callsTo("sendMessage").length;
    expect((await post(text("2", { from: 99, replyTo: messageId }))).status).toBe(200);
    expect(telegram.callsTo("sendMessage")).toHaveLength(sent);
    expect((await stack.api("GET", `/questions/${questionId}`)).body.question).toMatchObject({
      status: "pending",
      requestedBy: "telegram:99",
    });
    await post(tap(button(posts[0] as RecordedCall, "Production"), messageId));
    expect(await replyOf(run)).toBe("answered||Production");
  });

  it("two pending questions in one chat: a reply routes to the question it replies to", async () => {
    const first = await startRun([single]);
    const second = await startRun([{ ...single, id: "second", header: "Second" }]);
    await post(text("Production", { replyTo: await postedMessageId(second.questionId) }));
    expect(await replyOf(second.run)).toBe("answered||");
    expect((await stack.api("GET", `/questions/${first.questionId}`)).body.question.status).toBe("pending");
    // Without reply-to, a message to the bot goes to the owner's oldest pending question in the chat.
    await post(mentioning("1"));
    expect(await replyOf(first.run)).toBe("answered||Staging (Recommended)");
  });
});

describe("Telegram: a run that no longer waits is told so", () => {
  const NOT_WAITING = "Recorded, but the run that asked no longer waits for it.";
  // The table's stream is held while each closes: its own resume would also hear "no longer waiting", and
  // one begun before the closing function's would leave the telling to it (as in AWS, the stream lags).

  it('a tap that answers it: recorded, and an alert says the run no longer waits (not "Got it.")', async () => {
    const { posts, questionId, run } = await startRun([single]);
    const messageId = await postedMessageId(questionId);
    run.timeOut();
    const release = stack.holdStream();
    await post(tap(button(posts[0] as RecordedCall, "Production"), messageId));
    release();
    expect(telegram.callsTo("answerCallbackQuery").at(-1)?.body).toMatchObject({
      text: NOT_WAITING,
      show_alert: true,
    });
    expect((await stack.api("GET", `/questions/${questionId}`)).body.question).toMatchObject({
      status: "answered",
      answers: { deploy_target: ["Production"] },
    });
  });

  it("a typed answer: told in the chat", async () => {
    const answered = await startRun([single]);
    answered.run.timeOut();
    const before = telegram.callsTo("sendMessage").length;
    const release = stack.holdStream();
    await post(text("2", { replyTo: await postedMessageId(answered.questionId) }));
    release();
    expect(
      telegram
        .callsTo("sendMessage")
        .slice(before)
        .map((call) => call.body.text),
    ).toEqual([NOT_WAITING]);

    // The run that still waits: an answer shows itself (the prompt is edited), nothing is sent.
    const waiting = await startRun([single]);
    const after = telegram.callsTo("sendMessage").length;
    await post(text("1", { replyTo: await postedMessageId(waiting.questionId) }));
    expect(await replyOf(waiting.run)).toBe("answered||Staging (Recommended)");
    expect(telegram.callsTo("sendMessage").slice(after)).toEqual([]);
  });

  it("the question API answers with run: not_waiting, only when the run said so", async () => {
    const gone = await startRun([single]);
    gone.run.timeOut();
    let release = stack.holdStream();
    const answered = await stack.api("POST", `/questions/${gone.questionId}/answer`, {
      answers: { deploy_target: ["Production"] },
    });
    release();
    expect(answered).toMatchObject({ status: 200 });
    expect(answered.body).toEqual({
      status: "answered",
      answers: { deploy_target: ["Production"] },
      run: "not_waiting",
    });
    const cancelledRun = await startRun([single]);
    cancelledRun.run.timeOut();
    release = stack.holdStream();
    const cancelled = await stack.api("POST", `/questions/${cancelledRun.questionId}/cancel`, {});
    release();
    expect(cancelled.body).toEqual({ status: "cancelled", reason: "cancelled", run: "not_waiting" });

    const waiting = await startRun([single]);
    const resumed = await stack.api("POST", `/questions/${waiting.questionId}/answer`, {
      answers: { deploy_target: ["Production"] },
    });
    expect(resumed.body).toEqual({ status: "answered", answers: { deploy_target: ["Production"] } });
    expect(await replyOf(waiting.run)).toBe("answered||Production");
  });

  it("the answer page: the done page says the run no longer waits, and only then", async () => {
    for (const gone of [true, false]) {
      const me = ++privateChats;
      const { run, posts, questionId } = await startRun([single], { owner: me, chats: [me] });
      if (gone) run.timeOut();
      const link = new URL(linkButton(posts[0] as RecordedCall)?.url ?? "");
      const page = `${link.pathname}${link.search}`;
      const release = stack.holdStream();
      const answered = await stack.request("POST", page, {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams([
          ["sig", link.searchParams.get("sig") ?? ""],
          ["a.deploy_target", "1"],
          ["action", "submit"],
        ]).toString(),
      });
      release();
      expect(answered.status).toBe(303);
      const location = answered.headers.location ?? "";
      expect(location).toBe(gone ? `${link.search}&run=not_waiting` : link.search);
      const done = await stack.request("GET", `${link.pathname}${location}`);
      expect(done.status).toBe(200);
      expect(done.text).toContain("Production");
      if (gone) expect(done.text).toContain(NOT_WAITING);
      else expect(done.text).not.toContain(NOT_WAITING);
      expect((await stack.api("GET", `/questions/${questionId}`)).body.question.status).toBe("answered");
    }
  });

  it("the page's unsigned run=not_waiting is ignored on a question its link's person did not end", async () => {
    const me = ++privateChats;
    const { posts, questionId } = await startRun([single], { owner: me, chats: [me] });
    const link = new URL(linkButton(posts[0] as RecordedCall)?.url ?? "");
    // Ended by someone else (the API), then the owner's link is opened with the flag added by hand.
    const release = stack.holdStream();
    const byApi = await stack.api("POST", `/questions/${questionId}/answer`, {
      answers: { deploy_target: ["Production"] },
    });
    release();
    expect(byApi.status).toBe(200);
    const done = await stack.request("GET", `${link.pathname}${link.search}&run=not_waiting`);
    expect(done.status).toBe(200);
    expect(done.text).toContain("Production");
    expect(done.text).not.toContain(NOT_WAITING);
  });
});

describe("Telegram: Answer in browser — a link only in its answerer's private chat", () => {
  const START_URL = new RegExp(`^https://t\\.me/${BOT_USERNAME}\\?start=([A-Za-z0-9_-]{32})$`);
  const OWN_LINK = "Your own link to answer in a browser. It works for you alone: do not share it.";
  const NO_LINK =
    "This link is used up or no longer valid. Tap “Answer in browser” on the question again for a new one.";
  const questionOf = async (questionId: string) =>
    (await stack.api("GET", `/questions/${questionId}`)).body.question;
  /** `/start <token>` as a person's client sends it when they open the t.me link: in their private chat. */
  const start = (token: string, from: number, chatId = from) =>
    post(text(`/start ${token}`, { from, chatId, chatType: chatId === from ? "private" : "supergroup" }));
  /** Answers the single question through an answer link, as the page's form posts it. */
  async function answerThrough(url: string, option: string) {
    const link = new URL(url);
    return stack.request("POST", `${link.pathname}${link.search}`, {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams([
        ["sig", link.searchParams.get("sig") ?? ""],
        ["a.deploy_target", option],
        ["action", "submit"],
      ]).toString(),
    });
  }
  /** The tap's answer: the answerCallbackQuery of that callback query. */
  const answerOf = (update: ReturnType<typeof tap>) =>
    telegram
      .callsTo("answerCallbackQuery")
      .find((c) => c.body.callback_query_id === update.callback_query.id);
  const linkTokens = async () => allItems().filter((i) => i.entity === "linkToken");

  it("a private copy (chat id = the owner's id) carries the owner's link, redrawn at each step with it", async () => {
    const me = ++privateChats;
    const { posts, questionId } = await startRun([single, multi, note], { owner: me, chats: [me] });
    const first = posts[0] as RecordedCall;
    const link = linkButton(first)?.url;
    expect(link).toMatch(new RegExp(`^${PUBLIC_URL}/answer/${questionId}\\?sig=[A-Za-z0-9_-]{43}$`));
    expect(buttons(first).map((b) => b.text)).not.toContain("Answer in browser");
    // It cannot be forwarded into a chat where others would hold the owner's link.
    expect(first.body.protect_content).toBe(true);
    const messageId = await postedMessageId(questionId, me);
    await post(tap(button(first, "Production"), messageId, { from: me, chatId: me }));
    const redrawn = telegram.callsTo("editMessageText").at(-1) as RecordedCall;
    expect(redrawn.body).toMatchObject({ chat_id: me, message_id: messageId });
    expect(redrawn.body.text).toContain("Checks (2 of 3)");
    expect(linkButton(redrawn)?.url).toBe(link);
    await post(
      tap(button(redrawn, "Unit"), messageId, { from: me, chatId: me, keyboard: redrawn.body.reply_markup }),
    );
    const toggled = telegram.callsTo("editMessageReplyMarkup").at(-1) as RecordedCall;
    expect(linkButton(toggled)?.url).toBe(link);
    await stack.api("POST", `/questions/${questionId}/cancel`, {});
  });

  it("/question posts the prompt again as its chat allows: the owner's link in their private chat, the control in a group", async () => {
    const me = ++privateChats;
    const { questionId } = await startRun([single], { owner: me, chats: [me, CHAT_ID] });
    await post(text("/question", { from: me, chatId: me, chatType: "private" }));
    const inPrivate = telegram.callsTo("sendMessage").at(-1) as RecordedCall;
    expect(inPrivate.body.chat_id).toBe(String(me));
    expect(linkButton(inPrivate)?.url).toMatch(new RegExp(`/answer/${questionId}\\?sig=`));
    await post(text("/question", { from: me }));
    const inGroup = telegram.callsTo("sendMessage").at(-1) as RecordedCall;
    expect(inGroup.body.chat_id).toBe(String(CHAT_ID));
    expect(button(inGroup, "Answer in browser")).toBe(`w|0|0|${questionId}`);
    expectNoLink(inGroup);
    await stack.api("POST", `/questions/${questionId}/cancel`, {});
  });

  it("the owner's tap in a group opens the bot's private chat; /start there hands them their own link once, which answers as them", async () => {
    const { run, questionId } = await startRun([single]);
    const messageId = await postedMessageId(questionId);
    const sentBefore = telegram.callsTo("sendMessage").length;
    const tapped = tap(`w|0|0|${questionId}`, messageId);
    expect((await post(tapped)).status).toBe(200);
    const answered = answerOf(tapped) as RecordedCall;
    // The documented shape: the callback answered with a t.me link to the bot, and nothing else.
    expect(Object.keys(answered.body).sort()).toEqual(["callback_query_id", "url"]);
    const token = START_URL.exec(answered.body.url)?.[1] as string;
    expect(token).toBeDefined();
    // Nothing was posted in the group, and no call so far carries a link.
    expect(telegram.callsTo("sendMessage").length).toBe(sentBefore);
    for (const call of telegram.calls) expectNoLink(call);

    // Someone else who got hold of the token, and the tapper in a group: no link, the token not used up.
    await start(token, 99);
    expect(telegram.callsTo("sendMessage").at(-1)?.body).toEqual({ chat_id: 99, text: NO_LINK });
    const sent = telegram.callsTo("sendMessage").length;
    await start(token, OWNER_ID, CHAT_ID);
    expect(telegram.callsTo("sendMessage").length).toBe(sent);
    for (const call of telegram.calls) expectNoLink(call);

    // The tapper, in their private chat with the bot: their own link, as a URL button.
    await start(token, OWNER_ID);
    const handed = telegram.callsTo("sendMessage").at(-1) as RecordedCall;
    expect(handed.body).toMatchObject({ chat_id: OWNER_ID, text: OWN_LINK, protect_content: true });
    const link = linkButton(handed)?.url as string;
    expect(link).toMatch(new RegExp(`^${PUBLIC_URL}/answer/${questionId}\\?sig=[A-Za-z0-9_-]{43}$`));
    expect(await linkTokens()).toEqual([]);

    // Used once: the same /start again hands nothing over.
    await start(token, OWNER_ID);
    expect(telegram.callsTo("sendMessage").at(-1)?.body).toEqual({ chat_id: OWNER_ID, text: NO_LINK });

    expect((await answerThrough(link, "1")).status).toBe(303);
    expect(await replyOf(run)).toBe("answered||Production");
    expect(await questionOf(questionId)).toMatchObject({
      status: "answered",
      resolvedBy: `web:telegram:${OWNER_ID}`,
    });
  });

  it("a stranger's tap on the control: 'not yours', no url and no token; an unknown token gets the neutral reply", async () => {
    const { questionId } = await startRun([single]);
    const tapped = tap(`w|0|0|${questionId}`, await postedMessageId(questionId), { from: 99 });
    const tokensBefore = (await linkTokens()).length;
    await post(tapped);
    expect(answerOf(tapped)?.body).toEqual({
      callback_query_id: tapped.callback_query.id,
      text: "This question is not yours to answer.",
      show_alert: true,
    });
    expect((await linkTokens()).length).toBe(tokensBefore);
    for (const call of telegram.calls) expectNoLink(call);

    await start("A".repeat(32), 99);
    expect(telegram.callsTo("sendMessage").at(-1)?.body).toEqual({ chat_id: 99, text: NO_LINK });
    expect((await questionOf(questionId)).status).toBe("pending");
    await stack.api("POST", `/questions/${questionId}/cancel`, {});
  });

  it("a bare /start (a person opening the bot) stays what it was: nothing is sent", async () => {
    const someone = ++privateChats;
    const sent = telegram.callsTo("sendMessage").length;
    expect((await post(text("/start", { from: someone, chatId: someone, chatType: "private" }))).status).toBe(
      200,
    );
    expect(telegram.callsTo("sendMessage").length).toBe(sent);
  });

  it("a bare /start, or one with a token that is not one, never answers the question waiting in that private chat", async () => {
    const me = ++privateChats;
    const { questionId } = await startRun([single], { owner: me, chats: [me] });
    for (const start of ["/start", "/start not-a-token!", `/start@${BOT_USERNAME}`]) {
      expect((await post(text(start, { from: me, chatId: me, chatType: "private" }))).status).toBe(200);
    }
    expect((await questionOf(questionId)).status).toBe("pending");
  });

  it("the person a question was asked for, though its owner, answers and cancels nothing from their private chat (routed by the pending listing)", async () => {
    const me = ++privateChats;
    const { questionId } = await startRun([single], {
      owner: me,
      chats: [me],
      input: {
        requestedBy: `telegram:${me}`,
        escalate: {
          afterSeconds: 600,
          owner: "telegram:7",
          deliverTo: [{ channel: "telegram", chatId: "7" }],
        },
      },
    });
    const before = telegram.callsTo("sendMessage").length;
    for (const typed of ["Production", "/cancel"]) {
      expect((await post(text(typed, { from: me, chatId: me, chatType: "private" }))).status).toBe(200);
    }
    expect((await questionOf(questionId)).status).toBe("pending");
    const told = telegram
      .callsTo("sendMessage")
      .slice(before)
      .map((call) => call.body.text);
    expect(told).toEqual([
      "You asked for this; someone else must answer.",
      "You asked for this; someone else must answer.",
    ]);
  });

  it("an escalation to the escalation owner's private chat: their copy carries their own link, which answers as them", async () => {
    const owner = ++privateChats;
    const second = ++privateChats;
    const created = await stack.api("POST", "/questions", {
      questions: [single],
      timeoutSeconds: 60,
      owner: `telegram:${owner}`,
      deliverTo: [{ channel: "telegram", chatId: String(owner) }],
      escalate: {
        afterSeconds: 1,
        owner: `telegram:${second}`,
        deliverTo: [{ channel: "telegram", chatId: String(second) }],
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    const postedIn = (chat: number) => {
      const copy = telegram.callsTo("sendMessage").find((c) => c.body.chat_id === String(chat));
      if (!copy) throw new Error(`no copy in ${chat}`);
      return copy;
    };
    const ownerCopy = postedIn(owner);
    // The escalation's timer fires when its time comes: no copy in the second chat before.
    expect(telegram.callsTo("sendMessage").filter((c) => c.body.chat_id === String(second))).toEqual([]);
    await stack.clock.advance(1_000);
    const escalated = postedIn(second);
    const ownerLink = new URL(linkButton(ownerCopy)?.url ?? "");
    const secondLink = new URL(linkButton(escalated)?.url ?? "");
    expect(ownerLink.searchParams.get("as")).toBeNull();
    expect(secondLink.pathname).toBe(`/answer/${id}`);
    expect(secondLink.searchParams.get("as")).toBe(`telegram:${second}`);
    expect(secondLink.searchParams.get("sig")).not.toBe(ownerLink.searchParams.get("sig"));
    const withBoth = await questionOf(id);
    expect(posted(withBoth)).toBe(2);
    expect(withBoth.deliveries).toEqual([
      expect.objectContaining({ chatId: String(owner), privateTo: `telegram:${owner}` }),
      expect.objectContaining({ chatId: String(second), privateTo: `telegram:${second}` }),
    ]);

    expect((await answerThrough(secondLink.href, "0")).status).toBe(303);
    expect(await questionOf(id)).toMatchObject({
      status: "answered",
      answers: { deploy_target: ["Staging (Recommended)"] },
      resolvedBy: `web:telegram:${second}`,
    });
  });
});

describe("Telegram: a question's copies stay within their room", () => {
  const questionOf = async (questionId: string) =>
    (await stack.api("GET", `/questions/${questionId}`)).body.question;
  const copiesIn = (record: { deliveries: { chatId: string }[] }, chat: number) =>
    record.deliveries.filter((d) => d.chatId === String(chat)).length;

  it("at its cap, the escalation's copy is still recorded: its owner answers by typing in their private chat", async () => {
    const lead = ++privateChats;
    const { questionId, posts } = await startRun([single], {
      input: {
        escalate: {
          afterSeconds: 60,
          owner: `telegram:${lead}`,
          deliverTo: [{ channel: "telegram", chatId: String(lead) }],
        },
      },
    });
    const messageId = await postedMessageId(questionId);
    // Each "Other…" posts a prompt for an own answer, recorded as a copy: tapped often enough, the room
    // runs out — all but the escalation's.
    const other = button(posts[0] as RecordedCall, "Other…");
    for (let n = 0; n < 60; n++) expect((await post(tap(other, messageId))).status).toBe(200);
    expect((await questionOf(questionId)).deliveries).toHaveLength(59);
    await stack.clock.advance(60_000);
    const escalated = await questionOf(questionId);
    expect(escalated.deliveries).toHaveLength(60);
    expect(escalated.deliveries.at(-1)).toMatchObject({
      chatId: String(lead),
      privateTo: `telegram:${lead}`,
    });
    expect((await post(text("Production", { from: lead, chatId: lead, chatType: "private" }))).status).toBe(
      200,
    );
    expect(await questionOf(questionId)).toMatchObject({
      status: "answered",
      answers: { deploy_target: ["Production"] },
      resolvedBy: `telegram:${lead}`,
    });
  });

  it("a person repeating /question in one chat posts it there a few times only, and is told why", async () => {
    const me = ++privateChats;
    const { questionId } = await startRun([single], { owner: me, chats: [me] });
    const before = telegram.callsTo("sendMessage").length;
    for (let n = 0; n < 6; n++) {
      expect((await post(text("/question", { from: me, chatId: me, chatType: "private" }))).status).toBe(200);
    }
    const record = await questionOf(questionId);
    expect(copiesIn(record, me)).toBe(3);
    expect(record.deliveries).toHaveLength(3);
    const told = telegram
      .callsTo("sendMessage")
      .slice(before)
      .map((call) => call.body.text as string);
    expect(told.filter((t) => t === "This question is already posted here: answer it above.")).toHaveLength(
      4,
    );
    // The re-post is the question itself, posted again.
    expect(told.filter((t) => t.startsWith("Question for you:"))).toHaveLength(2);
  });

  it("the prompts for an own answer are not copies of the question: /question after two Other… still shows it", async () => {
    const me = ++privateChats;
    const { questionId, posts } = await startRun([single], { owner: me, chats: [me] });
    const messageId = await postedMessageId(questionId, me);
    const other = button(posts[0] as RecordedCall, "Other…");
    for (let n = 0; n < 2; n++) {
      expect((await post(tap(other, messageId, { from: me, chatId: me }))).status).toBe(200);
    }
    expect(copiesIn(await questionOf(questionId), me)).toBe(3);
    const before = telegram.callsTo("sendMessage").length;
    expect((await post(text("/question", { from: me, chatId: me, chatType: "private" }))).status).toBe(200);
    const told = telegram
      .callsTo("sendMessage")
      .slice(before)
      .map((call) => call.body.text as string);
    expect(told).toEqual([expect.stringMatching(/^Question for you:/)]);
    expect(copiesIn(await questionOf(questionId), me)).toBe(4);
  });
});

describe("Telegram: typed text in a group counts only as a reply or addressed to the bot", () => {
  const statusOf = async (questionId: string) =>
    (await stack.api("GET", `/questions/${questionId}`)).body.question.status as string;

  it("a top-level message in a group changes nothing, and needs no getMe", async () => {
    const { questionId } = await startRun([single]);
    expect((await post(text("brb"))).status).toBe(200);
    expect((await post(text("2", { chatType: "group" }))).status).toBe(200);
    // A reply to someone else's message is their conversation.
    expect((await post(text("2", { replyTo: 1 }))).status).toBe(200);
    // A mention of another user, and another bot's command.
    expect((await post(mentioning("2", "SomeoneElse"))).status).toBe(200);
    expect((await post(text("/cancel@OtherBot"))).status).toBe(200);
    expect(await statusOf(questionId)).toBe("pending");
    expect(telegram.callsTo("sendMessage").slice(1)).toEqual([]);
  });

  it("a plain message reads no bot username (getMe only when a mention needs it)", async () => {
    await startRun([single]);
    await post(text("brb"));
    await post(text("2", { replyTo: 1 }));
    expect(telegram.callsTo("getMe")).toEqual([]);
  });

  it("a reply to the question's message answers", async () => {
    const { run, questionId } = await startRun([single]);
    await post(
      text("2", { replyTo: await postedMessageId(questionId), replyToFrom: { id: BOT_ID, is_bot: true } }),
    );
    expect(await replyOf(run)).toBe("answered||Production");
  });

  it("a mention of the bot answers (the mention is not part of the answer), getMe read once", async () => {
    const first = await startRun([single]);
    await post(mentioning("2"));
    expect(await replyOf(first.run)).toBe("answered||Production");
    const second = await startRun([single]);
    await post(mentioning("blue-green"));
    expect(await replyOf(second.run)).toBe("answered||blue-green");
    expect(telegram.callsTo("getMe").length).toBeLessThanOrEqual(1);
  });

  it("a text_mention of the bot's user, and a reply to another message of the bot, answer", async () => {
    const mentioned = await startRun([single]);
    await post(
      text("Handraise 2", {
        entities: [{ type: "text_mention", offset: 0, length: 9, user: { id: BOT_ID, is_bot: true } }],
      }),
    );
    expect(await replyOf(mentioned.run)).toBe("answered||Production");
    const replied = await startRun([single]);
    await post(text("1", { replyTo: 4242, replyToFrom: { id: BOT_ID, is_bot: true } }));
    expect(await replyOf(replied.run)).toBe("answered||Staging (Recommended)");
  });
});

describe("Telegram: a typed reply follows the reply rules (one message at a time)", () => {
  /** A message replying to the question's post, so it routes to it in the group. */
  const replyTo = async (questionId: string, body: string) =>
    post(text(body, { replyTo: await postedMessageId(questionId) }));
  const lastSaid = () => telegram.callsTo("sendMessage").at(-1)?.body.text;
  const questionOf = async (questionId: string) =>
    (await stack.api("GET", `/questions/${questionId}`)).body.question;

  it("after a keyed line, the plain lines answer the questions still open, in order", async () => {
    const { run, questionId } = await startRun([single, multi, note]);
    await replyTo(questionId, "checks: 1\n2\nStaging");
    expect(await replyOf(run)).toBe("answered||ProductionUnit");
    expect((await questionOf(questionId)).answers).toEqual({
      deploy_target: ["Production"],
      checks: ["Unit"],
      release_note: ["Staging"],
    });
  });

  it("/cancel on a later line cancels the question", async () => {
    const { run, questionId } = await startRun([single, multi, note]);
    await replyTo(questionId, "2\n/cancel");
    expect(await replyOf(run)).toBe("no_answer|cancelled|");
  });

  it("a number that names no option is refused alike bare and keyed; the question stays pending", async () => {
    const { run, questionId } = await startRun([single, multi, note]);
    await replyTo(questionId, "7\n1\nurgent");
    expect(lastSaid()).toBe(
      "Deploy to [deploy_target]: there is no option 7 — type a number 1–2 or your own answer.",
    );
    await replyTo(questionId, "deploy_target: 3\nchecks: 1\nurgent");
    expect(lastSaid()).toBe(
      "Deploy to [deploy_target]: there is no option 3 — type a number 1–2 or your own answer.",
    );
    expect((await questionOf(questionId)).status).toBe("pending");
    await replyTo(questionId, "deploy_target: 2\nchecks: 1\nurgent");
    expect(await replyOf(run)).toBe("answered||ProductionUnit");
  });

  it("one question: a number that names no option is refused with the numbers there are", async () => {
    const { run, questionId } = await startRun([single]);
    await replyTo(questionId, "3");
    expect(lastSaid()).toBe("There is no option 3 — type a number 1–2 or your own answer.");
    expect((await questionOf(questionId)).status).toBe("pending");
    await replyTo(questionId, "3 replicas");
    expect(await replyOf(run)).toBe("answered||3 replicas");
  });

  it("a message that answers some questions says what it recorded and what is still needed, and is kept; the next gives the rest", async () => {
    const { run, questionId } = await startRun([single, multi, note]);
    await replyTo(questionId, "checks: 1, 3");
    expect(lastSaid()).toBe(
      "Recorded: Checks: Unit, Lint. Still needed: Deploy to [deploy_target], Release note [release_note].",
    );
    expect(await questionOf(questionId)).toMatchObject({
      status: "pending",
      draft: { checks: ["Unit", "Lint"] },
    });
    // The next plain line answers the first question still open; only its own answer is echoed.
    await replyTo(questionId, "2");
    expect(lastSaid()).toBe("Recorded: Deploy to: Production. Still needed: Release note [release_note].");
    await replyTo(questionId, "urgent");
    expect(await replyOf(run)).toBe("answered||ProductionUnit,Lint");
  });
});

describe("Telegram: several questions, one step at a time", () => {
  const questionOf = async (questionId: string) =>
    (await stack.api("GET", `/questions/${questionId}`)).body.question;
  const lastCall = (method: string) => telegram.callsTo(method).at(-1) as RecordedCall;
  const labels = (call: RecordedCall) => buttons(call).map((b) => b.text);
  /** A tap on the button labelled `label` of a drawn prompt, sent as Telegram does: with that keyboard. */
  const tapButton = (drawn: RecordedCall, label: string, messageId: number, from?: number) =>
    post(
      tap(button(drawn, label), messageId, {
        keyboard: drawn.body.reply_markup,
        ...(from !== undefined && { from }),
      }),
    );
  /** The prompt redrawn in place at a step: the documented editMessageText shape, on the tapped message. */
  const drawnStep = (messageId: number) => {
    const edit = lastCall("editMessageText");
    expect(edit.path).toBe(`/bot${BOT_TOKEN}/editMessageText`);
    expect(edit.body).toMatchObject({ chat_id: CHAT_ID, message_id: messageId });
    expect(typeof edit.body.text).toBe("string");
    expect(Array.isArray(edit.body.reply_markup.inline_keyboard)).toBe(true);
    for (const b of buttons(edit)) expect(Buffer.byteLength(b.callback_data)).toBeLessThanOrEqual(64);
    return edit;
  };

  it("posts step 1 only; each tap redraws the message at the next step; the last tap resumes the run with every answer", async () => {
    const { run, posts, questionId } = await startRun([single, multi, note]);
    const messageId = await postedMessageId(questionId);
    const first = posts[0] as RecordedCall;
    expect(first.body.text).toContain(
      "Deploy to (1 of 3)\nWhere should it go?\n1. Staging (Recommended)\n2. Production",
    );
    expect(first.body.text).toContain("Reply with the number, the option text, or your own answer.");
    expect(first.body.text).not.toContain("Which checks?");
    expect(labels(first)).toEqual([
      "Staging (Recommended)",
      "Production",
      "Other…",
      "Answer in browser",
      "Skip",
    ]);
    expectNoLink(first);

    await tapButton(first, "Production", messageId);
    const second = drawnStep(messageId);
    expect(second.body.text).toContain("Checks (2 of 3)\nWhich checks?\n1. Unit\n2. E2E\n3. Lint");
    expect(labels(second)).toEqual([
      "Unit",
      "E2E",
      "Lint",
      "Done",
      "Other…",
      "Back",
      "Answer in browser",
      "Skip",
    ]);
    // A group's copy redrawn at each step keeps the browser control, and never gains a link.
    expect(button(second, "Answer in browser")).toBe(`w|1|0|${questionId}`);
    expectNoLink(second);
    expect((await questionOf(questionId)).draft).toEqual({ deploy_target: ["Production"] });

    // Toggles redraw only the keyboard of this step, Back kept.
    await tapButton(second, "Unit", messageId);
    const afterUnit = lastCall("editMessageReplyMarkup");
    expect(afterUnit.body).toMatchObject({ chat_id: CHAT_ID, message_id: messageId });
    expect(labels(afterUnit)).toEqual([
      "✅ Unit",
      "E2E",
      "Lint",
      "Done",
      "Other…",
      "Back",
      "Answer in browser",
      "Skip",
    ]);
    expectNoLink(afterUnit);
    await tapButton(afterUnit, "Lint", messageId);
    await tapButton(lastCall("editMessageReplyMarkup"), "Done", messageId);
    const third = drawnStep(messageId);
    expect(third.body.text).toContain("Release note (3 of 3)");
    expect(labels(third)).toEqual([
      "Routine (Recommended)",
      "Urgent",
      "Other…",
      "Back",
      "Answer in browser",
      "Skip",
    ]);
    expectNoLink(third);
    expect((await questionOf(questionId)).status).toBe("pending");

    await tapButton(third, "Urgent", messageId);
    expect(await replyOf(run)).toBe("answered||ProductionUnit,Lint");
    expect(telegram.callsTo("answerCallbackQuery").at(-1)?.body).toMatchObject({ text: "Got it." });
    expect((await questionOf(questionId)).answers).toEqual({
      deploy_target: ["Production"],
      checks: ["Unit", "Lint"],
      release_note: ["Urgent"],
    });
  });

  it("Back shows the step before with its kept choice marked; another option there changes the answer", async () => {
    const { run, posts, questionId } = await startRun([single, multi, note]);
    const messageId = await postedMessageId(questionId);
    await tapButton(posts[0] as RecordedCall, "Production", messageId);
    const second = drawnStep(messageId);
    // Done with nothing ticked keeps the step and says what to do.
    await tapButton(second, "Done", messageId);
    expect(telegram.callsTo("answerCallbackQuery").at(-1)?.body).toMatchObject({
      text: "Choose at least one option, then tap Done.",
    });
    await tapButton(second, "Back", messageId);
    const backAtFirst = drawnStep(messageId);
    expect(backAtFirst.body.text).toContain("Deploy to (1 of 3)");
    expect(labels(backAtFirst)).toEqual([
      "Staging (Recommended)",
      "✅ Production",
      "Other…",
      "Answer in browser",
      "Skip",
    ]);

    await tapButton(backAtFirst, "Staging (Recommended)", messageId);
    const secondAgain = drawnStep(messageId);
    await tapButton(secondAgain, "E2E", messageId);
    await tapButton(lastCall("editMessageReplyMarkup"), "Done", messageId);
    const third = drawnStep(messageId);
    // Back to a multi-select step: its kept choice is drawn as toggles already on, and Done submits them.
    await tapButton(third, "Back", messageId);
    const checksAgain = drawnStep(messageId);
    expect(labels(checksAgain).slice(0, 3)).toEqual(["Unit", "✅ E2E", "Lint"]);
    await tapButton(checksAgain, "Done", messageId);
    await tapButton(drawnStep(messageId), "Routine (Recommended)", messageId);
    expect(await replyOf(run)).toBe("answered||Staging (Recommended)E2E");
    expect((await questionOf(questionId)).answers).toMatchObject({
      deploy_target: ["Staging (Recommended)"],
    });
  });

  it("a typed line during the steps answers the questions still open", async () => {
    const { run, posts, questionId } = await startRun([single, multi, note]);
    const messageId = await postedMessageId(questionId);
    await tapButton(posts[0] as RecordedCall, "Production", messageId);
    await post(text("1, 3\nurgent", { replyTo: messageId }));
    expect(await replyOf(run)).toBe("answered||ProductionUnit,Lint");
    expect((await questionOf(questionId)).answers).toMatchObject({ release_note: ["Urgent"] });
  });

  it("Other… on a step: the forced reply answers the first question still open, the rest is still needed", async () => {
    const { run, posts, questionId } = await startRun([single, multi, note]);
    const messageId = await postedMessageId(questionId);
    await tapButton(posts[0] as RecordedCall, "Production", messageId);
    await tapButton(drawnStep(messageId), "Other…", messageId);
    const forced = lastCall("sendMessage");
    expect(forced.body).toMatchObject({
      chat_id: CHAT_ID,
      text: "Type your answer to “Checks” as a reply to this message.",
      reply_parameters: { message_id: messageId },
      reply_markup: { force_reply: true, input_field_placeholder: "Your answer", selective: true },
    });
    const forcedId = lastMessageId(); // the fake numbers its messages in order
    await post(text("smoke tests", { replyTo: forcedId }));
    expect(lastCall("sendMessage").body.text).toBe(
      "Recorded: Checks: smoke tests. Still needed: Release note [release_note].",
    );
    expect((await questionOf(questionId)).draft).toEqual({
      deploy_target: ["Production"],
      checks: ["smoke tests"],
    });
    await post(text("2", { replyTo: messageId }));
    expect(await replyOf(run)).toBe("answered||Productionsmoke tests");
  });

  it("a redraw Telegram refuses does not fail the tap: it is answered, the step kept, the next tap draws again", async () => {
    const { run, posts, questionId } = await startRun([single, multi, note]);
    const messageId = await postedMessageId(questionId);
    // A double tap's edit is refused as "not modified"; a deleted message's with another 400.
    for (const description of [
      "Bad Request: message is not modified",
      "Bad Request: message to edit not found",
    ]) {
      telegram.answerOnce((call) => call.method === "editMessageText", {
        status: 400,
        body: { ok: false, error_code: 400, description },
      });
    }
    const first = posts[0] as RecordedCall;
    expect((await tapButton(first, "Production", messageId)).status).toBe(200);
    expect(telegram.callsTo("answerCallbackQuery").at(-1)?.body).not.toHaveProperty("text");
    expect(await questionOf(questionId)).toMatchObject({ draft: { deploy_target: ["Production"] }, step: 1 });
    expect((await tapButton(first, "Staging (Recommended)", messageId)).status).toBe(200);
    expect(telegram.callsTo("answerCallbackQuery")).toHaveLength(2);
    // The next tap's edit goes through and shows the step the record is on.
    await tapButton(first, "Production", messageId);
    expect(drawnStep(messageId).body.text).toContain("Checks (2 of 3)");
    await post(text("1\nroutine", { replyTo: messageId }));
    expect(await replyOf(run)).toBe("answered||ProductionUnit");
  });

  it("someone else's tap on a step gets the private alert, keeps nothing and redraws nothing", async () => {
    const { posts, questionId } = await startRun([single, multi, note]);
    const messageId = await postedMessageId(questionId);
    expect((await tapButton(posts[0] as RecordedCall, "Production", messageId, 99)).status).toBe(200);
    expect(telegram.callsTo("answerCallbackQuery").at(-1)?.body).toMatchObject({
      text: "This question is not yours to answer.",
      show_alert: true,
    });
    const question = await questionOf(questionId);
    expect(question.status).toBe("pending");
    expect(question).not.toHaveProperty("draft");
    // Of this message: an earlier test's copies may still be edited in the background.
    expect(
      telegram.callsTo("editMessageText").filter((c) => String(c.body.message_id) === String(messageId)),
    ).toEqual([]);
  });
});

describe("Telegram: the context (who is asking and why) above the questions", () => {
  /** Markup characters and a line break: Telegram gets plain text (no parse_mode), so it shows as written. */
  const CONTEXT = "Release agent for <alice> & *ops*:\n_v1.4_ [passed](CI) `green`";

  it("stands above the question in the first post, each step's redraw, a re-post and the retired copy", async () => {
    const { run, posts, questionId } = await startRun([single, multi], {
      input: { context: CONTEXT },
    });
    const messageId = await postedMessageId(questionId);
    const first = posts[0] as RecordedCall;
    expect(first.body.text).toContain(`Question for you:\n\n${CONTEXT}\n\nDeploy to (1 of 2)`);
    expect(first.body).not.toHaveProperty("parse_mode");

    await post(tap(button(first, "Production"), messageId, { keyboard: first.body.reply_markup }));
    const redraw = telegram.callsTo("editMessageText").at(-1) as RecordedCall;
    expect(redraw.body).toMatchObject({ chat_id: CHAT_ID, message_id: messageId });
    expect(redraw.body.text).toContain(`Question for you:\n\n${CONTEXT}\n\nChecks (2 of 2)`);
    expect(redraw.body).not.toHaveProperty("parse_mode");

    // Posted again by /question. It finds the question through the pending listing, whose indexes do not
    // carry the context; the in-memory store projects them as the table does, so this holds the re-read too
    // (as test/unit/app/handle-inbound.test.ts does).
    await post(text("/question"));
    const again = telegram.callsTo("sendMessage").at(-1) as RecordedCall;
    expect(again.body.text).toContain(`${CONTEXT}\n\nChecks (2 of 2)`);

    await post(text("Unit", { replyTo: messageId }));
    expect(await replyOf(run)).toBe("answered||ProductionUnit");
    // Retired by the stream, which the run's reply waited for.
    const retired = telegram
      .callsTo("editMessageText")
      .find((c) => c.body.message_id === messageId && c.body.reply_markup.inline_keyboard.length === 0);
    if (!retired) throw new Error("the copy was not retired");
    expect(retired.body.text).toContain(`Question for you:\n\n${CONTEXT}\n\n1. Deploy to [deploy_target]`);
    expect(retired.body.text).toContain("Answered — Deploy to: Production; Checks: Unit");
  });
});

describe("Telegram: every message fits, whatever the question's size", () => {
  const lastCall = (method: string) => telegram.callsTo(method).at(-1) as RecordedCall;
  const tapButton = (drawn: RecordedCall, label: string, messageId: number) =>
    post(tap(button(drawn, label), messageId, { keyboard: drawn.body.reply_markup }));

  it("the largest question the contract allows: each post, redraw, notice and the ended copy within Telegram's limits; the outcome shown", async () => {
    const { questions } = largestArgs("mixed");
    const [first, second, third] = questions;
    const { run, posts, questionId } = await startRun(questions, {
      input: { context: largestContext("mixed") },
    });
    const messageId = await postedMessageId(questionId);
    const posted = posts[0] as RecordedCall;
    expect(posted.body.text).toContain(first?.options[0]?.label);

    // A keyed own answer of the longest to the last question: recorded, and the notice repeats it — cut.
    const own = textOf("mixed", MAX_ANSWER_VALUE_UNITS, "Own ");
    await post(text(`${third?.id}: ${own}`, { replyTo: messageId }));
    expect(lastCall("sendMessage").body.text).toMatch(/^Recorded: .+…\. Still needed: /s);
    // One character more is refused, naming the limit.
    await post(text(`${third?.id}: ${own}x`, { replyTo: messageId }));
    expect(lastCall("sendMessage").body.text).toContain(`longer than ${MAX_ANSWER_VALUE_UNITS} characters`);

    // Step by step: an option, then two toggles and Done (each redraw within the limit), then the own answer.
    await tapButton(posted, first?.options[1]?.label ?? "", messageId);
    const step2 = lastCall("editMessageText");
    expect(step2.body.text).toContain("(2 of 3)");
    await tapButton(step2, second?.options[0]?.label ?? "", messageId);
    await tapButton(lastCall("editMessageReplyMarkup"), second?.options[3]?.label ?? "", messageId);
    await tapButton(lastCall("editMessageReplyMarkup"), "Done", messageId);
    expect(lastCall("editMessageText").body.text).toContain("(3 of 3)");
    await post(text(own, { replyTo: messageId }));
    expect(await replyOf(run)).toMatch(/^answered\|/);

    // Retired by the stream, which the run's reply waited for.
    const retired = telegram
      .callsTo("editMessageText")
      .find((c) => c.body.message_id === messageId && c.body.reply_markup.inline_keyboard.length === 0);
    if (!retired) throw new Error("the copy was not retired");
    const outcome = retired.body.text.slice(retired.body.text.lastIndexOf("Answered — "));
    for (const question of questions) expect(outcome).toContain(`${question.header}: `);
    expect(outcome).toContain(`${third?.header}: Own `);
    expect(
      telegram.refused.map((call) => `${call.method}: ${telegramProblems(call.method, call.body)}`),
    ).toEqual([]);
  });
});
