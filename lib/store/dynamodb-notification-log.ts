import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { NotificationLog } from "../notify/notification-ports.ts";
import { createDynamoDbTable, ttlAfter } from "./dynamodb-table.ts";
import { keys } from "./keys.ts";

/** Longer than the retry schedule (about a day), after which no attempt of that question is left. */
const KEEP_SECONDS = 3 * 86_400;

/** One small item per delivered notification, `NOTIFY#<question id>`, removed by TTL. */
export function createDynamoDbNotificationLog(client: DynamoDBClient, tableName: string): NotificationLog {
  const table = createDynamoDbTable({ client, tableName });
  return {
    async wasDelivered(questionId) {
      return (await table.get(keys.notification(questionId))) !== undefined;
    },
    async markDelivered(questionId, nowMs) {
      await table.put({
        Item: {
          pk: { S: keys.notification(questionId) },
          entity: { S: "notification" },
          deliveredAtMs: { N: String(nowMs) },
          expiresAt: { N: String(ttlAfter(nowMs, KEEP_SECONDS)) },
        },
      });
    },
  };
}
