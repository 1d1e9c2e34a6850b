import type { DeliveryTarget } from "../../questions/question-record.ts";
import { firstOpenStep } from "../../questions/question-record.ts";
import { type AnswerLinks, NO_ANSWER_LINKS } from "../../web/answer-link.ts";
import { browserEntry } from "../answer-in-browser.ts";
import type { ChatChannel } from "../chat-channel.ts";
import { PlatformApiError } from "../platform-api-error.ts";
import { reminderText } from "../replies.ts";
import type { TelegramApi } from "./telegram-api.ts";
import { renderPrompt, renderRetiredText } from "./telegram-render.ts";

/**
 * Whether `target` is the private chat of the bot with `answerer`. A Telegram chat of type `private` is the
 * chat with one user, and its id is that user's id (a group's or a channel's id is negative), so the target
 * alone says it — no API call, nothing to go stale.
 */
export function isPrivateChatOf(target: DeliveryTarget, answerer: string): boolean {
  return /^\d+$/.test(target.chatId) && answerer === `telegram:${target.chatId}`;
}

/**
 * Posts questions to Telegram chats — a prompt of several questions at its first open step, the webhook
 * redraws the later ones — and, once they end, edits every copy to the outcome without buttons (an empty
 * keyboard: "Answer in browser" goes too). With the answer page on, a copy in the answerer's private chat
 * carries their own link; a copy anywhere else an "Answer in browser" button that hands each tapper theirs.
 */
export function createTelegramChannel(api: TelegramApi, links: AnswerLinks = NO_ANSWER_LINKS): ChatChannel {
  return {
    name: "telegram",
    async deliver(record, target, answerer) {
      const privateTo = isPrivateChatOf(target, answerer) ? answerer : undefined;
      const message = await api.call<{ message_id: number }>("sendMessage", {
        chat_id: target.chatId,
        ...(target.threadId !== undefined && { message_thread_id: Number(target.threadId) }),
        ...renderPrompt(record, firstOpenStep(record), await browserEntry(links, record, privateTo)),
        // A copy that carries its answerer's link cannot be forwarded (into a group, where others could use it).
        ...(privateTo !== undefined && (await links.isOn()) && { protect_content: true }),
      });
      return {
        ...target,
        messageId: String(message.message_id),
        ...(privateTo !== undefined && { privateTo }),
      };
    },
    async retire(record, delivery) {
      if (delivery.messageId === undefined) return;
      try {
        await api.call("editMessageText", {
          chat_id: delivery.chatId,
          message_id: Number(delivery.messageId),
          text: renderRetiredText(record, delivery.privateTo),
          reply_markup: { inline_keyboard: [] },
        });
      } catch (error) {
        // Already showing this (a webhook's own edit came first, or the stream delivered the change twice).
        if (error instanceof PlatformApiError && /message is not modified/i.test(error.message)) return;
        throw error;
      }
    },
    async remind(_record, delivery, reminder) {
      const text = reminderText(reminder);
      if (delivery.messageId === undefined) return;
      await api.call("sendMessage", {
        chat_id: delivery.chatId,
        ...(delivery.threadId !== undefined && { message_thread_id: Number(delivery.threadId) }),
        text,
        // A reply to the question; sent all the same if someone deleted it.
        reply_parameters: { message_id: Number(delivery.messageId), allow_sending_without_reply: true },
      });
    },
  };
}
