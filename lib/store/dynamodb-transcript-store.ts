import { type DynamoDBClient, GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import type { Transcript, TranscriptStore } from "../agent/transcript.ts";
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
  const { client, tableName: TableName, keepSeconds } = options;
  return {
    async load(runId) {
      const out = await client.send(
        new GetItemCommand({ TableName, Key: { pk: { S: keys.transcript(runId) } }, ConsistentRead: true }),
      );
      const body = out.Item?.body?.S;
      return body === undefined ? undefined : (JSON.parse(body) as Transcript);
    },
    async save(runId, transcript, nowMs) {
      await client.send(
        new PutItemCommand({
          TableName,
          Item: {
            pk: { S: keys.transcript(runId) },
            entity: { S: "transcript" },
            body: { S: JSON.stringify(transcript) },
            expiresAt: { N: String(Math.ceil(nowMs / 1000) + keepSeconds) },
          },
        }),
      );
    },
  };
}
