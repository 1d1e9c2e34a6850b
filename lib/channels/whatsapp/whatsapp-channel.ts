import type { DeliveryTarget } from "../../questions/question-record.ts";
import { firstOpenStep } from "../../questions/question-record.ts";
import { type AnswerLinks, NO_ANSWER_LINKS } from "../../web/answer-link.ts";
import { browserEntry } from "../answer-in-browser.ts";
import type { ChatChannel } from "../chat-channel.ts";
import { reminderText } from "../replies.ts";
import type { WhatsappApi } from "./whatsapp-api.ts";
import { renderStep, textMessage } from "./whatsapp-render.ts";
import type { WhatsappTemplate } from "./whatsapp-spec.ts";
import { isWindowClosed, reminderNotSent, sendTemplateInstead, tagged } from "./whatsapp-window.ts";

/**
 * Whether `target` is the chat of the business number with `answerer`. A WhatsApp chat with the business
 * number is one person's, named by their wa_id, so the target alone says it; groups are not served.
 */
export function isOwnChatOf(target: Pick<DeliveryTarget, "chatId">, answerer: string): boolean {
  return /^\d+$/.test(target.chatId) && answerer === `whatsapp:${target.chatId}`;
}

export interface WhatsappChannelOptions {
  links?: AnswerLinks;
  /** Sent in place of the question when the 24-hour window is closed; without it such a target fails. */
  template?: WhatsappTemplate | undefined;
}

/**
 * Posts questions to WhatsApp chats — a prompt of several questions at its first open step; the webhook posts
 * the later ones — and reminders as messages replying to the question. WhatsApp cannot edit a sent message,
 * so nothing is retired: a tap or reply after the end is told the outcome (the webhook).
 *
 * WhatsApp takes a free-form message only within 24 hours of the person's last message to the business
 * (error 131047 otherwise, ./whatsapp-window.ts). A send refused at once for it gets the fallback here: with a
 * template configured, the template goes instead — carrying the question's header and the person's own link,
 * so only to their own chat with the page on; else the target fails with that reason. A send taken and
 * failed later gets the same fallback from the webhook. A reminder refused for it fails naming why.
 */
export function createWhatsappChannel(api: WhatsappApi, options: WhatsappChannelOptions = {}): ChatChannel {
  const links = options.links ?? NO_ANSWER_LINKS;
  const fallback = { api, links, template: options.template };

  return {
    name: "whatsapp",
    async deliver(record, target, answerer) {
      const privateTo = isOwnChatOf(target, answerer) ? answerer : undefined;
      let messageId: string;
      try {
        const step = renderStep(record, firstOpenStep(record), await browserEntry(links, record, privateTo));
        messageId = await api.send(target.chatId, { ...step, ...tagged("question", record.id) });
      } catch (error) {
        if (!isWindowClosed(error)) throw error;
        messageId = await sendTemplateInstead(fallback, record, target.chatId, privateTo);
      }
      return { ...target, messageId, ...(privateTo !== undefined && { privateTo }) };
    },
    // Nothing to do: a sent message cannot be edited. A late tap is told the outcome instead.
    async retire() {},
    async remind(record, delivery, reminder) {
      const message = { ...textMessage(reminderText(reminder)), ...tagged("reminder", record.id) };
      try {
        await api.send(delivery.chatId, message, delivery.messageId);
      } catch (error) {
        throw isWindowClosed(error) ? reminderNotSent() : error;
      }
    },
  };
}
