/**
 * Telegram `Update` → the one inbound type. Only the fields Handraise reads are parsed; any other update
 * kind is not an error (Telegram must get a 200 for it, or it retries and blocks the chat's queue).
 */
import * as z from "../../zod.ts";
import type { Inbound } from "../inbound.ts";
import type { InlineKeyboard } from "./telegram-render.ts";

const int = z.number().check(z.int());
const userSchema = z.object({ id: int, is_bot: z.optional(z.boolean()) });
const chatSchema = z.object({ id: int });
const keyboardSchema = z.object({
  inline_keyboard: z.array(z.array(z.object({ text: z.string(), callback_data: z.optional(z.string()) }))),
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
      reply_to_message: z.optional(z.object({ message_id: int })),
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

const COMMAND = /^\/(cancel|question)(?:@\w+)?\s*$/i;

/** A text message as inbound: commands, or a typed (possibly replying) answer. Undefined: not for us. */
export function messageToInbound(update: TelegramUpdate, botId: string): Inbound | undefined {
  const message = update.message;
  // Messages sent on behalf of a chat (anonymous admins, channels) have no person to check as owner.
  if (!message?.from || message.from.is_bot || message.sender_chat || message.text === undefined)
    return undefined;
  const base = {
    platform: "telegram" as const,
    actor: `telegram:${message.from.id}`,
    chatId: String(message.chat.id),
    dedupeKey: `${botId}:${update.update_id}`,
    replyToMessageId: message.reply_to_message ? String(message.reply_to_message.message_id) : undefined,
  };
  const command = COMMAND.exec(message.text.trim());
  if (command?.[1])
    return { ...base, kind: "command", command: command[1].toLowerCase() as "cancel" | "question" };
  return { ...base, kind: "text", text: message.text };
}

export function keyboardOf(update: TelegramUpdate): InlineKeyboard | undefined {
  return update.callback_query?.message?.reply_markup?.inline_keyboard.map((row) =>
    row.map((button) => ({ text: button.text, callback_data: button.callback_data ?? "" })),
  );
}
