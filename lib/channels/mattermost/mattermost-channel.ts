import { firstOpenStep } from "../../questions/question-record.ts";
import type { SecretValue } from "../../secrets/secrets.ts";
import { type AnswerLinks, NO_ANSWER_LINKS } from "../../web/answer-link.ts";
import { browserEntry } from "../answer-in-browser.ts";
import {
  askPrivacy,
  type ChatChannel,
  ignorePrivacyUnconfirmed,
  type PrivacyUnconfirmed,
} from "../chat-channel.ts";
import { remembered } from "../remembered.ts";
import { reminderText } from "../replies.ts";
import type { MattermostApi, MattermostChannelInfo } from "./mattermost-api.ts";
import { type ActionTarget, escapeMarkdown, renderPost, retiredPost } from "./mattermost-render.ts";

/**
 * Whether `channel` is the direct channel between the bot and `userId` alone: type `D`, whose name is the
 * two members' ids joined by `__` (Mattermost's own naming, which cannot be changed).
 */
export function isDirectChannelWith(
  channel: Pick<MattermostChannelInfo, "type" | "name">,
  botUserId: string,
  userId: string,
): boolean {
  if (channel.type !== "D" || botUserId === userId) return false;
  const members = channel.name.split("__");
  return members.length === 2 && members.includes(botUserId) && members.includes(userId);
}

/**
 * Posts questions to Mattermost channels (as a thread reply when the target has a `threadId`, the root post
 * id) — several questions at their first open step, the webhook redraws the later ones — and, once they end,
 * edits every copy to the outcome without buttons. Only a copy in the direct channel between the bot and its
 * answerer carries that person's answer link; any other gets an "Answer in browser" button.
 *
 * @example
 * const channel = createMattermostChannel(api, { url: "https://api.example.com/webhooks/mattermost", secret });
 * const delivery = await channel.deliver(record, { channel: "mattermost", chatId: "<channel id>" }, "mattermost:<user id>");
 */
export function createMattermostChannel(
  api: MattermostApi,
  actions: { url: string; secret: SecretValue },
  links: AnswerLinks = NO_ANSWER_LINKS,
  privacyUnconfirmed: PrivacyUnconfirmed = ignorePrivacyUnconfirmed,
): ChatChannel {
  const botUserId = remembered(() => api.getMe().then((me) => me.id));

  /**
   * Whether the API says `channelId` is the bot's direct channel with `answerer`. Asked at each delivery
   * (nothing kept that could go stale); any error, or an answerer of another platform, means shared.
   */
  async function isPrivateTo(channelId: string, answerer: string): Promise<boolean> {
    if (!answerer.startsWith("mattermost:")) return false;
    const confirmed = await askPrivacy(async () => {
      const channel = await api.getChannel(channelId);
      if (channel.id !== channelId || channel.type !== "D") return false;
      return isDirectChannelWith(channel, await botUserId(), answerer.slice("mattermost:".length));
    }, privacyUnconfirmed);
    return confirmed === true;
  }

  return {
    name: "mattermost",
    async deliver(record, delivery, answerer) {
      const target: ActionTarget = { url: actions.url, secret: await actions.secret() };
      const privateTo = (await isPrivateTo(delivery.chatId, answerer)) ? answerer : undefined;
      const browser = await browserEntry(links, record, privateTo);
      const post = await api.createPost({
        channel_id: delivery.chatId,
        ...(delivery.threadId !== undefined && { root_id: delivery.threadId }),
        ...renderPost(record, target, browser, firstOpenStep(record)),
      });
      return { ...delivery, messageId: post.id, ...(privateTo !== undefined && { privateTo }) };
    },
    async retire(record, delivery) {
      if (delivery.messageId === undefined) return;
      await api.patchPost(delivery.messageId, retiredPost(record, delivery.privateTo));
    },
    async remind(_record, delivery, reminder) {
      const text = reminderText(reminder);
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
