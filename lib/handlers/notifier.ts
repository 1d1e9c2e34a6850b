/** The notifier's handler (functions/notifier.ts): signed notifications of closed questions. */
import { SQSClient } from "@aws-sdk/client-sqs";
import middy from "@middy/core";
import type { DynamoDBBatchResponse, DynamoDBStreamEvent, SQSBatchResponse, SQSEvent } from "aws-lambda";
import { createNotifyClosedQuestion } from "../app/notify-closed-question.ts";
import { awsClientConfig } from "../aws-client-settings.ts";
import { type Config, ConfigError } from "../config.ts";
import { createHttpsWebhookSender } from "../notify/https-webhook-sender.ts";
import type { NotificationMessage } from "../notify/notification.ts";
import { createSqsNotificationQueue } from "../notify/sqs-notification-queue.ts";
import { requireSecret } from "../secrets/secrets.ts";
import { createDynamoDbNotificationLog } from "../store/dynamodb-notification-log.ts";
import { questionChangeFrom } from "../store/question-stream.ts";
import { createBaseServices } from "../wiring.ts";
import type { HandlerDeps } from "./handler-deps.ts";

export async function createNotifierHandler(config: Config, { observability, aws }: HandlerDeps) {
  const { dynamodb, secrets, now, ready } = createBaseServices(config, "notifier", observability, aws);
  await ready();
  const { telemetry, tracer } = observability;
  const queueUrl = config.notify.queueUrl;
  const notify = createNotifyClosedQuestion({
    queue:
      queueUrl === undefined
        ? // serverless.yml always sets it; without it every record fails and says why.
          { send: () => Promise.reject(new ConfigError("HANDRAISE_NOTIFY_QUEUE_URL is not set")) }
        : createSqsNotificationQueue(
            tracer.captureAWSv3Client(new SQSClient(awsClientConfig(aws, "sqs"))),
            queueUrl,
          ),
    log: createDynamoDbNotificationLog(dynamodb, config.tableName),
    sender: createHttpsWebhookSender({ allowLoopback: config.notify.allowLoopback }),
    secret: () => requireSecret(secrets, "notify-secret"),
    retrySeconds: config.notify.retrySeconds,
    now,
    telemetry,
  });

  async function fromQueue(event: SQSEvent): Promise<SQSBatchResponse> {
    // Side by side: one slow receiver must not hold the others' notifications until the function times out.
    const results = await Promise.allSettled(
      event.Records.map(async (record) => notify.deliver(JSON.parse(record.body) as NotificationMessage)),
    );
    const failures: SQSBatchResponse["batchItemFailures"] = [];
    results.forEach((result, index) => {
      if (result.status === "fulfilled") return;
      telemetry.failed("handling a notification attempt (the queue retries it)", result.reason);
      failures.push({ itemIdentifier: event.Records[index]?.messageId ?? "" });
    });
    return { batchItemFailures: failures };
  }

  async function fromStream(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
    for (const [index, record] of event.Records.entries()) {
      const closed = questionChangeFrom(
        record.dynamodb?.OldImage as never,
        record.dynamodb?.NewImage as never,
        now(),
      );
      if (closed?.kind !== "closed") continue;
      try {
        await notify.enqueue(closed.record);
      } catch (error) {
        telemetry.failed("queueing a notification (the stream retries it)", error, {
          questionId: closed.record.id,
        });
        // As lib/handlers/question-events.ts: the failed record and every later one are retried.
        return {
          batchItemFailures: event.Records.slice(index).flatMap((r) => {
            const sequenceNumber = r.dynamodb?.SequenceNumber;
            return sequenceNumber === undefined ? [] : [{ itemIdentifier: sequenceNumber }];
          }),
        };
      }
    }
    return { batchItemFailures: [] };
  }

  return middy<SQSEvent | DynamoDBStreamEvent, SQSBatchResponse | DynamoDBBatchResponse>()
    .use(observability.middlewares)
    .handler(async (event) => {
      const first = event.Records[0] as { eventSource?: string } | undefined;
      return first?.eventSource === "aws:sqs"
        ? fromQueue(event as SQSEvent)
        : fromStream(event as DynamoDBStreamEvent);
    });
}
