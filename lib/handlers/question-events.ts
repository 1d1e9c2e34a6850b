/** The stream consumer's handler (functions/question-events.ts). */
import middy from "@middy/core";
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from "aws-lambda";
import { functionDeadline, withPlatformDeadline } from "../channels/platform-http.ts";
import type { Config } from "../config.ts";
import { createHandleQuestionChangeService } from "../question-change-wiring.ts";
import { questionChangeFrom } from "../store/question-stream.ts";
import { createServices } from "../wiring.ts";
import type { DeliveringHandlerDeps } from "./handler-deps.ts";

export async function createQuestionEventsHandler(
  config: Config,
  { observability, channels, aws, ports }: DeliveringHandlerDeps,
) {
  const services = createServices(config, "questionEvents", observability, channels, aws, ports);
  // Resuming runs needs no channel secret: a bad one is reported, and only its platform's copies stay unretired.
  await services.ready({ tolerate: true });
  const { now } = services;
  const handleQuestionChange = createHandleQuestionChangeService(services);
  return middy<DynamoDBStreamEvent, DynamoDBBatchResponse>()
    .use(observability.middlewares)
    .handler(async (event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> => {
      const records = event.Records;
      for (const [index, record] of records.entries()) {
        // The stream's type is the Lambda event's: the same attribute-value shape the SDK's client uses.
        const change = questionChangeFrom(
          record.dynamodb?.OldImage as never,
          record.dynamodb?.NewImage as never,
          now(),
        );
        if (!change) continue;
        try {
          // No webhook is waiting: retiring a copy may wait out a platform's rate limit within this
          // function's own time.
          const deadline = functionDeadline(context.getRemainingTimeInMillis(), now());
          await withPlatformDeadline(deadline, () => handleQuestionChange(change));
        } catch (error) {
          observability.telemetry.failed("following a question's change (the stream retries it)", error, {
            questionId: change.record.id,
          });
          // Lambda checkpoints before the lowest sequence number reported (a stream's item identifier) and
          // retries from there, so the records after this one are reported too.
          return {
            batchItemFailures: records.slice(index).flatMap((r) => {
              const sequenceNumber = r.dynamodb?.SequenceNumber;
              return sequenceNumber === undefined ? [] : [{ itemIdentifier: sequenceNumber }];
            }),
          };
        }
      }
      return { batchItemFailures: [] };
    });
}
