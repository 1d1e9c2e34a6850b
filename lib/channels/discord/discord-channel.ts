import { firstOpenStep, type QuestionRecord } from "../../questions/question-record.ts";
import { type AnswerLinks, NO_ANSWER_LINKS } from "../../web/answer-link.ts";
import type { ChatChannel } from "../chat-channel.ts";
import { PlatformApiError } from "../platform-api-error.ts";
import type { DiscordApi } from "./discord-api.ts";
import { escapeMarkdown, NO_MENTIONS, promptMessage, retiredContent } from "./discord-render.ts";

const messagesPath = (chatId: string) => `/channels/${encodeURIComponent(chatId)}/messages`;

/** Edits one posted copy to the outcome and removes its components. */
export function retireMessage(
  api: DiscordApi,
  record: QuestionRecord,
  chatId: string,
  messageId: string,
): Promise<unknown> {
  return api.request("PATCH", `${messagesPath(chatId)}/${encodeURIComponent(messageId)}`, {
    content: retiredContent(record),
    components: [],
    allowed_mentions: NO_MENTIONS,
  });
}

/**
 * Posts questions to Discord channels (`chatId` is a channel id: a guild text channel, a thread, or a DM
 * channel) as bot messages, and once they end edits every copy to the outcome without components (the copy
 * whose button ended the question was already updated by the interaction response, type 7; editing it to
 * the same content again is harmless, and the stream consumer that retires copies cannot tell which it was).
 */
export function createDiscordChannel(api: DiscordApi, links: AnswerLinks = NO_ANSWER_LINKS): ChatChannel {
  return {
    name: "discord",
    async deliver(record, target) {
      // At the first step still open (`/question` posts it again after some were chosen); a prompt of several
      // questions is then redrawn in place, step by step, by the webhook.
      const message = await api.request<{ id?: unknown }>(
        "POST",
        messagesPath(target.chatId),
        promptMessage(record, firstOpenStep(record), await links.urlFor(record)),
      );
      if (typeof message?.id !== "string") {
        throw new PlatformApiError(
          "discord",
          "POST /channels/{id}/messages",
          undefined,
          "no message id returned",
        );
      }
      return { ...target, messageId: message.id };
    },
    async retire(record, delivery) {
      if (delivery.messageId === undefined) return;
      await retireMessage(api, record, delivery.chatId, delivery.messageId);
    },
    async remind(_record, delivery, text) {
      if (delivery.messageId === undefined) return;
      await api.request("POST", messagesPath(delivery.chatId), {
        content: escapeMarkdown(text),
        // A reply to the question; sent all the same if someone deleted it.
        message_reference: { message_id: delivery.messageId, fail_if_not_exists: false },
        allowed_mentions: NO_MENTIONS,
      });
    },
  };
}
