import { type DeliveryTarget, firstOpenStep, type QuestionRecord } from "../../questions/question-record.ts";
import { type AnswerLinks, NO_ANSWER_LINKS } from "../../web/answer-link.ts";
import { browserEntry } from "../answer-in-browser.ts";
import {
  askPrivacy,
  type ChatChannel,
  ignorePrivacyUnconfirmed,
  type PrivacyUnconfirmed,
} from "../chat-channel.ts";
import { PlatformApiError } from "../platform-api-error.ts";
import { reminderText } from "../replies.ts";
import type { DiscordApi } from "./discord-api.ts";
import { escapeMarkdown, NO_MENTIONS, promptMessage, retiredContent } from "./discord-render.ts";

const messagesPath = (chatId: string) => `/channels/${encodeURIComponent(chatId)}/messages`;

/** Edits one posted copy (its `voter`'s own, if any) to the outcome and removes its components. */
export function retireMessage(
  api: DiscordApi,
  record: QuestionRecord,
  chatId: string,
  messageId: string,
  voter?: string,
): Promise<unknown> {
  return api.request("PATCH", `${messagesPath(chatId)}/${encodeURIComponent(messageId)}`, {
    content: retiredContent(record, voter),
    components: [],
    allowed_mentions: NO_MENTIONS,
  });
}

/** Discord's channel type of a DM between the bot and one user. */
const DM = 1;
/** Channels remembered at most (each a few bytes); past it the memory starts over. */
const KNOWN_CHANNELS_LIMIT = 1_000;

/**
 * Posts questions to Discord channels (`chatId` is a channel id: a guild text channel, a thread, or a DM
 * channel) as bot messages, and once they end edits every copy to the outcome without components (the copy
 * whose button ended the question was already updated by the interaction response, type 7; editing it to
 * the same content again is harmless, and the stream consumer that retires copies cannot tell which it was).
 *
 * A copy carries its answerer's own answer link only in the bot's DM with that person (`privateTo`): a
 * channel Discord describes (`GET /channels/{id}`) as a DM (type 1) whose one recipient is them. Anything
 * else — a guild channel, a thread, a group DM, someone else's DM, a channel Discord did not describe (an
 * error) — gets the "Answer in browser" button that hands each tapper their own link privately.
 */
export function createDiscordChannel(
  api: DiscordApi,
  links: AnswerLinks = NO_ANSWER_LINKS,
  privacyUnconfirmed: PrivacyUnconfirmed = ignorePrivacyUnconfirmed,
): ChatChannel {
  /**
   * Channel id → the recipient of that DM, or null for a channel that is no DM, as Discord described it: a
   * channel's id never changes hands and a DM is between the bot and one user for good, so neither goes stale.
   */
  const known = new Map<string, string | null>();

  /** The recipient of DM channel `chatId`; undefined for any other channel, or when Discord does not say. */
  async function dmRecipientOf(chatId: string): Promise<string | undefined> {
    const remembered = known.get(chatId);
    if (remembered !== undefined) return remembered ?? undefined;
    const channel = await askPrivacy(
      () =>
        api.request<{ type?: unknown; recipients?: unknown } | undefined>(
          "GET",
          `/channels/${encodeURIComponent(chatId)}`,
        ),
      privacyUnconfirmed,
    );
    // Not described: the copy is posted as in a shared channel (and asked again next time).
    if (typeof channel?.type !== "number") return undefined;
    const recipients = Array.isArray(channel.recipients) ? channel.recipients : [];
    const recipient = (recipients[0] as { id?: unknown } | undefined)?.id;
    const dm = channel.type === DM && recipients.length === 1 && typeof recipient === "string";
    if (known.size >= KNOWN_CHANNELS_LIMIT) known.clear();
    known.set(chatId, dm ? recipient : null);
    return dm ? recipient : undefined;
  }

  /** `answerer` when `target` is the bot's DM with exactly that person; undefined otherwise. */
  async function privateTo(target: DeliveryTarget, answerer: string): Promise<string | undefined> {
    const user = /^discord:(\d+)$/.exec(answerer)?.[1];
    if (user === undefined) return undefined;
    return (await dmRecipientOf(target.chatId)) === user ? answerer : undefined;
  }

  return {
    name: "discord",
    async deliver(record, target, answerer) {
      const privateFor = await privateTo(target, answerer);
      // At the first step still open (`/question` posts it again after some were chosen); a prompt of several
      // questions is then redrawn in place, step by step, by the webhook.
      const message = await api.request<{ id?: unknown }>(
        "POST",
        messagesPath(target.chatId),
        promptMessage(record, firstOpenStep(record), await browserEntry(links, record, privateFor)),
      );
      if (typeof message?.id !== "string") {
        throw new PlatformApiError(
          "discord",
          "POST /channels/{id}/messages",
          undefined,
          "no message id returned",
        );
      }
      return { ...target, messageId: message.id, ...(privateFor !== undefined && { privateTo: privateFor }) };
    },
    async retire(record, delivery) {
      if (delivery.messageId === undefined) return;
      await retireMessage(api, record, delivery.chatId, delivery.messageId, delivery.privateTo);
    },
    async remind(_record, delivery, reminder) {
      const text = reminderText(reminder);
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
