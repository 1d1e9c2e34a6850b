import type { DeliveryTarget, QuestionRecord } from "../../questions/question-record.ts";
import { firstOpenStep } from "../../questions/question-record.ts";
import { type AnswerLinks, NO_ANSWER_LINKS } from "../../web/answer-link.ts";
import { browserEntry } from "../answer-in-browser.ts";
import type { ChatChannel } from "../chat-channel.ts";
import { reminderText } from "../replies.ts";
import { OUTSIDE_SERVICE_WINDOW, type WhatsappApi, WhatsappApiError } from "./whatsapp-api.ts";
import { renderStep, renderTemplate, textMessage } from "./whatsapp-render.ts";
import type { WhatsappTemplate } from "./whatsapp-spec.ts";

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
 * (error 131047 otherwise). Then, with a template configured, the template goes instead — carrying the
 * question's header and the person's own link, so only to their own chat with the page on; else the target
 * fails with that reason.
 */
export function createWhatsappChannel(api: WhatsappApi, options: WhatsappChannelOptions = {}): ChatChannel {
  const links = options.links ?? NO_ANSWER_LINKS;

  async function outsideWindow(
    record: QuestionRecord,
    target: DeliveryTarget,
    privateTo: string | undefined,
  ) {
    const why = "WhatsApp's 24-hour window is closed (code 131047)";
    if (!options.template)
      throw new WhatsappApiError(
        "POST /messages",
        400,
        `${why} and WHATSAPP_TEMPLATE is not set`,
        OUTSIDE_SERVICE_WINDOW,
      );
    const url = privateTo === undefined ? undefined : await links.urlFor(record, privateTo);
    if (url === undefined) {
      throw new WhatsappApiError(
        "POST /messages",
        400,
        `${why}, and the template needs the answerer's own link: the answer page is off or this chat is not theirs`,
        OUTSIDE_SERVICE_WINDOW,
      );
    }
    return api.send(target.chatId, renderTemplate(record, options.template, url));
  }

  return {
    name: "whatsapp",
    async deliver(record, target, answerer) {
      const privateTo = isOwnChatOf(target, answerer) ? answerer : undefined;
      let messageId: string;
      try {
        messageId = await api.send(
          target.chatId,
          renderStep(record, firstOpenStep(record), await browserEntry(links, record, privateTo)),
        );
      } catch (error) {
        if (!(error instanceof WhatsappApiError) || error.code !== OUTSIDE_SERVICE_WINDOW) throw error;
        messageId = await outsideWindow(record, target, privateTo);
      }
      return { ...target, messageId, ...(privateTo !== undefined && { privateTo }) };
    },
    // Nothing to do: a sent message cannot be edited. A late tap is told the outcome instead.
    async retire() {},
    async remind(_record, delivery, reminder) {
      await api.send(delivery.chatId, textMessage(reminderText(reminder)), delivery.messageId);
    },
  };
}
