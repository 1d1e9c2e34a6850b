/**
 * Telegram on the local stack: what only the real wiring proves — an agent run asks, the question is
 * delivered, a tap signed as Telegram signs it answers, and the Step Functions run resumes (or takes the
 * skip or cancel through its Catch); the same update twice is settled by DynamoDB's conditional writes. The
 * rest of Telegram's behaviour runs in process: telegram.test.ts.
 */
import { StartExecutionCommand } from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FakePlatform, RecordedCall } from "./support/fake-platform.ts";
import { singleQuestion as single, unique } from "./support/sample-questions.ts";
import {
  button,
  OWNER_ID,
  startFakeTelegram,
  tapUpdate,
  telegramSettings,
  textUpdate,
  webhookRequest,
} from "./support/telegram-fake.ts";
import {
  posted,
  replyOf as replyOfRun,
  startTestStack,
  type TestStack,
  waitFor,
} from "./support/test-stack.ts";

/** The deployment's public URL: links on it are URL buttons (a link to this machine would go in the text). */
const PUBLIC_URL = "https://handraise.test";
/** Each test talks in a chat of its own: a plain message goes to the oldest pending question in the chat. */
let CHAT_ID = -1001234567890;

let stack: TestStack;
let telegram: FakePlatform;

beforeAll(async () => {
  telegram = await startFakeTelegram();
  stack = await startTestStack({ ...telegramSettings(telegram), HANDRAISE_PUBLIC_URL: PUBLIC_URL });
});
afterAll(async () => {
  await stack?.stop();
  await telegram?.stop();
});
beforeEach(() => {
  telegram.calls.length = 0;
  CHAT_ID -= 1;
});

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
  const { executionArn } = await stack.sfn.send(
    new StartExecutionCommand({
      stateMachineArn: stack.stateMachineArns.agent,
      input: JSON.stringify({
        sessionKey,
        owner: `telegram:${options.owner ?? OWNER_ID}`,
        deliverTo: chats.map((chat) => ({ channel: "telegram", chatId: String(chat) })),
        prompt: "test",
        model: {
          provider: "scripted",
          steps: [
            { toolCalls: [{ id: "c1", name: "ask_user", arguments: { questions } }] },
            { reply: "{{c1.status}}|{{c1.reason}}|{{c1.deploy_target}}{{c1.checks}}" },
          ],
        },
        ...options.input,
      }),
    }),
  );
  const posts = await waitFor(
    async () => {
      const sent = telegram.callsTo("sendMessage").slice(before);
      return sent.length >= chats.length ? sent : undefined;
    },
    { what: "the question posted to Telegram" },
  );
  // The posts are recorded once the platform answered them; wait until the record lists every copy.
  const questionId = await waitFor(
    async () => {
      const [question] = (await stack.api("GET", `/questions?sessionKey=${sessionKey}`)).body.questions;
      return posted(question) >= chats.length ? (question.id as string) : undefined;
    },
    { what: "the deliveries to be recorded" },
  );
  return { executionArn: executionArn as string, posts, questionId, sessionKey };
}

/** `secret: null` sends no secret header at all. */
function post(update: unknown, secret?: string | null) {
  return fetch(`${stack.httpUrl}/webhooks/telegram`, { method: "POST", ...webhookRequest(update, secret) });
}

/** A tap by the owner in the test's group. */
const tap = (data: string, messageId: number) => tapUpdate(data, messageId, { chatId: CHAT_ID });
/** A message from the owner in the test's group. */
const text = (body: string) => textUpdate(body, { chatId: CHAT_ID });

/** The reply the run ended with. */
const replyOf = (executionArn: string) => replyOfRun(stack, executionArn);

/** The message id Telegram gave the post: the fake numbers them in order of sendMessage calls. */
async function postedMessageId(questionId: string, chat = CHAT_ID): Promise<number> {
  const record = (await stack.api("GET", `/questions/${questionId}`)).body.question;
  const delivery = record.deliveries.find((d: { chatId: string }) => d.chatId === String(chat));
  return Number(delivery.messageId);
}

describe("Telegram end to end", () => {
  it("a button tap answers and resumes the run once; every copy is edited without buttons; a later tap is told it is over", async () => {
    const { executionArn, posts, questionId } = await startRun([single], { chats: [CHAT_ID, 777] });
    const messageId = await postedMessageId(questionId);
    const data = button(posts[0] as RecordedCall, "Production");
    expect((await post(tap(data, messageId))).status).toBe(200);
    expect(await replyOf(executionArn)).toBe("answered||Production");

    const acks = telegram.callsTo("answerCallbackQuery");
    expect(acks.at(-1)?.body).toMatchObject({ text: "Got it." });
    const edits = telegram.callsTo("editMessageText");
    expect(edits.map((e) => e.body.chat_id).sort()).toEqual([String(CHAT_ID), "777"].sort());
    for (const edit of edits) {
      expect(edit.body.reply_markup).toEqual({ inline_keyboard: [] });
      expect(edit.body.text).toContain("Answered — Deploy to: Production");
    }

    await post(tap(data, messageId));
    expect(telegram.callsTo("answerCallbackQuery").at(-1)?.body).toMatchObject({
      text: "This question has already been answered.",
      show_alert: true,
    });
    // The copy tapped late is edited to the outcome again, in case it showed buttons (a step redrawn after
    // the closing edit): the same edit, of that copy only.
    const healed = telegram.callsTo("editMessageText").slice(edits.length);
    expect(healed.map((e) => [e.body.chat_id, e.body.message_id])).toEqual([[String(CHAT_ID), messageId]]);
    expect(healed[0]?.body).toMatchObject({ reply_markup: { inline_keyboard: [] } });
  });

  it("Skip → skipped; /cancel → cancelled", async () => {
    const skipped = await startRun([single]);
    await post(
      tap(button(skipped.posts[0] as RecordedCall, "Skip"), await postedMessageId(skipped.questionId)),
    );
    expect(await replyOf(skipped.executionArn)).toBe("no_answer|skipped|");

    const cancelled = await startRun([single]);
    await post(text("/cancel@HandraiseBot"));
    expect(await replyOf(cancelled.executionArn)).toBe("no_answer|cancelled|");
  });

  it("the same update delivered twice resumes the run once and is acknowledged both times", async () => {
    const { executionArn, posts, questionId } = await startRun([single]);
    const update = tap(button(posts[0] as RecordedCall, "Production"), await postedMessageId(questionId));
    const responses = await Promise.all([post(update), post(update)]);
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    expect(await replyOf(executionArn)).toBe("answered||Production");
    expect(
      telegram
        .callsTo("answerCallbackQuery")
        .filter((c) => c.body.callback_query_id === update.callback_query.id),
    ).toHaveLength(1);
  });
});
