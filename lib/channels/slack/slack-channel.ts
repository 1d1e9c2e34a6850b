import {
  type Delivery,
  type DeliveryTarget,
  firstOpenStep,
  type QuestionRecord,
} from "../../questions/question-record.ts";
import { type AnswerLinks, NO_ANSWER_LINKS } from "../../web/answer-link.ts";
import { browserEntry, copyIn } from "../answer-in-browser.ts";
import {
  askPrivacy,
  type ChatChannel,
  ignorePrivacyUnconfirmed,
  type PrivacyUnconfirmed,
} from "../chat-channel.ts";
import { reminderText } from "../replies.ts";
import type { SlackApi } from "./slack-api.ts";
import {
  escapeMrkdwn,
  renderBlocks,
  renderRetiredBlocks,
  renderRetiredText,
  renderText,
} from "./slack-render.ts";

/**
 * Posts questions to Slack conversations (`chat.postMessage`, in the target's thread when it has one) and,
 * once they end, edits every copy (`chat.update`) to the prompt plus the outcome, without controls.
 *
 * The delivery keeps the conversation id Slack answers with: a target given as a user id (`U…`) is posted
 * to the app's DM with that user (`D…`), which is where that user's replies and taps come from.
 *
 * A copy carries its answerer's own answer link only in the app's DM with that person (`privateTo`): a target
 * that is their user id, or an IM (`D…`) whose `conversations.info` names them as its user. Anything else —
 * a channel, a group DM, someone else's DM, or an IM Slack did not confirm (an error, a missing `im:read`
 * scope) — gets the "Answer in browser" control instead.
 *
 * A prompt of several questions is posted at the stepper's first step still open; `showStep` redraws a posted message
 * at another step (the webhook, when a tap moved the stepper).
 */
export interface SlackChannel extends ChatChannel {
  showStep(
    record: QuestionRecord,
    message: Pick<Delivery, "chatId" | "messageId">,
    step: number,
  ): Promise<void>;
}

/** IMs remembered at most (each a few bytes); past it the memory starts over. */
const KNOWN_IMS_LIMIT = 1_000;

/** The user id of a Slack identity `slack:<team>:<user>`; undefined for anyone else's. */
function slackUserOf(identity: string): string | undefined {
  return /^slack:[^:]+:([^:]+)$/.exec(identity)?.[1];
}

export function createSlackChannel(
  api: SlackApi,
  links: AnswerLinks = NO_ANSWER_LINKS,
  privacyUnconfirmed: PrivacyUnconfirmed = ignorePrivacyUnconfirmed,
): SlackChannel {
  /** IM id → its user, as Slack confirmed it: an IM is between the app and one person for good. */
  const knownIms = new Map<string, string>();

  /** The user of IM `chatId`; undefined for any other conversation, or when Slack does not say. */
  async function imUserOf(chatId: string): Promise<string | undefined> {
    const known = knownIms.get(chatId);
    if (known !== undefined) return known;
    const info = await askPrivacy(
      () =>
        api.call<{ channel?: { is_im?: unknown; user?: unknown } }>("conversations.info", {
          channel: chatId,
        }),
      privacyUnconfirmed,
    );
    // Not confirmed (undefined): the copy is posted as in a shared conversation.
    const user = info?.channel?.is_im === true ? info.channel.user : undefined;
    if (typeof user !== "string") return undefined;
    if (knownIms.size >= KNOWN_IMS_LIMIT) knownIms.clear();
    knownIms.set(chatId, user);
    return user;
  }

  /** `answerer` when `target` is the app's DM with exactly that person; undefined otherwise. */
  async function privateTo(target: DeliveryTarget, answerer: string): Promise<string | undefined> {
    const user = slackUserOf(answerer);
    if (user === undefined) return undefined;
    // chat.postMessage to a user id posts in the app's DM with that user.
    if (target.chatId === user) return answerer;
    if (!target.chatId.startsWith("D")) return undefined;
    return (await imUserOf(target.chatId)) === user ? answerer : undefined;
  }

  return {
    name: "slack",
    async showStep(record, message, step) {
      // Drawn as the copy was posted: its answerer's link only in their DM.
      const copy = copyIn(record, "slack", message.chatId, message.messageId);
      await api.call("chat.update", {
        channel: message.chatId,
        ts: message.messageId,
        text: renderText(record),
        blocks: renderBlocks(record, await browserEntry(links, record, copy?.privateTo), step),
      });
    },
    async deliver(record, target, answerer) {
      const privateFor = await privateTo(target, answerer);
      const message = await api.call<{ channel?: string; ts: string }>("chat.postMessage", {
        channel: target.chatId,
        ...(target.threadId !== undefined && { thread_ts: target.threadId }),
        text: renderText(record),
        // A re-post (`/handraise question`) goes on where the steps so far left off.
        blocks: renderBlocks(record, await browserEntry(links, record, privateFor), firstOpenStep(record)),
        unfurl_links: false,
        unfurl_media: false,
      });
      return {
        ...target,
        chatId: message.channel ?? target.chatId,
        messageId: message.ts,
        ...(privateFor !== undefined && { privateTo: privateFor }),
      };
    },
    async retire(record, delivery) {
      if (delivery.messageId === undefined) return;
      await api.call("chat.update", {
        channel: delivery.chatId,
        ts: delivery.messageId,
        text: renderRetiredText(record, delivery.privateTo),
        blocks: renderRetiredBlocks(record, delivery.privateTo),
      });
    },
    async remind(_record, delivery, reminder) {
      const text = reminderText(reminder);
      if (delivery.messageId === undefined) return;
      await api.call("chat.postMessage", {
        channel: delivery.chatId,
        // In the question's thread: under the question, or in the thread it was posted into.
        thread_ts: delivery.threadId ?? delivery.messageId,
        text: escapeMrkdwn(text),
        unfurl_links: false,
        unfurl_media: false,
      });
    },
  };
}
