import { SendMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import type { NotificationMessage } from "./notification.ts";
import type { NotificationQueue } from "./notification-ports.ts";

/** The notify queue of serverless.yml (the local stack emulates it: infra/local/sqs.ts). */
export function createSqsNotificationQueue(client: SQSClient, queueUrl: string): NotificationQueue {
  return {
    async send(message: NotificationMessage, delaySeconds: number) {
      await client.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: JSON.stringify(message),
          DelaySeconds: delaySeconds,
        }),
      );
    },
  };
}
