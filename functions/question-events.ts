/**
 * The questions table's DynamoDB stream → resume the run of every question that closed while a run waited
 * on it (no lost answers: the answering Lambda may have died, or been throttled, between its write and
 * SendTaskSuccess). A record that fails (throttling, 5xx) is reported back, so Lambda retries it and the
 * records after it (ReportBatchItemFailures).
 */
import middy from "@middy/core";
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from "aws-lambda";
import { loadConfig } from "#lib/config.ts";
import { logError } from "#lib/log.ts";
import { closedQuestionFromImage } from "#lib/store/question-stream.ts";
import { createServices } from "#lib/wiring.ts";

const { resumeClosedQuestion } = createServices(loadConfig());

export const handler = middy(async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const records = event.Records;
  for (const [index, record] of records.entries()) {
    // The stream's type is the Lambda event's: the same attribute-value shape the SDK's client uses.
    const closed = closedQuestionFromImage(record.dynamodb?.NewImage as never);
    if (!closed) continue;
    try {
      await resumeClosedQuestion(closed);
    } catch (error) {
      logError("question-events", error, { questionId: closed.id });
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
