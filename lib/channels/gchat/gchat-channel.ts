import { firstOpenStep } from "../../questions/question-record.ts";
import { type AnswerLinks, NO_ANSWER_LINKS } from "../../web/answer-link.ts";
import { browserEntry } from "../answer-in-browser.ts";
import {
  askPrivacy,
  type ChatChannel,
  ignorePrivacyUnconfirmed,
  type PrivacyUnconfirmed,
} from "../chat-channel.ts";
import { reminderText } from "../replies.ts";
import { type GchatApi, isAppDirectMessage, SPACE_NAME, THREAD_NAME } from "./gchat-api.ts";
import { renderQuestionMessage, renderRetiredMessage, textMessage } from "./gchat-render.ts";

/** The owner prefix of a Google Chat person: `gchat:users/<id>`. */
const OWNER_PREFIX = "gchat:";

/**
 * Whether `space` is the direct message between the app and `answerer`, as the Chat API says: the space is
 * the app's direct message with one person (`isAppDirectMessage`), and it is the one the API finds for
 * that person (`spaces:findDirectMessage`). The target names the space and the owner names the person, and
 * both are written by whoever holds an API key, so only the API can tie them together. Any error, or an
 * answerer of another platform, means shared.
 */
async function isDirectMessageWith(
  api: GchatApi,
  space: string,
  answerer: string,
  privacyUnconfirmed: PrivacyUnconfirmed,
): Promise<boolean> {
  if (!answerer.startsWith(`${OWNER_PREFIX}users/`)) return false;
  const described = await askPrivacy(() => api.space(space), privacyUnconfirmed);
  if (!isAppDirectMessage(described)) return false;
  const user = answerer.slice(OWNER_PREFIX.length);
  const direct = await askPrivacy(() => api.directMessageWith(user), privacyUnconfirmed);
  return direct?.name === space;
}

/**
 * Posts questions to Google Chat spaces as cards, through the Chat API as the app, and, once they end,
 * writes every copy over with the outcome (no buttons, no inputs). A copy in the app's direct message with
 * its answerer carries their answer link; a copy in a shared space the "Answer in browser" button.
 * Reminders are replies in the copy's thread.
 *
 * @example
 * const channel = createGchatChannel(api, links);
 * const delivery = await channel.deliver(record, { channel: "gchat", chatId: "spaces/AAAA" }, "gchat:users/42");
 */
export function createGchatChannel(
  api: GchatApi,
  links: AnswerLinks = NO_ANSWER_LINKS,
  privacyUnconfirmed: PrivacyUnconfirmed = ignorePrivacyUnconfirmed,
): ChatChannel {
  return {
    name: "gchat",
    async deliver(record, target, answerer) {
      if (!SPACE_NAME.test(target.chatId))
        throw new Error("the target's chatId is not a space (spaces/<id>)");
      if (target.threadId !== undefined && !THREAD_NAME.test(target.threadId)) {
        throw new Error("the target's threadId is not a thread of a space (spaces/<id>/threads/<id>)");
      }
      const privateTo = (await isDirectMessageWith(api, target.chatId, answerer, privacyUnconfirmed))
        ? answerer
        : undefined;
      // Posted again (a new space), a prompt goes on at the first step its draft leaves open.
      const message = renderQuestionMessage(record, {
        step: firstOpenStep(record),
        browser: await browserEntry(links, record, privateTo),
      });
      const posted = await api.send(target.chatId, message, target.threadId);
      const threadId = posted.thread ?? target.threadId;
      // A card posted outside a thread starts its own, which Chat names apart from the card: indexed with it,
      // a line typed there finds this question whoever typed it, unless the sender's own card was posted
      // into that thread since (lib/channels/gchat/gchat-webhook.ts).
      const startedThread = target.threadId === undefined && posted.thread !== undefined;
      return {
        ...target,
        messageId: posted.name,
        ...(threadId !== undefined && { threadId }),
        ...(privateTo !== undefined && { privateTo }),
        ...(startedThread && { startedThread: true as const }),
      };
    },
    async retire(record, delivery) {
      if (delivery.messageId === undefined) return;
      await api.update(delivery.messageId, renderRetiredMessage(record, delivery.privateTo));
    },
    async remind(_record, delivery, reminder) {
      // No card was posted there: nothing to remind under.
      if (delivery.messageId === undefined) return;
      // A reply in the card's thread; the card and its buttons stay as they are.
      await api.send(delivery.chatId, textMessage(reminderText(reminder)), delivery.threadId);
    },
  };
}
