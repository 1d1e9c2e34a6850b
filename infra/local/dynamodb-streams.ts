/**
 * What DynamoDB Streams and Lambda's event source mapping do for the local stack (dynalite has no streams):
 * each item change the DynamoDB proxy captures becomes a stream record (view type NEW_AND_OLD_IMAGES), delivered to
 * the functions whose serverless.yml `stream` event points at the table and whose filter patterns match,
 * in order per item, with a failed record retried with backoff as Lambda retries a failed batch.
 *
 * Differences from AWS, kept small on purpose: one record per invocation (AWS batches up to `batchSize`);
 * ordering is per item, not per shard; retries are bounded by `maximumRetryAttempts` but at most
 * `MAX_LOCAL_ATTEMPTS`, with a short backoff (AWS also stops at `maximumRecordAgeInSeconds`), and a record
 * that still fails goes to the on-failure destination — here a list the stack keeps and a log line, where
 * AWS sends the record's metadata to the SQS queue of serverless.yml; a failing record holds up only the
 * later records of the same item, where AWS holds up its shard (bounded the same way); records are not
 * persisted, so a local stack that stops drops what it had not delivered.
 */
import { randomUUID } from "node:crypto";
import type { Context, DynamoDBStreamEvent } from "aws-lambda";
import type { ItemChange } from "./dynamodb-proxy.ts";
import { matchesPattern } from "./event-bridge.ts";
import { lambdaContext } from "./lambda-context.ts";

export interface StreamConsumer {
  name: string;
  handler: (event: DynamoDBStreamEvent, context: Context) => Promise<unknown>;
  /** Lambda event filtering patterns (`filterPatterns` in serverless.yml); every record when empty. */
  filterPatterns: Record<string, unknown>[];
  maximumRetryAttempts?: number | undefined;
}

/** A record that failed every attempt: what AWS would send to the mapping's on-failure destination. */
export interface FailedStreamRecord {
  consumer: string;
  sequenceNumber: string;
  keys: unknown;
  attempts: number;
}

export interface StreamEmulatorOptions {
  region: string;
  account: string;
  /** Called for each record that failed every attempt (the on-failure destination). */
  onFailure?: (failed: FailedStreamRecord) => void;
  /** Consumers by table name. */
  consumers: (tableName: string) => StreamConsumer[];
  /**
   * First retry delay (default 100 ms); doubles each attempt up to 2 s. Read at each retry, so a stack can
   * change it while it runs (LocalStack.setStreamRetryDelay).
   */
  retryBaseMs?: number;
}

/** Attempts per record locally (the first delivery and its retries), whatever the mapping says. */
export const MAX_LOCAL_ATTEMPTS = 16;
const MAX_BACKOFF_MS = 2_000;
const DEFAULT_RETRY_BASE_MS = 100;

export interface StreamEmulator {
  /** Reports an item change (from the DynamoDB proxy). */
  record(change: ItemChange): void;
  /** Resolves once every record reported so far has been delivered or dropped. */
  drained(): Promise<void>;
  stop(): Promise<void>;
}

export function createStreamEmulator(options: StreamEmulatorOptions): StreamEmulator {
  const streamLabel = new Date().toISOString().replace(/Z$/, "");
  let sequence = 0;
  let stopped = false;
  /** Per consumer and item: the tail of that item's delivery chain (records go in order per item). */
  const chains = new Map<string, Promise<void>>();
  /** Pending backoff sleeps: stop() ends them at once. */
  const sleeping = new Map<NodeJS.Timeout, () => void>();
  const inFlight = new Set<Promise<void>>();

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        sleeping.delete(timer);
        resolve();
      }, ms);
      sleeping.set(timer, resolve);
    });

  async function deliver(consumer: StreamConsumer, event: DynamoDBStreamEvent): Promise<void> {
    const attempts = Math.min(
      MAX_LOCAL_ATTEMPTS,
      1 + Math.max(0, consumer.maximumRetryAttempts ?? MAX_LOCAL_ATTEMPTS),
    );
    for (let attempt = 1; attempt <= attempts && !stopped; attempt++) {
      try {
        const result = (await consumer.handler(event, lambdaContext(consumer.name))) as
          | { batchItemFailures?: unknown[] }
          | undefined;
        // ReportBatchItemFailures: a listed record is retried (there is one per batch here).
        if (!result?.batchItemFailures?.length) return;
      } catch {
        // The whole batch failed: Lambda retries it (the function logs its own error).
      }
      const retryBaseMs = options.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
      if (attempt < attempts) await sleep(Math.min(MAX_BACKOFF_MS, retryBaseMs * 2 ** (attempt - 1)));
    }
    if (!stopped) {
      const record = event.Records[0];
      const failed: FailedStreamRecord = {
        consumer: consumer.name,
        sequenceNumber: record?.dynamodb?.SequenceNumber ?? "",
        keys: record?.dynamodb?.Keys,
        attempts,
      };
      console.error(
        JSON.stringify({
          level: "ERROR",
          service: "handraise-local",
          message: `${consumer.name} failed a stream record ${attempts} times; sent to the on-failure destination`,
          sequenceNumber: failed.sequenceNumber,
        }),
      );
      options.onFailure?.(failed);
    }
  }

  return {
    record(change) {
      if (stopped) return;
      const consumers = options.consumers(change.tableName);
      if (consumers.length === 0) return;
      const eventName =
        change.oldImage === undefined ? "INSERT" : change.newImage === undefined ? "REMOVE" : "MODIFY";
      sequence += 1;
      const event: DynamoDBStreamEvent = {
        Records: [
          {
            eventID: randomUUID().replaceAll("-", ""),
            eventName,
            eventVersion: "1.1",
            eventSource: "aws:dynamodb",
            awsRegion: options.region,
            eventSourceARN: `arn:aws:dynamodb:${options.region}:${options.account}:table/${change.tableName}/stream/${streamLabel}`,
            dynamodb: {
              ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
              Keys: change.keys as never,
              ...(change.newImage !== undefined && { NewImage: change.newImage as never }),
              ...(change.oldImage !== undefined && { OldImage: change.oldImage as never }),
              SequenceNumber: String(sequence).padStart(21, "0"),
              SizeBytes: JSON.stringify(change.newImage ?? change.keys).length,
              StreamViewType: "NEW_AND_OLD_IMAGES",
            },
          },
        ],
      };
      const record = event.Records[0];
      for (const consumer of consumers) {
        const patterns = consumer.filterPatterns;
        if (patterns.length > 0 && !patterns.some((p) => matchesPattern(record, p, (v) => v))) continue;
        const chainKey = `${consumer.name}\n${change.tableName}\n${JSON.stringify(change.keys)}`;
        const previous = chains.get(chainKey) ?? Promise.resolve();
        const next = previous.then(() => deliver(consumer, event));
        chains.set(chainKey, next);
        inFlight.add(next);
        void next.finally(() => {
          inFlight.delete(next);
          if (chains.get(chainKey) === next) chains.delete(chainKey);
        });
      }
    },
    async drained() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    async stop() {
      stopped = true;
      for (const [timer, wake] of sleeping) {
        clearTimeout(timer);
        wake();
      }
      sleeping.clear();
      // Deliveries in a backoff end now; one inside a handler gets a moment to finish its call.
      await Promise.race([
        Promise.allSettled([...inFlight]),
        new Promise((resolve) => setTimeout(resolve, 2_000).unref()),
      ]);
    },
  };
}
