import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { Transcript, TranscriptStore } from "../agent/transcript.ts";
import { createDynamoDbTable, ttlAfter } from "./dynamodb-table.ts";
import { keys } from "./keys.ts";

export interface DynamoDbTranscriptStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  /** How long a transcript outlives its last write: the longest question wait plus the retention. */
  keepSeconds: number;
}

/**
 * Transcripts as one item per run, the body a JSON string (tool arguments are arbitrary JSON, which a
 * string stores exactly). A DynamoDB item holds 400 KB; longer conversations would need S3.
 */
export function createDynamoDbTranscriptStore(options: DynamoDbTranscriptStoreOptions): TranscriptStore {
  const table = createDynamoDbTable(options);
  return {
    async load(runId) {
      const item = await table.get<{ body?: unknown }>(keys.transcript(runId));
      return typeof item?.body === "string" ? (JSON.parse(item.body) as Transcript) : undefined;
    },
    async save(runId, transcript, nowMs) {
      await table.put({
        Item: {
          pk: { S: keys.transcript(runId) },
          entity: { S: "transcript" },
          body: { S: JSON.stringify(transcript) },
          expiresAt: { N: String(ttlAfter(nowMs, options.keepSeconds)) },
        },
      });
    },
  };
}
