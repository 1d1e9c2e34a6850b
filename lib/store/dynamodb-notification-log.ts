import { type DynamoDBClient, GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import type { NotificationLog } from "../notify/notification-ports.ts";
import { keys } from "./keys.ts";

/** Longer than the retry schedule (about a day), after which no attempt of that question is left. */
const KEEP_SECONDS = 3 * 86_400;

/** One small item per delivered notification, `NOTIFY#<question id>`, removed by TTL. */
export function createDynamoDbNotificationLog(client: DynamoDBClient, TableName: string): NotificationLog {
  return {
    async wasDelivered(questionId) {
      const out = await client.send(
        new GetItemCommand({
          TableName,
          Key: { pk: { S: keys.notification(questionId) } },
          ConsistentRead: true,
        }),
      );
      return out.Item !== undefined;
    },
    async markDelivered(questionId, nowMs) {
      await client.send(
        new PutItemCommand({
          TableName,
          Item: {
            pk: { S: keys.notification(questionId) },
            entity: { S: "notification" },
            deliveredAtMs: { N: String(nowMs) },
            expiresAt: { N: String(Math.ceil(nowMs / 1000) + KEEP_SECONDS) },
          },
        }),
      );
    },
  };
}
