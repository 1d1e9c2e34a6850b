/**
 * Reading the table's DynamoDB stream (view type NEW_AND_OLD_IMAGES): the changes that matter to the
 * stream consumer are a question being stored (it is announced, its timers set), a question leaving
 * `pending` — answered, cancelled, skipped, released, expired, delivery_failed or no_quorum (it is announced,
 * its run resumed, its copies retired, its timers cleared) — and a pending question keeping new votes (the
 * voters' own copies lose their controls). On a close the old image still holds the task token the closing write removed (the run to
 * resume), the new image the outcome and every posted copy (the messages to retire).
 * The item's storage format stays in lib/store: the consumer gets a record, never an image.
 */
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { QuestionRecord } from "../questions/question-record.ts";
import { keys } from "./keys.ts";
import { type QuestionItem, toRecord } from "./question-item.ts";

/** A question that has just ended, and the run that waited on it, if one did. */
export interface ClosedQuestion {
  record: QuestionRecord;
  taskToken?: string | undefined;
}

export type QuestionChange =
  | ({ kind: "closed" } & ClosedQuestion)
  | { kind: "requested"; record: QuestionRecord }
  /** A pending question kept more votes (at any quorum): `voters`, the people whose votes are new. */
  | { kind: "voted"; record: QuestionRecord; voters: string[] };

type Image = Record<string, AttributeValue> | undefined;

/**
 * The question a stream record stored or closed; undefined for every other change (a delivery recorded,
 * another entity, a TTL removal, a write to an already closed question).
 *
 * @example
 * const change = questionChangeFrom(record.dynamodb?.OldImage, record.dynamodb?.NewImage, Date.now());
 * if (change) await handleQuestionChange(change);
 */
export function questionChangeFrom(
  oldImage: Image,
  newImage: Image,
  nowMs: number,
): QuestionChange | undefined {
  if (!newImage) return undefined;
  const after = unmarshall(newImage) as Partial<QuestionItem>;
  if (after.entity !== "question" || typeof after.id !== "string" || after.pk !== keys.question(after.id)) {
    return undefined;
  }
  if (!oldImage) return { kind: "requested", record: toRecord(after as QuestionItem, nowMs) };
  const before = unmarshall(oldImage) as Partial<QuestionItem>;
  if (before.entity !== "question" || before.status !== "pending") return undefined;
  if (after.status === "pending") return votedChange(before, after as QuestionItem, nowMs);
  if (after.status === undefined) return undefined;
  return {
    kind: "closed",
    record: toRecord(after as QuestionItem, nowMs),
    ...(typeof before.taskToken === "string" && before.taskToken !== "" && { taskToken: before.taskToken }),
  };
}

/**
 * A pending question whose votes grew: the stream filter lets through any change to a pending question
 * someone has voted on (DynamoDB's filter syntax cannot compare the two images), so the votes are compared here.
 */
function votedChange(
  before: Partial<QuestionItem>,
  after: QuestionItem,
  nowMs: number,
): QuestionChange | undefined {
  const earlier = before.votes?.length ?? 0;
  const votes = after.votes ?? [];
  if (votes.length <= earlier) return undefined;
  return {
    kind: "voted",
    record: toRecord(after, nowMs),
    voters: votes.slice(earlier).map((vote) => vote.by),
  };
}
