/**
 * Listing open questions: a Query on one of the sparse pending indexes (lib/store/keys.ts), never a Scan.
 * The indexes project only what a listing shows (no task token, no draft), so a listed record is
 * `toListedRecord`'s.
 */
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { marshall, unmarshall } from "@aws-sdk/util-dynamodb";
import type { QuestionRecord } from "../questions/question-record.ts";
import type { DynamoDbTable } from "./dynamodb-table.ts";
import { CREATED_ORDER, INDEX, keys } from "./keys.ts";
import { type QuestionItem, toListedRecord } from "./question-item.ts";
import type { PendingFilter, PendingFilters, PendingPage, PendingPageQuery } from "./question-store.ts";

/** The most items one Query of a paged listing asks for. */
const MAX_QUERY_LIMIT = 400;

/**
 * The record attributes a paged listing filters on, each projected into every pending index. `askedBy` is
 * not among them: it is only ever the partition of the asker's own index (see pendingIndexFor).
 */
export const FILTER_ATTRIBUTES = ["owner", "sessionKey", "agentId"] as const;

/** Expired questions keep their index keys until TTL deletes them; a read must not show them. */
const OPEN = "expiresAtMs > :now AND #status = :pending";

export interface DynamoDbPendingListing {
  listPending(filter: PendingFilter, nowMs: number): Promise<QuestionRecord[]>;
  listPendingPage(query: PendingPageQuery, nowMs: number): Promise<PendingPage>;
}

export function createDynamoDbPendingListing(table: DynamoDbTable): DynamoDbPendingListing {
  return {
    async listPending(filter, nowMs) {
      const { index, value } = pendingIndexFor(filter);
      const records: QuestionRecord[] = [];
      let startKey: Record<string, AttributeValue> | undefined;
      do {
        const out = await table.query({
          IndexName: index.name,
          KeyConditionExpression: "#pk = :value",
          FilterExpression: OPEN,
          ExpressionAttributeNames: { "#pk": index.partitionKey, "#status": "status" },
          ExpressionAttributeValues: marshall({ ":value": value, ":now": nowMs, ":pending": "pending" }),
          ExclusiveStartKey: startKey,
        });
        for (const item of out.Items ?? []) {
          records.push(toListedRecord(unmarshall(item) as QuestionItem, nowMs));
        }
        startKey = out.LastEvaluatedKey;
      } while (startKey);
      return records;
    },

    async listPendingPage({ filters, limit, after }, nowMs) {
      const { index, value, covers } = pendingIndexFor(filters);
      const conditions = [OPEN];
      const names: Record<string, string> = { "#pk": index.partitionKey, "#status": "status" };
      const values: Record<string, unknown> = { ":value": value, ":now": nowMs, ":pending": "pending" };
      for (const attribute of FILTER_ATTRIBUTES) {
        const wanted = filters[attribute];
        if (wanted === undefined || attribute === covers) continue;
        conditions.push(`#${attribute} = :${attribute}`);
        names[`#${attribute}`] = attribute;
        values[`:${attribute}`] = wanted;
      }
      // The start key is rebuilt from the position and this listing's own partition, so a position can only
      // say where in creation order to go on, never which index or partition to read.
      let startKey: Record<string, AttributeValue> | undefined = after && {
        pk: { S: keys.question(after.id) },
        [index.partitionKey]: { S: value },
        [CREATED_ORDER]: { S: keys.createdOrder(after.createdAtMs, after.id) },
      };
      // One question past the page says whether another page follows. DynamoDB applies Limit before the
      // filter, so a read can come back short: read on (asking for more each time, so a filter that drops
      // most questions costs few round trips) until the page and that one are found or the index ends.
      const items: QuestionItem[] = [];
      for (let reads = 0; items.length <= limit; reads++) {
        const out = await table.query({
          IndexName: index.name,
          KeyConditionExpression: "#pk = :value",
          FilterExpression: conditions.join(" AND "),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: marshall(values),
          ExclusiveStartKey: startKey,
          Limit: Math.min(MAX_QUERY_LIMIT, (limit + 1 - items.length) * 2 ** reads),
        });
        for (const item of out.Items ?? []) {
          if (items.length > limit) break;
          items.push(unmarshall(item) as QuestionItem);
        }
        startKey = out.LastEvaluatedKey;
        if (!startKey) break;
      }
      const questions = items.slice(0, limit).map((item) => toListedRecord(item, nowMs));
      const last = questions.at(-1);
      // The next page starts after the last question returned, not at DynamoDB's LastEvaluatedKey, which
      // may lie past questions read but not returned.
      return items.length > limit && last
        ? { questions, next: { createdAtMs: last.createdAtMs, id: last.id } }
        : { questions };
    },
  };
}

/**
 * The pending index a listing reads, with the partition it reads and the filter that partition already
 * satisfies: for an `ask` key's listing (`askedBy`) always its own index; otherwise the session's when given
 * (it holds at most one pending question), then the agent's, then the owner's. A paged listing's other
 * filters become a FilterExpression.
 *
 * Why an `ask` key's questions have an index of their own rather than a filter on `askedBy`: a
 * FilterExpression on a secondary index sees only what the index projects, the first three indexes predate
 * `askedBy`, and DynamoDB cannot change an existing index's projection (CloudFormation refuses the update;
 * adding one index is allowed). The asker's index also reads that key's questions alone — a listing never
 * reads through other keys' questions to fill its page, and its page size stays bounded as every listing's.
 */
export function pendingIndexFor(filters: PendingFilters | PendingFilter) {
  if ("askedBy" in filters && filters.askedBy !== undefined) {
    return {
      index: INDEX.pendingByAsker,
      value: keys.askerIndex(filters.askedBy),
      covers: "askedBy" as const,
    };
  }
  if ("sessionKey" in filters && filters.sessionKey !== undefined) {
    return {
      index: INDEX.pendingBySession,
      value: keys.sessionIndex(filters.sessionKey),
      covers: "sessionKey" as const,
    };
  }
  if ("agentId" in filters && filters.agentId !== undefined) {
    return {
      index: INDEX.pendingByAgent,
      value: keys.agentIndex(filters.agentId),
      covers: "agentId" as const,
    };
  }
  if ("owner" in filters && filters.owner !== undefined) {
    return { index: INDEX.pendingByOwner, value: keys.ownerIndex(filters.owner), covers: "owner" as const };
  }
  throw new RangeError("a pending listing needs at least one of owner, sessionKey or agentId");
}
