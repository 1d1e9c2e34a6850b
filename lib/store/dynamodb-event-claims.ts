/**
 * The dedupe claim (`EVENT#<key>`): a platform delivers an event again when it saw no acknowledgement in
 * time, so the first delivery claims the event with a conditional put and a repeat finds it claimed. The
 * claim expires by TTL after the platform's retry horizon. The put carries its own `writeId`: the SDK's
 * retry of a claim whose response was lost finds it and still claims, rather than calling the first delivery
 * a duplicate (and dropping it).
 */
import {
  CONDITION_FAILED,
  conditionally,
  type DynamoDbTable,
  newWriteId,
  OWN_WRITE,
  ttlAfter,
} from "./dynamodb-table.ts";
import { keys } from "./keys.ts";

export interface DynamoDbEventClaims {
  /** False when the event was claimed before (a duplicate delivery). */
  claim(dedupeKey: string, ttlSeconds: number, nowMs: number): Promise<boolean>;
  /** Gives a claim back, so the platform's retry is handled. */
  release(dedupeKey: string): Promise<void>;
}

export function createDynamoDbEventClaims(table: DynamoDbTable): DynamoDbEventClaims {
  return {
    async claim(dedupeKey, ttlSeconds, nowMs) {
      const writeId = newWriteId();
      const out = await conditionally(() =>
        table.put({
          Item: {
            pk: { S: keys.inboundEvent(dedupeKey) },
            entity: { S: "inboundEvent" },
            expiresAt: { N: String(ttlAfter(nowMs, ttlSeconds)) },
            writeId: { S: writeId },
          },
          ConditionExpression: `attribute_not_exists(pk) OR ${OWN_WRITE}`,
          ExpressionAttributeValues: { ":writeId": { S: writeId } },
        }),
      );
      return out !== CONDITION_FAILED;
    },
    release: (dedupeKey) => table.delete(keys.inboundEvent(dedupeKey)),
  };
}
