import { firstOpenStep } from "../../questions/question-record.ts";
import { type AnswerLinks, NO_ANSWER_LINKS } from "../../web/answer-link.ts";
import type { ChatChannel } from "../chat-channel.ts";
import { outcomeText } from "../replies.ts";
import type { TelegramApi } from "./telegram-api.ts";
import { renderPrompt, renderText } from "./telegram-render.ts";

/**
 * Posts questions to Telegram chats (with the answer page's link when it is on) — a prompt of several
 * questions at its first open step, the webhook redraws the later ones — and, once they end, edits
 * every copy to the outcome without buttons (an empty keyboard: the answer page's button goes too).
 */
export function createTelegramChannel(api: TelegramApi, links: AnswerLinks = NO_ANSWER_LINKS): ChatChannel {
  return {
    name: "telegram",
    async deliver(record, target) {
      const answerUrl = await links.urlFor(record);
      const message = await api.call<{ message_id: number }>("sendMessage", {
        chat_id: target.chatId,
        ...(target.threadId !== undefined && { message_thread_id: Number(target.threadId) }),
        ...renderPrompt(record, firstOpenStep(record), answerUrl),
      });
      return { ...target, messageId: String(message.message_id) };
    },
    async retire(record, delivery) {
      if (delivery.messageId === undefined) return;
      await api.call("editMessageText", {
        chat_id: delivery.chatId,
        message_id: Number(delivery.messageId),
        text: `${renderText(record)}\n\n${outcomeText(record)}`,
        reply_markup: { inline_keyboard: [] },
      });
    },
    async remind(_record, delivery, text) {
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
