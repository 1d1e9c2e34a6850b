import { type Delivery, firstOpenStep, type QuestionRecord } from "../../questions/question-record.ts";
import { type AnswerLinks, NO_ANSWER_LINKS } from "../../web/answer-link.ts";
import type { ChatChannel } from "../chat-channel.ts";
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

export function createSlackChannel(api: SlackApi, links: AnswerLinks = NO_ANSWER_LINKS): SlackChannel {
  return {
    name: "slack",
    async showStep(record, message, step) {
      await api.call("chat.update", {
        channel: message.chatId,
        ts: message.messageId,
        text: renderText(record),
        blocks: renderBlocks(record, await links.urlFor(record), step),
      });
    },
    async deliver(record, target) {
      const message = await api.call<{ channel?: string; ts: string }>("chat.postMessage", {
        channel: target.chatId,
        ...(target.threadId !== undefined && { thread_ts: target.threadId }),
        text: renderText(record),
        // A re-post (`/handraise question`) goes on where the steps so far left off.
        blocks: renderBlocks(record, await links.urlFor(record), firstOpenStep(record)),
        unfurl_links: false,
        unfurl_media: false,
      });
      return { ...target, chatId: message.channel ?? target.chatId, messageId: message.ts };
    },
    async retire(record, delivery) {
      if (delivery.messageId === undefined) return;
      await api.call("chat.update", {
        channel: delivery.chatId,
        ts: delivery.messageId,
        text: renderRetiredText(record),
        blocks: renderRetiredBlocks(record),
      });
    },
    async remind(_record, delivery, text) {
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
