import { firstOpenStep } from "../../questions/question-record.ts";
import type { SecretValue } from "../../secrets/secrets.ts";
import { type AnswerLinks, NO_ANSWER_LINKS } from "../../web/answer-link.ts";
import type { ChatChannel } from "../chat-channel.ts";
import type { MattermostApi } from "./mattermost-api.ts";
import { type ActionTarget, escapeMarkdown, renderPost, retiredPost } from "./mattermost-render.ts";

/**
 * Posts questions to Mattermost channels (as a thread reply when the target has a `threadId`, the root post
 * id) — several questions at their first open step, the webhook redraws the later ones — and, once they end,
 * edits every copy to the outcome without buttons.
 *
 * @example
 * const channel = createMattermostChannel(api, { url: "https://api.example.com/webhooks/mattermost", secret });
 * const delivery = await channel.deliver(record, { channel: "mattermost", chatId: "<channel id>" });
 */
export function createMattermostChannel(
  api: MattermostApi,
  actions: { url: string; secret: SecretValue },
  links: AnswerLinks = NO_ANSWER_LINKS,
): ChatChannel {
  return {
    name: "mattermost",
    async deliver(record, delivery) {
      const target: ActionTarget = { url: actions.url, secret: await actions.secret() };
      const post = await api.createPost({
        channel_id: delivery.chatId,
        ...(delivery.threadId !== undefined && { root_id: delivery.threadId }),
        ...renderPost(record, target, await links.urlFor(record), firstOpenStep(record)),
      });
      return { ...delivery, messageId: post.id };
    },
    async retire(record, delivery) {
      if (delivery.messageId === undefined) return;
      await api.patchPost(delivery.messageId, retiredPost(record));
    },
    async remind(_record, delivery, text) {
      if (delivery.messageId === undefined) return;
      await api.createPost({
        channel_id: delivery.chatId,
        // In the question's thread: a reply to its post, or in the thread it was posted into.
        root_id: delivery.threadId ?? delivery.messageId,
        message: escapeMarkdown(text),
        props: { attachments: [] },
      });
    },
  };
}
