/**
 * The questions table's DynamoDB stream → every question stored is announced on the event bus (`Question
 * Requested`); every question that has just closed is announced (`Question Resolved`), the run that waited
 * on it resumed (again: no lost answers, even when the answering Lambda died or was throttled between its
 * write and SendTaskSuccess) and every posted copy on every platform retired (the one function holding every
 * channel's credentials). A record that fails (throttling, 5xx) is reported back, so Lambda retries it and
 * the records after it (ReportBatchItemFailures).
 */
import middy from "@middy/core";
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from "aws-lambda";
import { CHANNELS } from "#lib/channels/channel-list.ts";
import { functionDeadline, withPlatformDeadline } from "#lib/channels/platform-http.ts";
import { loadConfig } from "#lib/config.ts";
import { questionChangeFrom } from "#lib/store/question-stream.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { createServices } from "#lib/wiring.ts";

const observability = await createObservability("questionEvents");
const services = createServices(loadConfig(), "questionEvents", observability, CHANNELS);
// Resuming runs needs no channel secret: a bad one is reported, and only its platform's copies stay unretired.
await services.ready({ tolerate: true });
const { handleQuestionChange, now } = services;

export const handler = middy<DynamoDBStreamEvent, DynamoDBBatchResponse>()
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
