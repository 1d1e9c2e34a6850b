/**
 * The plumbing every item kind of the question store shares (lib/store/dynamodb-question-store.ts composes
 * them): one client and table, each request reporting the capacity it consumed when asked to, and conditional
 * writes that say whether their condition held instead of throwing. Each call here is exactly one request,
 * so an item module's round trips are the calls it makes.
 */

import { randomBytes } from "node:crypto";
import {
  BatchWriteItemCommand,
  ConditionalCheckFailedException,
  type ConsumedCapacity,
  DeleteItemCommand,
  type DeleteItemCommandInput,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  type PutItemCommandInput,
  QueryCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
  UpdateItemCommand,
  type UpdateItemCommandInput,
  type UpdateItemCommandOutput,
  type WriteRequest,
} from "@aws-sdk/client-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";

export interface DynamoDbTableOptions {
  client: DynamoDBClient;
  tableName: string;
  /** Called with the capacity each request consumed (the benchmark counts cost with it). */
  onConsumedCapacity?: ((capacity: ConsumedCapacity) => void) | undefined;
}

/** The table and key are the table's to fill in. */
type ItemInput<T> = Omit<T, "TableName" | "Key" | "ReturnConsumedCapacity">;

export interface DynamoDbTable {
  readonly tableName: string;
  /** The item under `pk`, read consistently; undefined when there is none. */
  get<T>(pk: string): Promise<T | undefined>;
  put(input: ItemInput<PutItemCommandInput>): Promise<void>;
  update(pk: string, input: ItemInput<UpdateItemCommandInput>): Promise<UpdateItemCommandOutput>;
  delete(pk: string): Promise<void>;
  /**
   * Deletes the item under `pk` on `input`'s condition and returns it as it was; undefined when there was
   * none. A condition that does not hold throws, as for every write here (see `conditionally`).
   */
  take<T>(pk: string, input: ItemInput<Omit<DeleteItemCommandInput, "ReturnValues">>): Promise<T | undefined>;
  query(input: ItemInput<QueryCommandInput>): Promise<QueryCommandOutput>;
  /** Writes a batch of puts; returns those DynamoDB left unprocessed (to send again). */
  batchWrite(requests: WriteRequest[]): Promise<WriteRequest[]>;
}

export function createDynamoDbTable(options: DynamoDbTableOptions): DynamoDbTable {
  const { client, tableName: TableName, onConsumedCapacity } = options;
  const capacity = { ReturnConsumedCapacity: onConsumedCapacity ? ("TOTAL" as const) : undefined };
  const track = <T extends { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] | undefined }>(
    out: T,
  ): T => {
    const consumed = out.ConsumedCapacity;
    if (consumed && onConsumedCapacity) {
      for (const c of Array.isArray(consumed) ? consumed : [consumed]) onConsumedCapacity(c);
    }
    return out;
  };
  const key = (pk: string) => ({ pk: { S: pk } });

  return {
    tableName: TableName,
    async get<T>(pk: string) {
      const out = track(
        await client.send(new GetItemCommand({ TableName, Key: key(pk), ConsistentRead: true, ...capacity })),
      );
      return out.Item ? (unmarshall(out.Item) as T) : undefined;
    },
    async put(input) {
      track(await client.send(new PutItemCommand({ TableName, ...input, ...capacity })));
    },
    async update(pk, input) {
      return track(
        await client.send(new UpdateItemCommand({ TableName, Key: key(pk), ...input, ...capacity })),
      );
    },
    async delete(pk) {
      track(await client.send(new DeleteItemCommand({ TableName, Key: key(pk), ...capacity })));
    },
    async take<T>(pk: string, input: ItemInput<Omit<DeleteItemCommandInput, "ReturnValues">>) {
      const out = track(
        await client.send(
          new DeleteItemCommand({ TableName, Key: key(pk), ...input, ReturnValues: "ALL_OLD", ...capacity }),
        ),
      );
      return out.Attributes ? (unmarshall(out.Attributes) as T) : undefined;
    },
    async query(input) {
      return track(await client.send(new QueryCommand({ TableName, ...input, ...capacity })));
    },
    async batchWrite(requests) {
      const out = track(
        await client.send(
          new BatchWriteItemCommand({ RequestItems: { [TableName]: requests }, ...capacity }),
        ),
      );
      return out.UnprocessedItems?.[TableName] ?? [];
    },
  };
}

/** A conditional write whose condition did not hold. */
export const CONDITION_FAILED = Symbol("condition failed");

/**
 * Runs a conditional write: what it returned, or CONDITION_FAILED when its condition did not hold; every
 * other error is rethrown.
 */
export async function conditionally<T>(write: () => Promise<T>): Promise<T | typeof CONDITION_FAILED> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return CONDITION_FAILED;
    throw error;
  }
}

/**
 * A new id for one conditional write whose refusal means "someone else won" (a question's put, vote or
 * close, an event claim): the write stores it in `writeId` and holds on `<condition> OR writeId = :writeId`
 * (OWN_WRITE). DynamoDB may apply a write whose response is then lost (a 500, a reset connection); the SDK
 * sends the same request again, and without the id that retry would fail its own condition and report the
 * write as lost to another. With it the retry finds its own id, holds again and changes nothing.
 */
export function newWriteId(): string {
  return randomBytes(12).toString("base64url");
}

/** The condition clause that lets a retried write hold over what its own earlier attempt stored. */
export const OWN_WRITE = "writeId = :writeId";

/** The TTL (epoch seconds) of an item that is kept `retentionSeconds` after its deadline. */
export function ttlAfter(expiresAtMs: number, retentionSeconds: number): number {
  return Math.ceil(expiresAtMs / 1000) + retentionSeconds;
}
