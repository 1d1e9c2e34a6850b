/**
 * The question timers on the local stack (its own EventBridge Scheduler, on its own clock): expiry at the
 * deadline retires every chat copy and closes the record, reminders come once in each chat while a question
 * waits, and an escalation lets a second person answer from its time on. Telegram, Slack and Discord are
 * local fakes of their APIs (`*_API_BASE`), as in their own tests.
 */
import { GetItemCommand } from "@aws-sdk/client-dynamodb";
import { StartExecutionCommand } from "@aws-sdk/client-sfn";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keys } from "#lib/store/keys.ts";
import vectors from "../fixtures/signature-vectors.json" with { type: "json" };
import { type FakePlatform, type RecordedCall, startFakePlatform } from "./support/fake-platform.ts";
import { singleQuestion as single, unique } from "./support/sample-questions.ts";
import { allItems, posted, replyOf, startTestStack, type TestStack, waitFor } from "./support/test-stack.ts";

const TG_SECRET = vectors.telegram_generated.secret_token;
const TG_HEADER = vectors.telegram_generated.header.toLowerCase();
const OWNER = 42;
const SECOND = 77;

let stack: TestStack;
let telegram: FakePlatform;
let slack: FakePlatform;
let discord: FakePlatform;
let messageIds = 5000;
let slackTs = 100;
let snowflake = 1_299_999_999_999_990_000n;
let chats = 0;
let updateId = 90_000;
/**
 * How long after its time a timer's effect may come on the local stack: its Scheduler fires at the second,
 * the rest is the machine's speed. (AWS: within the minute.)
 */
const LOCAL_TIMER_WINDOW_MS = 10_000;

/** Every platform call, with when it was made. */
const made = new WeakMap<RecordedCall, number>();
const stamped =
  (answer: (call: RecordedCall) => { body: unknown }) =>
  (call: RecordedCall): { body: unknown } => {
    made.set(call, Date.now());
    return answer(call);
  };

beforeAll(async () => {
  telegram = await startFakePlatform(
    stamped((call) =>
      call.method === "sendMessage"
        ? { body: { ok: true, result: { message_id: ++messageIds, chat: { id: call.body.chat_id } } } }
        : { body: { ok: true, result: true } },
    ),
  );
  slack = await startFakePlatform(
    stamped((call) =>
      call.method === "chat.postMessage"
        ? {
            body: {
              ok: true,
              channel: call.body.channel,
              ts: `1700000000.${String(++slackTs).padStart(6, "0")}`,
            },
          }
        : { body: { ok: true, channel: call.body.channel, ts: call.body.ts } },
    ),
  );
  discord = await startFakePlatform(
    stamped((call) =>
      call.verb === "POST"
        ? { body: { id: String(++snowflake) } }
        : { body: { id: call.path.split("/").pop() } },
    ),
  );
  stack = await startTestStack({
    TELEGRAM_BOT_TOKEN: "123456:TEST-token",
    TELEGRAM_WEBHOOK_SECRET: TG_SECRET,
    TELEGRAM_API_BASE: telegram.url,
    SLACK_BOT_TOKEN: "xoxb-test-0000-token",
    SLACK_SIGNING_SECRET: "5d41402abc4b2a76b9719d911017c592",
    SLACK_API_BASE: slack.url,
    DISCORD_BOT_TOKEN: "MTA5.test-bot-token",
    DISCORD_PUBLIC_KEY: vectors.discord_generated.public_key,
    DISCORD_APPLICATION_ID: "111111111111111111",
    DISCORD_API_BASE: discord.url,
    HANDRAISE_PUBLIC_URL: "https://handraise.test",
  });
});
afterAll(async () => {
  await stack?.stop();
  await Promise.all([telegram?.stop(), slack?.stop(), discord?.stop()]);
});

/** A Telegram chat, a Slack channel and a Discord channel no other test posts in. */
function threeChats() {
  chats += 1;
  return {
    telegram: String(-1_005_000_000_000 - chats),
    slack: `CT${String(chats).padStart(8, "0")}`,
    discord: String(1_300_000_000_000_000_000n + BigInt(chats)),
  };
}

const targetsIn = (chat: ReturnType<typeof threeChats>) => [
  { channel: "telegram", chatId: chat.telegram },
  { channel: "slack", chatId: chat.slack },
  { channel: "discord", chatId: chat.discord },
];

/** POST /questions, then the record once every copy has been posted and recorded. */
async function ask(body: Record<string, unknown>) {
  const created = await stack.api("POST", "/questions", { questions: [single], ...body });
  expect(created.status, created.text).toBe(201);
  const id = created.body.id as string;
  const targets = (body.deliverTo as unknown[] | undefined)?.length ?? 0;
  const record = await waitFor(
    async () => {
      const found = (await stack.api("GET", `/questions/${id}`)).body.question;
      return posted(found) >= targets ? found : undefined;
    },
    { what: "the copies recorded" },
  );
  return record as {
    id: string;
    createdAtMs: number;
    expiresAtMs: number;
    deliveries: { channel: string; messageId: string }[];
  };
}

const messageOf = (record: Awaited<ReturnType<typeof ask>>, channel: string) =>
  record.deliveries.find((d) => d.channel === channel)?.messageId as string;

/**
 * The question's timers are cleared, and nothing can fire for it any more: every stream record has been
 * handled (none can set a timer again), no timer target is running, and the local Scheduler holds none of
 * its timers. Waiting out the timers' times instead would show the same thing seconds later: this stack
 * fires only what it holds. A target that ran while the stream drained may have written again, so the
 * stream is drained once more.
 */
async function expectTimersClearedForGood(id: string): Promise<void> {
  const held = () => stack.scheduler.schedules().filter((s) => s.name.startsWith(id));
  await waitFor(async () => (held().length > 0 ? undefined : true), { what: "the timers cleared" });
  await stack.streamsDrained();
  await stack.scheduler.idle();
  await stack.streamsDrained();
  await stack.scheduler.idle();
  expect(held()).toEqual([]);
}

/** The stored status, not the one derived on read. */
async function storedStatus(id: string): Promise<string | undefined> {
  const out = await stack.dynamodb.send(
    new GetItemCommand({
      TableName: stack.tableName,
      Key: { pk: { S: keys.question(id) } },
      ConsistentRead: true,
    }),
  );
  return out.Item ? (unmarshall(out.Item).status as string) : undefined;
}

const reminders = (platform: FakePlatform, where: (call: RecordedCall) => boolean) =>
  platform.calls.filter(
    (call) =>
      where(call) && /Still waiting for your answer/.test(String(call.body.text ?? call.body.content ?? "")),
  );

const telegramIn = (chat: string) => (call: RecordedCall) =>
  call.method === "sendMessage" && String(call.body.chat_id) === chat;
const slackIn = (chat: string) => (call: RecordedCall) =>
  call.method === "chat.postMessage" && call.body.channel === chat;
const discordIn = (chat: string) => (call: RecordedCall) =>
  call.verb === "POST" && call.path === `/channels/${chat}/messages`;

function tap(data: string, messageId: number, chatId: string, from: number) {
  return fetch(`${stack.httpUrl}/webhooks/telegram`, {
    method: "POST",
    headers: { "content-type": "application/json", [TG_HEADER]: TG_SECRET },
    body: JSON.stringify({
      update_id: ++updateId,
      callback_query: {
        id: `cb${updateId}`,
        from: { id: from, is_bot: false, first_name: "Ann" },
        message: { message_id: messageId, chat: { id: Number(chatId), type: "supergroup" }, date: 1 },
        chat_instance: "1",
        data,
      },
    }),
  });
}

/** What the bot answered the tap (`answerCallbackQuery`) with the callback id of update `id`. */
const alertFor = (id: number) =>
  waitFor(
    async () => telegram.callsTo("answerCallbackQuery").find((c) => c.body.callback_query_id === `cb${id}`),
    {
      what: "the tap answered",
    },
  );

describe("expiry", () => {
  it("at the deadline retires every copy to 'expired' without controls, stores it expired once, frees the session", async () => {
    const chat = threeChats();
    const sessionKey = unique("timers");
    const record = await ask({
      owner: `telegram:${OWNER}`,
      sessionKey,
      timeoutSeconds: 4,
      deliverTo: targetsIn(chat),
    });
    // The expiry timer is set from the table's stream when the question is stored.
    await waitFor(
      async () =>
        stack.scheduler.schedules().some((s) => s.name === `${record.id}-expire`) ? true : undefined,
      { what: "the expiry timer set" },
    );

    const tgEdit = await waitFor(
      async () =>
        telegram
          .callsTo("editMessageText")
          .find((c) => String(c.body.message_id) === messageOf(record, "telegram")),
      { timeoutMs: 4_000 + LOCAL_TIMER_WINDOW_MS, what: "the Telegram copy retired" },
    );
    const slackEdit = await waitFor(
      async () => slack.callsTo("chat.update").find((c) => c.body.ts === messageOf(record, "slack")),
      { what: "the Slack copy retired" },
    );
    const discordEdit = await waitFor(
      async () =>
        discord.calls.find(
          (c) =>
            c.verb === "PATCH" &&
            c.path === `/channels/${chat.discord}/messages/${messageOf(record, "discord")}`,
        ),
      { what: "the Discord copy retired" },
    );
    // Edited to the outcome, and nothing left to tap: no option, Skip or "Answer in browser" button.
    expect(tgEdit.body.text).toContain("Expired: no answer in time.");
    expect(tgEdit.body.reply_markup).toEqual({ inline_keyboard: [] });
    expect(slackEdit.body.text).toContain("Expired: no answer in time.");
    expect(slackEdit.body.blocks.map((b: { type: string }) => b.type)).toEqual(["section"]);
    expect(JSON.stringify(slackEdit.body.blocks)).not.toContain("Answer in browser");
    expect(discordEdit.body.content).toContain("Expired: no answer in time.");
    expect(discordEdit.body.components).toEqual([]);
    // Within the local stack's timer window: never before the deadline, and well within AWS's minute after
    // it (the local Scheduler fires at the second; the bound leaves room for a busy machine).
    for (const edit of [tgEdit, slackEdit, discordEdit]) {
      const at = made.get(edit) ?? 0;
      expect(at).toBeGreaterThanOrEqual(record.expiresAtMs);
      expect(at - record.expiresAtMs).toBeLessThan(LOCAL_TIMER_WINDOW_MS);
    }

    expect(await storedStatus(record.id)).toBe("expired");
    const resolved = await waitFor(
      async () => {
        const found = stack.events.filter(
          (e) => e["detail-type"] === "Question Resolved" && e.detail.id === record.id,
        );
        return found.length > 0 ? found : undefined;
      },
      { what: "Question Resolved" },
    );
    expect(resolved.map((e) => e.detail.status)).toEqual(["expired"]);
    // The session's slot is free: the next question in it is taken.
    const next = await stack.api("POST", "/questions", {
      questions: [single],
      owner: `telegram:${OWNER}`,
      sessionKey,
    });
    expect(next.status, next.text).toBe(201);
    // Still exactly one event a while later (a second firing or stream record would add one), no timer left.
    await stack.streamsDrained();
    await stack.scheduler.idle();
    expect(
      stack.events.filter((e) => e["detail-type"] === "Question Resolved" && e.detail.id === record.id),
    ).toHaveLength(1);
    expect(stack.scheduler.schedules().filter((s) => s.name.startsWith(record.id))).toEqual([]);
  });

  it("an answer that came first wins: the question stays answered, its timers are cleared", async () => {
    const chat = threeChats();
    const record = await ask({
      owner: `telegram:${OWNER}`,
      timeoutSeconds: 3,
      remindAfterSeconds: [1],
      deliverTo: [{ channel: "telegram", chatId: chat.telegram }],
    });
    const answered = await stack.api("POST", `/questions/${record.id}/answer`, {
      answers: { deploy_target: ["Production"] },
    });
    expect(answered.status).toBe(200);
    await stack.streamsDrained();
    await expectTimersClearedForGood(record.id);
    expect(await storedStatus(record.id)).toBe("answered");
    expect(reminders(telegram, telegramIn(chat.telegram))).toEqual([]);
  });
});

describe("what the timers cannot do is kept", () => {
  it("every schedule names the timers' dead-letter queue and a retry policy", async () => {
    const chat = threeChats();
    const record = await ask({
      owner: `telegram:${OWNER}`,
      timeoutSeconds: 900,
      remindAfterSeconds: [600],
      escalate: {
        afterSeconds: 700,
        owner: `telegram:${SECOND}`,
        deliverTo: [{ channel: "telegram", chatId: chat.telegram }],
      },
      deliverTo: [{ channel: "telegram", chatId: chat.telegram }],
    });
    const held = () => stack.scheduler.schedules().filter((s) => s.name.startsWith(record.id));
    await waitFor(async () => (held().length === 3 ? true : undefined), { what: "the timers set" });
    for (const schedule of held()) {
      expect(schedule.target, schedule.name).toMatchObject({
        // The local stack's stand-in for serverless.yml's QuestionTimerDeadLetterQueue.
        deadLetterArn: "arn:aws:sqs:us-east-1:000000000000:QuestionTimerDeadLetterQueue",
        retryPolicy: { MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: 10 },
      });
    }
    await stack.api("POST", `/questions/${record.id}/cancel`, {});
    await expectTimersClearedForGood(record.id);
  });
});

describe("reminders", () => {
  it("come once in each chat, as a reply to the question, before the deadline, saying how long is left", async () => {
    const chat = threeChats();
    const record = await ask({
      owner: `telegram:${OWNER}`,
      timeoutSeconds: 6,
      remindAfterSeconds: [2],
      deliverTo: targetsIn(chat),
    });
    const [tg] = await waitFor(
      async () => {
        const found = reminders(telegram, telegramIn(chat.telegram));
        return found.length > 0 ? found : undefined;
      },
      { what: "the Telegram reminder" },
    );
    const [sl] = await waitFor(
      async () => {
        const found = reminders(slack, slackIn(chat.slack));
        return found.length > 0 ? found : undefined;
      },
      { what: "the Slack reminder" },
    );
    const [dc] = await waitFor(
      async () => {
        const found = reminders(discord, discordIn(chat.discord));
        return found.length > 0 ? found : undefined;
      },
      { what: "the Discord reminder" },
    );
    expect(tg?.body).toMatchObject({
      // 4 s left when it fires on time; less on a busy machine.
      text: expect.stringMatching(/^Still waiting for your answer — [1-4] s left$/),
      reply_parameters: { message_id: Number(messageOf(record, "telegram")) },
    });
    expect(tg?.body.reply_markup).toBeUndefined();
    expect(sl?.body).toMatchObject({ thread_ts: messageOf(record, "slack") });
    expect(sl?.body.blocks).toBeUndefined();
    expect(dc?.body).toMatchObject({ message_reference: { message_id: messageOf(record, "discord") } });
    expect(dc?.body.components).toBeUndefined();
    for (const call of [tg, sl, dc]) expect(made.get(call as RecordedCall)).toBeLessThan(record.expiresAtMs);

    // Past the deadline (retired by then): still one reminder in each chat.
    await waitFor(async () => ((await storedStatus(record.id)) === "expired" ? true : undefined), {
      timeoutMs: 6_000 + LOCAL_TIMER_WINDOW_MS,
      what: "the question expired",
    });
    await stack.scheduler.idle();
    expect(reminders(telegram, telegramIn(chat.telegram))).toHaveLength(1);
    expect(reminders(slack, slackIn(chat.slack))).toHaveLength(1);
    expect(reminders(discord, discordIn(chat.discord))).toHaveLength(1);
  });

  it("never come for a question answered before its reminder time", async () => {
    const chat = threeChats();
    const record = await ask({
      owner: `telegram:${OWNER}`,
      timeoutSeconds: 30,
      remindAfterSeconds: [2, 3],
      deliverTo: targetsIn(chat),
    });
    // Set from the table's stream, after the ask returned.
    await waitFor(
      async () => {
        const names = stack.scheduler.schedules().map((s) => s.name);
        return names.includes(`${record.id}-remind-0`) && names.includes(`${record.id}-remind-1`)
          ? true
          : undefined;
      },
      { what: "the reminder timers set" },
    );
    await stack.api("POST", `/questions/${record.id}/answer`, { answers: { deploy_target: ["Staging"] } });
    await expectTimersClearedForGood(record.id);
    expect(reminders(telegram, telegramIn(chat.telegram))).toEqual([]);
    expect(reminders(slack, slackIn(chat.slack))).toEqual([]);
    expect(reminders(discord, discordIn(chat.discord))).toEqual([]);
  });

  it("invoked before their time change nothing and keep no claim: the schedule still waits to fire", async () => {
    const chat = threeChats();
    const record = await ask({
      owner: `telegram:${OWNER}`,
      timeoutSeconds: 900,
      // Far more than the minute a timer may come early: the invocation below is not due.
      remindAfterSeconds: [600],
      escalate: {
        afterSeconds: 600,
        owner: `telegram:${SECOND}`,
        deliverTo: [{ channel: "telegram", chatId: chat.telegram }],
      },
      deliverTo: [{ channel: "telegram", chatId: chat.telegram }],
    });
    const names = [`${record.id}-remind-0`, `${record.id}-escalate`];
    const held = () => stack.scheduler.schedules().filter((s) => names.includes(s.name));
    await waitFor(async () => (held().length === 2 ? true : undefined), { what: "the timers set" });
    await stack.streamsDrained();
    const before = await allItems(stack);
    const calls = telegram.calls.length;
    for (const event of [
      { questionId: record.id, kind: "remind", index: 0, dueAtMs: record.createdAtMs + 600_000 },
      { questionId: record.id, kind: "escalate", dueAtMs: record.createdAtMs + 600_000 },
    ]) {
      expect(await stack.invoke("questionTimer", event)).toEqual({ outcome: "not_due" });
    }
    // Nothing posted, nothing stored (no claim that would make the real one a duplicate), both still set.
    expect(telegram.calls.slice(calls)).toEqual([]);
    expect(await allItems(stack)).toEqual(before);
    expect(
      held()
        .map((s) => s.name)
        .sort(),
    ).toEqual([...names].sort());
    await stack.api("POST", `/questions/${record.id}/cancel`, {});
    await expectTimersClearedForGood(record.id);
  });

  it("at or past the deadline are refused with 400 INVALID_ARGUMENT at their path, and nothing is stored", async () => {
    const owner = `web:${unique("late")}`;
    const late = await stack.api("POST", "/questions", {
      questions: [single],
      owner,
      timeoutSeconds: 60,
      remindAfterSeconds: [30, 60],
    });
    expect(late.status).toBe(400);
    expect(late.body.error).toMatchObject({
      code: "INVALID_ARGUMENT",
      issues: [{ path: "remindAfterSeconds.1", message: expect.stringContaining("deadline") }],
    });
    const escalation = await stack.api("POST", "/questions", {
      questions: [single],
      owner,
      timeoutSeconds: 60,
      escalate: { afterSeconds: 90, owner: "web:bob", deliverTo: [{ channel: "telegram", chatId: "1" }] },
    });
    expect(escalation.status).toBe(400);
    expect(escalation.body.error.issues).toEqual([
      { path: "escalate.afterSeconds", message: expect.stringContaining("deadline") },
    ]);
    expect((await stack.api("GET", `/questions?owner=${owner}`)).body.questions).toEqual([]);
  });
});

describe("escalation", () => {
  it("before its time, the escalation owner may not answer, and nothing is posted to them", async () => {
    const chat = threeChats();
    const second = threeChats().telegram;
    // An escalation far enough away that no busy machine reaches it during the test.
    const record = await ask({
      owner: `telegram:${OWNER}`,
      timeoutSeconds: 600,
      escalate: {
        afterSeconds: 300,
        owner: `telegram:${SECOND}`,
        deliverTo: [{ channel: "telegram", chatId: second }],
      },
      deliverTo: [{ channel: "telegram", chatId: chat.telegram }],
    });
    const early = updateId + 1;
    await tap(`o|0|1|${record.id}`, Number(messageOf(record, "telegram")), chat.telegram, SECOND);
    expect((await alertFor(early)).body).toMatchObject({
      text: "This question is not yours to answer.",
      show_alert: true,
    });
    expect((await stack.api("GET", `/questions/${record.id}`)).body.question.status).toBe("pending");
    expect(telegram.callsTo("sendMessage").filter(telegramIn(second))).toEqual([]);
    await stack.api("POST", `/questions/${record.id}/cancel`, {});
  });

  it("lets the second person answer from its time on: the run resumes, the owner is told it was answered", async () => {
    const first = threeChats().telegram;
    const second = threeChats().telegram;
    const sessionKey = unique("escalate");
    const { executionArn } = await stack.sfn.send(
      new StartExecutionCommand({
        stateMachineArn: stack.stateMachineArns.agent,
        input: JSON.stringify({
          sessionKey,
          owner: `telegram:${OWNER}`,
          deliverTo: [{ channel: "telegram", chatId: first }],
          escalate: {
            afterSeconds: 3,
            owner: `telegram:${SECOND}`,
            deliverTo: [{ channel: "telegram", chatId: second }],
          },
          prompt: "test",
          model: {
            provider: "scripted",
            steps: [
              {
                toolCalls: [
                  { id: "c1", name: "ask_user", arguments: { questions: [single], timeoutSeconds: 60 } },
                ],
              },
              { reply: "{{c1.status}}|{{c1.deploy_target}}" },
            ],
          },
        }),
      }),
    );
    const id = await waitFor(
      async () => {
        const [question] = (await stack.api("GET", `/questions?sessionKey=${sessionKey}`)).body.questions;
        return posted(question) >= 1 ? (question.id as string) : undefined;
      },
      { what: "the question posted" },
    );
    const record = (await stack.api("GET", `/questions/${id}`)).body.question;
    expect(record.answerers).toEqual([
      { owner: `telegram:${OWNER}`, fromMs: record.createdAtMs },
      { owner: `telegram:${SECOND}`, fromMs: record.createdAtMs + 3_000 },
    ]);
    const firstCopy = Number(record.deliveries[0].messageId);
    const production = `o|0|1|${id}`;

    // At the escalation time the question is posted to them too, and recorded with its copies.
    const escalated = await waitFor(async () => telegram.callsTo("sendMessage").find(telegramIn(second)), {
      what: "the escalated copy",
    });
    expect(escalated.body.reply_markup.inline_keyboard.flat().map((b: { text: string }) => b.text)).toContain(
      "Production",
    );
    expect(made.get(escalated)).toBeGreaterThanOrEqual(record.createdAtMs + 3_000);
    const withCopy = await waitFor(
      async () => {
        const found = (await stack.api("GET", `/questions/${id}`)).body.question;
        return found.deliveries.length === 2 && posted(found) === 2 ? found : undefined;
      },
      { what: "the escalated copy recorded" },
    );
    const secondCopy = Number(withCopy.deliveries[1].messageId);

    // The second person answers on their copy: the run resumes with it.
    expect((await tap(production, secondCopy, second, SECOND)).status).toBe(200);
    expect(await replyOf(stack, executionArn as string)).toBe("answered|Production");
    const answered = (await stack.api("GET", `/questions/${id}`)).body.question;
    expect(answered).toMatchObject({ status: "answered", resolvedBy: `telegram:${SECOND}` });

    // Both copies are retired, the owner's saying who answered.
    const edits = await waitFor(
      async () => {
        const found = telegram
          .callsTo("editMessageText")
          .filter((c) => [first, second].includes(String(c.body.chat_id)));
        return found.length >= 2 ? found : undefined;
      },
      { what: "both copies retired" },
    );
    const ownerCopy = edits.find((c) => String(c.body.chat_id) === first);
    expect(ownerCopy?.body.text).toContain(`Answered by telegram:${SECOND} — Deploy to: Production`);
    expect(ownerCopy?.body.reply_markup).toEqual({ inline_keyboard: [] });
    expect(edits.find((c) => String(c.body.chat_id) === second)?.body.reply_markup).toEqual({
      inline_keyboard: [],
    });

    // The owner's own tap after that is told it was answered.
    const late = updateId + 1;
    await tap(`o|0|0|${id}`, firstCopy, first, OWNER);
    expect((await alertFor(late)).body).toMatchObject({ text: "This question has already been answered." });
  });
});
