/**
 * Whether what is added to a question stays within its budgets (MAX_VOTES_BYTES, MAX_DRAFTS_BYTES in
 * schema.ts; MAX_COPIES in question-record.ts): checked before a vote, a draft or a copy is written, so one
 * over them is refused and changes nothing. Pure.
 */
import { type Delivery, MAX_COPIES, type QuestionRecord, type Vote } from "./question-record.ts";
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

/** How many more copies a question with these may record (MAX_COPIES in all). */
export function copiesRoom(deliveries: readonly Delivery[]): number {
  return Math.max(0, MAX_COPIES - deliveries.length);
}

/**
 * For the log, when `count` more copies find no room beside `deliveries`: what happens to them — indexed, so
 * what is said to them still reaches the question, but not recorded, so not retired when it ends.
 */
export function copiesNotRecorded(deliveries: readonly Delivery[], count: number): Error | undefined {
  const room = copiesRoom(deliveries);
  if (count <= room) return undefined;
  return new Error(
    `${count - room} of ${count} copies not recorded (a question records at most ${MAX_COPIES}): they still route to the question, but are not retired when it ends`,
  );
}
