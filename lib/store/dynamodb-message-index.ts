/**
 * The message index (`MSG#<channel>#<chat>#<message>` → question id): each posted copy of a question is
 * indexed by its chat and message id (and by the thread it started, where the platform names that thread
 * apart: Google Chat), so a reply to it, a thread under it or a tap on it routes by key.
 * An index item lives as long as its question's item (the same TTL). Beside it, the private-chat index
 * (`PRIVATE#<channel>#<chat>#<person>` → question ids): the copies posted to a person answerer other than the
 * owner in their own chat with the bot, so a line they type there, replying to nothing, finds its question. It
 * lives as long as the longest-lived question it lists.
 */
import type { WriteRequest } from "@aws-sdk/client-dynamodb";
import { marshall } from "@aws-sdk/util-dynamodb";
import type { Delivery } from "../questions/question-record.ts";
import { conditionally, type DynamoDbTable } from "./dynamodb-table.ts";
import { keys } from "./keys.ts";
import { indexedMessageIds, newestIds, PRIVATE_CHAT_KEPT, privateChatEntries } from "./question-store.ts";

export interface DynamoDbMessageIndex {
  /** Indexes each delivery that has a message id; `expiresAt` is the question item's TTL (epoch s). */
  index(questionId: string, expiresAt: number, deliveries: Delivery[]): Promise<void>;
  /** The question a posted message belongs to. */
  find(channel: string, chatId: string, messageId: string): Promise<string | undefined>;
  /** Notes the copies posted to person answerers other than `owner` in their private chats. */
  indexPrivate(questionId: string, owner: string, expiresAt: number, deliveries: Delivery[]): Promise<void>;
  /** QuestionStore.findPrivateQuestions. */
  findPrivate(channel: string, chatId: string, person: string): Promise<string[]>;
}

/** The most puts one BatchWriteItem takes. */
const BATCH_WRITE_ITEMS = 25;

/** Sends of a batch's unprocessed items after the first, before giving up. */
const BATCH_RETRIES = 6;

export function createDynamoDbMessageIndex(table: DynamoDbTable): DynamoDbMessageIndex {
  /**
   * Keeps a private-chat list to its newest PRIVATE_CHAT_KEPT ids, so it never grows with a person's history:
   * the oldest are removed on the condition that the list is still `length` long (a concurrent append
   * leaves it for the next one to trim).
   */
  async function trim(pk: string, length: number): Promise<void> {
    const excess = length - PRIVATE_CHAT_KEPT;
    if (excess <= 0) return;
    await conditionally(() =>
      table.update(pk, {
        UpdateExpression: `REMOVE ${Array.from({ length: excess }, (_, i) => `questionIds[${i}]`).join(", ")}`,
        ConditionExpression: "size(questionIds) = :length",
        ExpressionAttributeValues: marshall({ ":length": length }),
      }),
    );
  }

  /**
   * Moves a private-chat list's TTL out to `expiresAt`, never in: DynamoDB has no max(), so the write holds
   * only while the stored TTL is earlier (a concurrent later one wins, and this one changes nothing).
   */
  async function extend(pk: string, expiresAt: number): Promise<void> {
    await conditionally(() =>
      table.update(pk, {
        UpdateExpression: "SET expiresAt = :expiresAt",
        ConditionExpression: "expiresAt < :expiresAt",
        ExpressionAttributeValues: marshall({ ":expiresAt": expiresAt }),
      }),
    );
  }

  return {
    async index(questionId, expiresAt, deliveries) {
      const all: WriteRequest[] = deliveries.flatMap((delivery) =>
        indexedMessageIds(delivery).map((messageId) => ({
          PutRequest: {
            Item: marshall({
              pk: keys.message(delivery.channel, delivery.chatId, messageId),
              entity: "messageIndex",
              questionId,
              expiresAt,
            }),
          },
        })),
      );
      // A question has up to MAX_COPIES copies (a thread a copy started is a second id), BatchWriteItem takes
      // 25 at a time; unprocessed items are sent again after a growing pause (DynamoDB leaves items
      // unprocessed when the table is throttled).
      for (let start = 0; start < all.length; start += BATCH_WRITE_ITEMS) {
        let requests = all.slice(start, start + BATCH_WRITE_ITEMS);
        for (let attempt = 0; requests.length > 0; attempt++) {
          if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt));
          requests = await table.batchWrite(requests);
          if (attempt >= BATCH_RETRIES && requests.length > 0) {
            throw new Error("could not index delivered messages");
          }
        }
      }
    },

    async indexPrivate(questionId, owner, expiresAt, deliveries) {
      // One small list per person and chat, appended to: the person's questions there, oldest first. It lives
      // as long as the longest-lived question noted in it — an older question may have the later deadline.
      await Promise.all(
        privateChatEntries(owner, deliveries).map(async ({ channel, chatId, person }) => {
          const pk = keys.privateChat(channel, chatId, person);
          const out = await table.update(pk, {
            UpdateExpression:
              "SET questionIds = list_append(if_not_exists(questionIds, :none), :ids), entity = :entity, expiresAt = if_not_exists(expiresAt, :expiresAt)",
            ExpressionAttributeValues: marshall({
              ":none": [],
              ":ids": [questionId],
              ":entity": "privateChatIndex",
              ":expiresAt": expiresAt,
            }),
            ReturnValues: "ALL_NEW",
          });
          const kept = Number(out.Attributes?.expiresAt?.N ?? expiresAt);
          if (kept < expiresAt) await extend(pk, expiresAt);
          await trim(pk, out.Attributes?.questionIds?.L?.length ?? 0);
        }),
      );
    },

    async findPrivate(channel, chatId, person) {
      const item = await table.get<{ questionIds?: string[] }>(keys.privateChat(channel, chatId, person));
      return newestIds(item?.questionIds ?? []);
    },

    async find(channel, chatId, messageId) {
      const item = await table.get<{ questionId: string }>(keys.message(channel, chatId, messageId));
      return item?.questionId;
    },
  };
}
