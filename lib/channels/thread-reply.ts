import { firstPending } from "../app/first-pending.ts";
import type { QuestionRecord } from "../questions/question-record.ts";
import type { QuestionStore } from "../store/question-store.ts";
import type { Inbound } from "./inbound.ts";

type TextInbound = Extract<Inbound, { kind: "text" }>;

/**
 * Points a reply in a thread at the question that thread belongs to, for platforms whose replies name the
 * message they follow (Slack, Mattermost; Google Chat's name only their thread, and its webhook asks
 * `ownCardInThread` itself). A reply under the question's own message needs nothing: the store finds the
 * question by that message. A question posted into an existing thread (`deliverTo.threadId`) shares the thread root with the
 * person's other messages there, so the root is not one of ours: such a reply is pointed at the copy posted
 * in that thread. Anything else is left as it is — replies in other threads route to no question, and
 * `handle-inbound` counts them only when they address the bot.
 */
export async function pointAtQuestionThread(
  store: QuestionStore,
  nowMs: number,
  inbound: TextInbound,
): Promise<TextInbound> {
  const threadId = inbound.replyToMessageId;
  if (threadId === undefined) return inbound;
  if ((await store.findByMessage(inbound.platform, inbound.chatId, threadId)) !== undefined) return inbound;
  const messageId = await ownCardInThread(store, nowMs, inbound, threadId);
  return messageId === undefined ? inbound : { ...inbound, replyToMessageId: messageId };
}

/**
 * The message of the sender's oldest pending question (as its owner) with a copy posted in `threadId` of
 * the inbound's chat; undefined: none.
 */
export async function ownCardInThread(
  store: QuestionStore,
  nowMs: number,
  inbound: TextInbound,
  threadId: string,
): Promise<string | undefined> {
  const postedHere = (record: QuestionRecord) =>
    record.deliveries.find(
      (d) => d.channel === inbound.platform && d.chatId === inbound.chatId && d.threadId === threadId,
    );
  const record = await firstPending(
    store,
    { owner: inbound.actor },
    nowMs,
    (r) => postedHere(r)?.messageId !== undefined,
  );
  return record && postedHere(record)?.messageId;
}
