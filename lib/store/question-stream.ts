/**
 * Reading the table's DynamoDB stream (view type NEW_AND_OLD_IMAGES): the one change that matters to the
 * stream consumer is a question leaving `pending` — answered, cancelled, skipped, released or
 * delivery_failed. The old image still holds the task token the closing write removed (the run to resume),
 * the new image the outcome and every posted copy (the messages to retire).
 * The item's storage format stays in lib/store: the consumer gets a record, never an image.
 */
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import { keys } from "./keys.ts";
import { type QuestionItem, toRecord } from "./question-item.ts";
import type { QuestionRecord } from "./question-record.ts";

/** A question that has just ended, and the run that waited on it, if one did. */
export interface ClosedQuestion {
  record: QuestionRecord;
  taskToken?: string | undefined;
}

type Image = Record<string, AttributeValue> | undefined;

/**
 * The question a stream record closed; undefined for every other change (a new question, a delivery
 * recorded, another entity, a TTL removal, a write to an already closed question).
 *
 * @example
 * const closed = closedQuestionFrom(record.dynamodb?.OldImage, record.dynamodb?.NewImage, Date.now());
 * if (closed) await settleClosedQuestion(closed);
 */
export function closedQuestionFrom(
  oldImage: Image,
  newImage: Image,
  nowMs: number,
): ClosedQuestion | undefined {
  if (!oldImage || !newImage) return undefined;
  const before = unmarshall(oldImage) as Partial<QuestionItem>;
  const after = unmarshall(newImage) as Partial<QuestionItem>;
  if (before.entity !== "question" || after.entity !== "question") return undefined;
  if (typeof after.id !== "string" || after.pk !== keys.question(after.id)) return undefined;
  if (before.status !== "pending" || after.status === undefined || after.status === "pending")
    return undefined;
  return {
    record: toRecord(after as QuestionItem, nowMs),
    ...(typeof before.taskToken === "string" && before.taskToken !== "" && { taskToken: before.taskToken }),
  };
}
