/**
 * The link token (`LINK#<token>`): a one-time token that hands a person their own answer link in a private
 * conversation they open themselves (lib/app/link-handover.ts). Taking it is one conditional delete that
 * returns the item, so of any number of takes one gets it, without a transaction. It expires with its
 * question: the delete's condition checks the deadline, TTL removes what was never taken.
 */
import { marshall } from "@aws-sdk/util-dynamodb";
import {
  CONDITION_FAILED,
  conditionally,
  type DynamoDbTable,
  newWriteId,
  OWN_WRITE,
  ttlAfter,
} from "./dynamodb-table.ts";
import { keys } from "./keys.ts";
import type { LinkToken } from "./question-store.ts";

interface LinkTokenItem {
  pk: string;
  entity: "linkToken";
  questionId: string;
  answerer: string;
  expiresAtMs: number;
  expiresAt: number;
  /** The put's own id: its retry after a lost response finds it, and is no clash. */
  writeId: string;
}

export interface DynamoDbLinkTokens {
  save(token: LinkToken): Promise<void>;
  /** The token, deleted by this call; undefined when it is unknown, used, expired or not `answerer`'s. */
  take(token: string, answerer: string, nowMs: number): Promise<LinkToken | undefined>;
}

export function createDynamoDbLinkTokens(table: DynamoDbTable): DynamoDbLinkTokens {
  return {
    async save(token) {
      const item: LinkTokenItem = {
        pk: keys.linkToken(token.token),
        entity: "linkToken",
        questionId: token.questionId,
        answerer: token.answerer,
        expiresAtMs: token.expiresAtMs,
        // Nothing to keep after the question's deadline: a token is no use once its question has ended.
        expiresAt: ttlAfter(token.expiresAtMs, 0),
        writeId: newWriteId(),
      };
      // A token is random: one already there is a clash to fail on, never an item to overwrite (but this
      // put's own earlier attempt, whose response was lost).
      await table.put({
        Item: marshall(item),
        ConditionExpression: `attribute_not_exists(pk) OR ${OWN_WRITE}`,
        ExpressionAttributeValues: marshall({ ":writeId": item.writeId }),
      });
    },

    async take(token, answerer, nowMs) {
      // A token that is not there fails the condition too (`answerer` is absent): nothing is deleted.
      const item = await conditionally(() =>
        table.take<LinkTokenItem>(keys.linkToken(token), {
          ConditionExpression: "answerer = :answerer AND expiresAtMs > :now",
          ExpressionAttributeValues: marshall({ ":answerer": answerer, ":now": nowMs }),
        }),
      );
      if (item === CONDITION_FAILED || item === undefined) return undefined;
      return { token, questionId: item.questionId, answerer: item.answerer, expiresAtMs: item.expiresAtMs };
    },
  };
}
