/**
 * Telegram `Update` → the one inbound type. Only the fields Handraise reads are parsed; any other update
 * kind is not an error (Telegram must get a 200 for it, or it retries and blocks the chat's queue).
 */
import { z } from "zod";
import type { Inbound } from "../inbound.ts";
import type { InlineKeyboard } from "./telegram-render.ts";

const userSchema = z.object({ id: z.number().int(), is_bot: z.boolean().optional() });
const chatSchema = z.object({ id: z.number().int() });
const keyboardSchema = z.object({
  inline_keyboard: z.array(z.array(z.object({ text: z.string(), callback_data: z.string().optional() }))),
});

export const updateSchema = z.object({
  update_id: z.number().int(),
  message: z
    .object({
      message_id: z.number().int(),
      from: userSchema.optional(),
      sender_chat: z.object({ id: z.number() }).optional(),
      chat: chatSchema,
      text: z.string().max(4096).optional(),
      reply_to_message: z.object({ message_id: z.number().int() }).optional(),
    })
    .optional(),
  callback_query: z
    .object({
      id: z.string(),
      from: userSchema,
      message: z
        .object({ message_id: z.number().int(), chat: chatSchema, reply_markup: keyboardSchema.optional() })
        .optional(),
      data: z.string().max(64).optional(),
    })
    .optional(),
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
