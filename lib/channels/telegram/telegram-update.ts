/**
 * Telegram `Update` → the one inbound type. Only the fields Handraise reads are parsed; any other update
 * kind is not an error (Telegram must get a 200 for it, or it retries and blocks the chat's queue).
 */
import * as z from "../../zod.ts";
import type { Inbound } from "../inbound.ts";
import type { InlineKeyboard } from "./telegram-render.ts";

const int = z.number().check(z.int());
const userSchema = z.object({ id: int, is_bot: z.optional(z.boolean()) });
/** `type`: `private` (a direct conversation with the bot), `group`, `supergroup` or `channel`. */
const chatSchema = z.object({ id: int, type: z.optional(z.string()) });
/** A marked-up span of the text; offsets and lengths count UTF-16 code units, as JS strings do. */
const entitySchema = z.object({
  type: z.string(),
  offset: int,
  length: int,
  user: z.optional(userSchema),
});
const keyboardSchema = z.object({
  inline_keyboard: z.array(
    z.array(
      z.object({ text: z.string(), callback_data: z.optional(z.string()), url: z.optional(z.string()) }),
    ),
  ),
});

export const updateSchema = z.object({
  update_id: int,
  message: z.optional(
    z.object({
      message_id: int,
      from: z.optional(userSchema),
      sender_chat: z.optional(z.object({ id: z.number() })),
      chat: chatSchema,
      text: z.optional(z.string().check(z.maxLength(4096))),
      // A message of at most 4096 characters has fewer entities than that.
      entities: z.optional(z.array(entitySchema).check(z.maxLength(4096))),
      reply_to_message: z.optional(z.object({ message_id: int, from: z.optional(userSchema) })),
    }),
  ),
  callback_query: z.optional(
    z.object({
      id: z.string(),
      from: userSchema,
      message: z.optional(
        z.object({ message_id: int, chat: chatSchema, reply_markup: z.optional(keyboardSchema) }),
      ),
      data: z.optional(z.string().check(z.maxLength(64))),
    }),
  ),
});
export type TelegramUpdate = z.infer<typeof updateSchema>;

const COMMAND = /^\/(cancel|question)(?:@(\w+))?\s*$/i;

/**
 * What a `t.me/<bot>?start=<token>` link makes the person's client send in the bot's private chat (a start
 * parameter is 1–64 of A–Z a–z 0–9 _ -). A bare `/start` is no such request.
 */
const START_WITH_TOKEN = /^\/start\s+([A-Za-z0-9_-]{1,64})$/;

/**
 * Any `/start` (bare, addressed to a bot, with any parameter): Telegram sends it when a person opens the bot,
 * often from a t.me link. It is never an answer, not even in a private chat where a question waits.
 */
const START = /^\/start(@\w+)?(\s|$)/i;

/** Who the bot is: its user id (the bot token up to `:`) and its @username (getMe), read only when needed. */
export interface TelegramBot {
  id: string;
  username: () => Promise<string>;
}

type Message = NonNullable<TelegramUpdate["message"]>;
type Entity = NonNullable<Message["entities"]>[number];

/** `/start <token>` sent by a person: in their private chat with the bot (`inPrivate`), or anywhere else. */
export interface StartRequest {
  actor: string;
  chatId: number;
  token: string;
  /** The bot's private chat with the sender: the only place their link may be handed to them. */
  inPrivate: boolean;
}

/** The message as a `/start <token>`, or undefined when it is not one. */
export function startRequestOf(update: TelegramUpdate): StartRequest | undefined {
  const message = update.message;
  if (!message?.from || message.from.is_bot || message.sender_chat || message.text === undefined)
    return undefined;
  const token = START_WITH_TOKEN.exec(message.text.trim())?.[1];
  if (token === undefined) return undefined;
  return {
    actor: `telegram:${message.from.id}`,
    chatId: message.chat.id,
    token,
    inPrivate: message.chat.type === "private" && message.chat.id === message.from.id,
  };
}

/**
 * A text message as inbound: commands, or a typed (possibly replying) answer. Undefined: not for us. Typed
 * text is addressed to the bot in a direct conversation, as a reply to one of the bot's messages, or when it
 * mentions the bot (`@username`, or a text mention of its user); a leading mention is not part of the answer.
 */
export async function messageToInbound(
  update: TelegramUpdate,
  bot: TelegramBot,
): Promise<Inbound | undefined> {
  const message = update.message;
  // Messages sent on behalf of a chat (anonymous admins, channels) have no person to check as owner.
  if (!message?.from || message.from.is_bot || message.sender_chat || message.text === undefined)
    return undefined;
  const base = {
    platform: "telegram" as const,
    actor: `telegram:${message.from.id}`,
    chatId: String(message.chat.id),
    dedupeKey: `${bot.id}:${update.update_id}`,
    replyToMessageId: message.reply_to_message ? String(message.reply_to_message.message_id) : undefined,
  };
  if (START.test(message.text.trim())) return undefined;
  const command = COMMAND.exec(message.text.trim());
  if (command?.[1]) {
    // `/cancel@OtherBot` in a group is another bot's command.
    const to = command[2];
    if (to !== undefined && to.toLowerCase() !== (await bot.username()).toLowerCase()) return undefined;
    return { ...base, kind: "command", command: command[1].toLowerCase() as "cancel" | "question" };
  }
  const mention = await botMention(message, bot);
  const repliedTo = message.reply_to_message?.from;
  const repliesToBot = repliedTo !== undefined && String(repliedTo.id) === bot.id;
  return {
    ...base,
    kind: "text",
    text: mention ? withoutLeadingMention(message.text, mention) : message.text,
    addressed: message.chat.type === "private" || repliesToBot || mention !== undefined,
  };
}

/** The first entity that names the bot. The username is asked for only when there is an @mention to check. */
async function botMention(message: Message, bot: TelegramBot): Promise<Entity | undefined> {
  const entities = message.entities ?? [];
  const textMention = entities.find(
    (e) => e.type === "text_mention" && e.user !== undefined && String(e.user.id) === bot.id,
  );
  if (textMention) return textMention;
  const mentions = entities.filter((e) => e.type === "mention");
  if (mentions.length === 0) return undefined;
  const handle = `@${await bot.username()}`.toLowerCase();
  const text = message.text ?? "";
  return mentions.find((e) => text.slice(e.offset, e.offset + e.length).toLowerCase() === handle);
}

/** "@HandraiseBot 2" → "2"; a mention later in the text stays part of it. */
function withoutLeadingMention(text: string, mention: Entity): string {
  if (text.slice(0, mention.offset).trim() !== "") return text;
  return text.slice(mention.offset + mention.length).replace(/^[\s:,]+/, "");
}

export function keyboardOf(update: TelegramUpdate): InlineKeyboard | undefined {
  return update.callback_query?.message?.reply_markup?.inline_keyboard.map((row) =>
    row.map((button) =>
      button.url !== undefined && button.callback_data === undefined
        ? { text: button.text, url: button.url }
        : { text: button.text, callback_data: button.callback_data ?? "" },
    ),
  );
}
