/**
 * `npm run telegram:whoami`: the chats and people of the recent messages to a bot, read with `getUpdates` —
 * the values a deployer needs for owners (`telegram:<user id>`) and targets (the chat id). It reads without
 * an `offset`, which confirms nothing: the updates stay with Telegram (for 24 hours) for whoever reads them
 * next. Telegram refuses `getUpdates` (409 Conflict) while the bot has a webhook; then this says so, and
 * `deleteWebhook` (the `--delete-webhook` option) is the Bot API's way out until `telegram:setup` sets the
 * webhook again.
 */
import * as z from "../../zod.ts";
import { PlatformApiError } from "../platform-api-error.ts";
import type { TelegramApi } from "./telegram-api.ts";

const id = z.number().check(z.int());
const userSchema = z.object({
  id,
  is_bot: z.optional(z.boolean()),
  first_name: z.optional(z.string()),
  last_name: z.optional(z.string()),
  username: z.optional(z.string()),
});
const chatSchema = z.object({
  id,
  type: z.string(),
  title: z.optional(z.string()),
  username: z.optional(z.string()),
  first_name: z.optional(z.string()),
  last_name: z.optional(z.string()),
});
const messageSchema = z.object({
  chat: chatSchema,
  from: z.optional(userSchema),
  sender_chat: z.optional(chatSchema),
  message_thread_id: z.optional(id),
  is_topic_message: z.optional(z.boolean()),
  date: z.optional(z.number()),
});
/** The update kinds that name a chat and who acted in it; any other kind is passed over. */
const updateSchema = z.object({
  update_id: id,
  message: z.optional(messageSchema),
  edited_message: z.optional(messageSchema),
  channel_post: z.optional(messageSchema),
  callback_query: z.optional(z.object({ from: userSchema, message: z.optional(messageSchema) })),
  my_chat_member: z.optional(z.object({ chat: chatSchema, from: userSchema, date: z.optional(z.number()) })),
});
type TelegramUser = z.infer<typeof userSchema>;
type TelegramChat = z.infer<typeof chatSchema>;

export interface PersonSeen {
  id: string;
  name: string;
  username?: string;
  isBot: boolean;
}

/** A chat (a forum topic: one per topic) and the people seen acting in it, in the order first seen. */
export interface ChatSeen {
  id: string;
  /** `private`, `group`, `supergroup` or `channel`. */
  type: string;
  /** The group's or channel's title, or the person's name in a private chat. */
  name: string;
  username?: string;
  threadId?: string;
  people: PersonSeen[];
}

export interface BotIdentity {
  id: string;
  username?: string;
}

export type WhoamiReport =
  | { kind: "seen"; bot: BotIdentity; chats: ChatSeen[]; removedWebhook?: string }
  /** Telegram refused getUpdates because the bot has this webhook. */
  | { kind: "webhook"; bot: BotIdentity; webhookUrl: string }
  /** Refused with no webhook set: another program is reading the bot's updates. */
  | { kind: "other_reader"; bot: BotIdentity };

/**
 * Reads who wrote to the bot recently. With `deleteWebhook`, first removes the bot's webhook (keeping the
 * updates Telegram holds), so that `getUpdates` is allowed.
 */
export async function readRecentChats(
  api: TelegramApi,
  options: { deleteWebhook?: boolean } = {},
): Promise<WhoamiReport> {
  const me = await api.call<{ id: number; username?: string }>("getMe", {});
  const bot: BotIdentity = { id: String(me.id), ...(me.username && { username: me.username }) };
  let removedWebhook: string | undefined;
  if (options.deleteWebhook) {
    removedWebhook = (await webhookUrlOf(api)) || undefined;
    await api.call("deleteWebhook", { drop_pending_updates: false });
  }
  let updates: unknown[];
  try {
    // No offset: confirms nothing. No allowed_updates: that would change what the bot receives from now on.
    updates = await api.call<unknown[]>("getUpdates", { timeout: 0, limit: 100 });
  } catch (error) {
    if (!(error instanceof PlatformApiError) || error.status !== 409) throw error;
    const webhookUrl = await webhookUrlOf(api);
    return webhookUrl ? { kind: "webhook", bot, webhookUrl } : { kind: "other_reader", bot };
  }
  return { kind: "seen", bot, chats: chatsOf(updates), ...(removedWebhook && { removedWebhook }) };
}

async function webhookUrlOf(api: TelegramApi): Promise<string> {
  const info = await api.call<{ url?: string }>("getWebhookInfo", {});
  return info.url ?? "";
}

/** The chats of some updates, each with the people seen in it, in the order they were first seen. */
export function chatsOf(updates: readonly unknown[]): ChatSeen[] {
  const chats = new Map<string, ChatSeen>();
  const see = (chat: TelegramChat, person: TelegramUser | undefined, threadId?: number) => {
    const key = `${chat.id}/${threadId ?? ""}`;
    let seen = chats.get(key);
    if (!seen) {
      seen = {
        id: String(chat.id),
        type: chat.type,
        name: chat.title ?? nameOf(chat),
        ...(chat.username && { username: chat.username }),
        ...(threadId !== undefined && { threadId: String(threadId) }),
        people: [],
      };
      chats.set(key, seen);
    }
    if (person && !seen.people.some((p) => p.id === String(person.id))) {
      seen.people.push({
        id: String(person.id),
        name: nameOf(person),
        ...(person.username && { username: person.username }),
        isBot: person.is_bot === true,
      });
    }
  };
  for (const raw of updates) {
    const parsed = updateSchema.safeParse(raw);
    if (!parsed.success) continue;
    const update = parsed.data;
    const message = update.message ?? update.edited_message ?? update.channel_post;
    if (message) {
      // A topic's messages carry its thread id; a reply elsewhere carries one too, which is no topic.
      const topic = message.is_topic_message ? message.message_thread_id : undefined;
      // Sent on behalf of a chat (a channel, an anonymous admin): there is no person to name.
      see(message.chat, message.sender_chat ? undefined : message.from, topic);
    }
    const tapped = update.callback_query;
    if (tapped?.message) see(tapped.message.chat, tapped.from);
    const added = update.my_chat_member;
    if (added) see(added.chat, added.from);
  }
  return [...chats.values()];
}

function nameOf(who: { first_name?: string | undefined; last_name?: string | undefined }): string {
  return [who.first_name, who.last_name].filter(Boolean).join(" ") || "(no name)";
}

const at = (username: string | undefined) => (username ? ` (@${username})` : "");

/** The report as the lines the script prints. */
export function whoamiLines(report: WhoamiReport): string[] {
  const botName = report.bot.username ? `@${report.bot.username}` : `bot ${report.bot.id}`;
  if (report.kind === "webhook") {
    return [
      `${botName} has a webhook (${report.webhookUrl}), and Telegram refuses getUpdates while it has one` +
        " (409 Conflict). To read the ids, switch the webhook off for a moment — while it is off Handraise" +
        " hears nothing from Telegram, so pick a time when no question is waiting:",
      "  1. npm run telegram:whoami -- --delete-webhook   (Telegram keeps the updates meanwhile)",
      `  2. send ${botName} a message (in a group: a command such as /start@${report.bot.username ?? "<bot>"},` +
        " or a mention of it)",
      "  3. npm run telegram:whoami",
      `  4. TELEGRAM_BOT_TOKEN=… TELEGRAM_WEBHOOK_SECRET=… npm run telegram:setup -- ${report.webhookUrl}`,
      "     (sets the webhook again; what was written meanwhile then reaches Handraise)",
    ];
  }
  if (report.kind === "other_reader") {
    return [
      `Telegram refused getUpdates for ${botName} (409 Conflict) although it has no webhook: another program` +
        " is reading its updates (npm start's demo polls them). Stop it, and run this again.",
    ];
  }
  const lines: string[] = [];
  if (report.removedWebhook) {
    lines.push(
      `Removed the webhook of ${botName} (${report.removedWebhook}). Set it again when done:`,
      `  TELEGRAM_BOT_TOKEN=… TELEGRAM_WEBHOOK_SECRET=… npm run telegram:setup -- ${report.removedWebhook}`,
      "",
    );
  }
  if (report.chats.length === 0) {
    lines.push(
      `No recent messages to ${botName}. Send it one — in a group, a command such as ` +
        `/start@${report.bot.username ?? "<bot>"} or a mention of it (a bot in privacy mode sees nothing else)` +
        " — and run this again. Telegram keeps a bot's updates for 24 hours.",
    );
    return lines;
  }
  lines.push(`Recent messages to ${botName}, by chat:`);
  for (const chat of report.chats) {
    const where =
      chat.type === "private"
        ? `private chat with ${chat.name}${at(chat.username)}`
        : `${chat.type} "${chat.name}"${at(chat.username)}${chat.threadId ? `, topic ${chat.threadId}` : ""}`;
    const target = chat.threadId
      ? JSON.stringify({ channel: "telegram", chatId: chat.id, threadId: chat.threadId })
      : `telegram:${chat.id}`;
    lines.push("", where, `  chat id ${chat.id}   target: ${target}`);
    for (const person of chat.people) {
      lines.push(
        person.isBot
          ? `  from ${person.name}${at(person.username)}, a bot, user id ${person.id}`
          : `  from ${person.name}${at(person.username)}, user id ${person.id}   owner: telegram:${person.id}`,
      );
    }
  }
  return lines;
}
