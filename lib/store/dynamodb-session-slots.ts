/**
 * The session slot (`SESSION#<key>`): at most one pending question per session, held by a conditional put
 * on the slot — no transaction. A slot outlives its question when a crash comes between two writes; it is
 * free once its question has ended or expired, and the next question of the session takes it over.
 */
import { marshall } from "@aws-sdk/util-dynamodb";
import { statusAt } from "../questions/question-record.ts";
import { CONDITION_FAILED, conditionally, type DynamoDbTable, ttlAfter } from "./dynamodb-table.ts";
import { keys } from "./keys.ts";
import type { QuestionItem } from "./question-item.ts";

interface SessionSlotItem {
  pk: string;
  entity: "sessionSlot";
  questionId: string;
  expiresAtMs: number;
  expiresAt: number;
}

export type SlotClaim =
  | { claimed: true }
  /**
   * The session's slot is held by `pendingId`, still pending; its run waits on `pendingTaskToken`. No
   * `pendingId`: the slot changed hands under every attempt, so which question holds it is not known.
   */
  | { claimed: false; pendingId?: string | undefined; pendingTaskToken?: string | undefined };

export interface DynamoDbSessionSlots {
  /** Takes the session's slot for this question; a slot whose question has ended is taken over. */
  claim(sessionKey: string, questionId: string, expiresAtMs: number, nowMs: number): Promise<SlotClaim>;
}

/** How many times a stale session slot is taken over before giving up (another writer keeps winning). */
const SLOT_ATTEMPTS = 3;

/** `questionItem` reads the question a slot names, to see whether it still holds the slot. */
export function createDynamoDbSessionSlots(
  table: DynamoDbTable,
  retentionSeconds: number,
  questionItem: (id: string) => Promise<QuestionItem | undefined>,
): DynamoDbSessionSlots {
  return {
    async claim(sessionKey, questionId, expiresAtMs, nowMs) {
      const slot: SessionSlotItem = {
        pk: keys.sessionSlot(sessionKey),
        entity: "sessionSlot",
        questionId,
        expiresAtMs,
        expiresAt: ttlAfter(expiresAtMs, retentionSeconds),
      };
      let condition = "attribute_not_exists(pk) OR expiresAtMs <= :now OR questionId = :id";
      let values: Record<string, unknown> = { ":now": nowMs, ":id": questionId };
      for (let attempt = 0; attempt < SLOT_ATTEMPTS; attempt++) {
        const put = await conditionally(() =>
          table.put({
            Item: marshall(slot),
            ConditionExpression: condition,
            ExpressionAttributeValues: marshall(values),
          }),
        );
        if (put !== CONDITION_FAILED) return { claimed: true };
        const holder = await table.get<SessionSlotItem>(slot.pk);
        if (!holder) {
          condition = "attribute_not_exists(pk) OR questionId = :id";
          values = { ":id": questionId };
          continue;
        }
        const held = await questionItem(holder.questionId);
        if (held && statusAt(held.status, held.expiresAtMs, nowMs) === "pending") {
          return { claimed: false, pendingId: holder.questionId, pendingTaskToken: held.taskToken };
        }
        // The holder has ended but its slot was not released (a crash between two writes): take it over,
        // unless someone else does first. Every condition also holds over a slot this question already
        // has: the SDK's retry of a put whose response was lost must not find its own write in the way.
        condition = "questionId = :holder OR questionId = :id";
        values = { ":holder": holder.questionId, ":id": questionId };
      }
      return { claimed: false };
    },
  };
}
