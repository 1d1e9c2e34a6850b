/**
 * Whether what is added to a question stays within its budgets (MAX_VOTES_BYTES, MAX_DRAFTS_BYTES in
 * schema.ts; MAX_COPIES in question-record.ts): checked before a vote, a draft or a copy is written, so one
 * over them is refused and changes nothing. Pure.
 */
import { MAX_COPIES, type QuestionRecord, type Vote } from "./question-record.ts";
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

/**
 * A `/question` re-post goes to a chat only while it holds fewer copies of the question than this: posting
 * again brings the question back into view, and more copies of it in one chat would only use up the
 * question's room (MAX_COPIES).
 */
export const MAX_REPOSTS_IN_CHAT = 3;

/** What the copy budget reads of a question. */
export type CopiesOf = Pick<QuestionRecord, "deliveries" | "escalate">;

/**
 * Who adds copies: the escalation's own posting may use the room kept for it; anything else (a re-post, a
 * step, the prompt for an own answer, a template) may not.
 */
export type CopiesBy = "escalation" | "other";

/**
 * Copies kept free for the escalation until it has posted, so that a question filled by re-posts and steps
 * still records the escalation owner's copies (their typed line, their stepper, the retiring at the end read
 * the recorded copies): every target until the escalation's own copies are recorded (it posts to every
 * target, whatever its chat holds, and a re-post between its time and its write must not take that room),
 * from then on those whose chat holds no copy. A target that refused stays kept.
 */
export function escalationReserve(record: CopiesOf): number {
  const targets = record.escalate?.deliverTo ?? [];
  if (!record.deliveries.some((d) => d.escalation === true)) return targets.length;
  return targets.filter(
    (t) => !record.deliveries.some((d) => d.channel === t.channel && d.chatId === t.chatId),
  ).length;
}

/** How many more copies a question may record (MAX_COPIES in all, less what is kept for its escalation). */
export function copiesRoom(record: CopiesOf, by: CopiesBy = "other"): number {
  const reserved = by === "escalation" ? 0 : escalationReserve(record);
  return Math.max(0, MAX_COPIES - record.deliveries.length - reserved);
}

/**
 * For the log, when `count` more copies find no room beside the question's: what happens to them — indexed,
 * so a reply to one or a tap on it still reaches the question, but not recorded, so not retired when it ends
 * and not counted as the copy a person's typed line or stepper is found by.
 */
export function copiesNotRecorded(
  record: CopiesOf,
  count: number,
  by: CopiesBy = "other",
): Error | undefined {
  const room = copiesRoom(record, by);
  if (count <= room) return undefined;
  return new Error(
    `${count - room} of ${count} copies not recorded (a question records at most ${MAX_COPIES}, some kept for its escalation): a reply to one still routes to the question, but they are not retired when it ends`,
  );
}
