/**
 * Whether what several people add to a question stays within its budgets (MAX_VOTES_BYTES, MAX_DRAFTS_BYTES in
 * schema.ts): checked by the use cases before a vote or a draft is written, so one over them is refused and
 * changes nothing. Pure.
 */
import type { QuestionRecord, Vote } from "./question-record.ts";
import { MAX_DRAFTS_BYTES, MAX_VOTES_BYTES } from "./schema.ts";

/** The bytes of `value` as UTF-8 JSON: how the budgets are counted. */
export function jsonBytes(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}

/** Whether `votes`, the whole list a vote would write, fits the votes budget. */
export function votesFit(votes: readonly Vote[]): boolean {
  return jsonBytes(votes) <= MAX_VOTES_BYTES;
}

/** Whether the drafts fit the drafts budget once `person`'s own entry is `own`. */
export function draftsFit(
  drafts: NonNullable<QuestionRecord["drafts"]>,
  person: string,
  own: NonNullable<QuestionRecord["drafts"]>[string],
): boolean {
  return jsonBytes({ ...drafts, [person]: own }) <= MAX_DRAFTS_BYTES;
}
