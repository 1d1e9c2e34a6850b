/**
 * Telegram as its tests play it, in process (telegram.test.ts) and on the local stack (telegram-e2e.test.ts):
 * the bot's settings, a fake Bot API that numbers the messages it is sent, and the updates Telegram would
 * POST to the webhook. Message ids come from one counter, the bot's posts and people's messages alike, as in
 * a chat.
 */
import vectors from "../../fixtures/signature-vectors.json" with { type: "json" };
import { type FakePlatform, type RecordedCall, startFakePlatform } from "./fake-platform.ts";

export const SECRET = vectors.telegram_generated.secret_token;
export const HEADER = vectors.telegram_generated.header.toLowerCase();
export const BOT_TOKEN = "123456:TEST-token";
/** The bot's user id (its token up to `:`) and @username (what getMe answers). */
export const BOT_ID = 123456;
export const BOT_USERNAME = "HandraiseBot";
export const OWNER_ID = 42;

let messageIds = 1000;
let updateId = 5000;

/** The id of the last message: the bot's last post, or the last message a test sent. */
export const lastMessageId = () => messageIds;

/** The Bot API: sendMessage numbers its messages, getMe names the bot; calls past Telegram's limits refused. */
export function startFakeTelegram(): Promise<FakePlatform> {
  return startFakePlatform(
    (call) => {
      if (call.method === "sendMessage")
        return { body: { ok: true, result: { message_id: ++messageIds, chat: { id: call.body.chat_id } } } };
      if (call.method === "getMe")
        return { body: { ok: true, result: { id: BOT_ID, is_bot: true, username: BOT_USERNAME } } };
      return { body: { ok: true, result: true } };
    },
    { limits: "telegram" },
  );
}

/** The deployment's Telegram settings, against `fake`. */
export function telegramSettings(fake: FakePlatform): Record<string, string> {
  return { TELEGRAM_BOT_TOKEN: BOT_TOKEN, TELEGRAM_WEBHOOK_SECRET: SECRET, TELEGRAM_API_BASE: fake.url };
}

/** A webhook request: the update as JSON, with the secret token header (`secret: null` sends none). */
export function webhookRequest(update: unknown, secret: string | null = SECRET) {
  return {
    headers: { "content-type": "application/json", ...(secret !== null && { [HEADER]: secret }) },
    body: JSON.stringify(update),
  };
}

/** A tap in a group, or (`chatId` = the tapper's id) in their private chat with the bot. */
export function tapUpdate(
  data: string,
  messageId: number,
  options: { chatId: number; from?: number; keyboard?: unknown },
) {
  const from = options.from ?? OWNER_ID;
  const { chatId } = options;
  return {
    update_id: ++updateId,
    callback_query: {
      id: `cb${updateId}`,
      from: { id: from, is_bot: false, first_name: "Ann" },
      message: {
        message_id: messageId,
        chat: { id: chatId, type: chatId === from ? "private" : "supergroup" },
        date: 1,
        ...(options.keyboard !== undefined && { reply_markup: options.keyboard }),
      },
      chat_instance: "1",
      data,
    },
  };
}

export interface TextOptions {
  from?: number;
  replyTo?: number;
  /** Who wrote the message replied to (default: a person). */
  replyToFrom?: { id: number; is_bot: boolean };
  /** `private` is a direct conversation with the bot; the default is a group. */
  chatType?: "private" | "group" | "supergroup";
  chatId: number;
  entities?: { type: string; offset: number; length: number; user?: { id: number; is_bot: boolean } }[];
}

/** A message someone typed (by default the owner, in a group). */
export function textUpdate(body: string, options: TextOptions) {
  const chat = { id: options.chatId, type: options.chatType ?? "supergroup" };
  return {
    update_id: ++updateId,
    message: {
      message_id: ++messageIds,
      from: { id: options.from ?? OWNER_ID, is_bot: false, first_name: "Ann" },
      chat,
      date: 1,
      text: body,
      ...(options.entities !== undefined && { entities: options.entities }),
      ...(options.replyTo !== undefined && {
        reply_to_message: {
          message_id: options.replyTo,
          from: options.replyToFrom ?? { id: 7, is_bot: false, first_name: "Bob" },
          chat,
          date: 1,
        },
      }),
    },
  };
}

/** The callback buttons of a posted keyboard (a URL button left out). */
export const buttons = (call: RecordedCall) =>
  (call.body.reply_markup.inline_keyboard as { text: string; callback_data?: string; url?: string }[][])
    .flat()
    .flatMap((b) =>
      b.callback_data === undefined ? [] : [{ text: b.text, callback_data: b.callback_data }],
    );

/** The callback data of the button labelled `label`. */
export const button = (call: RecordedCall, label: string) => {
  const found = buttons(call).find((b) => b.text === label);
  if (!found) throw new Error(`no button ${label}`);
  return found.callback_data;
};
