import { isDeepStrictEqual } from "node:util";
import type {
  AnswererEntry,
  CancelReason,
  Delivery,
  DeliveryTarget,
  Escalation,
  QuestionRecord,
  Vote,
} from "../questions/question-record.ts";
import type { CopiesBy } from "../questions/record-budget.ts";
import type { Answers, AskUserRequest } from "../questions/schema.ts";

/** A question to register. `taskToken` is present when a Step Functions run waits on it. */
export interface NewQuestion extends AskUserRequest {
  id: string;
  owner: string;
  sessionKey?: string | undefined;
  agentId?: string | undefined;
  runId?: string | undefined;
  taskToken?: string | undefined;
  /**
   * Where it is about to be posted: stored with the record from the first write, so a reply that arrives
   * while the post is still in flight already finds its question by chat.
   */
  deliverTo: DeliveryTarget[];
  createdAtMs: number;
  /** Reminders, in seconds after `createdAtMs`, each before the deadline. */
  remindAfterSeconds?: number[] | undefined;
  /** Who else may answer from `afterSeconds` on, before the deadline, and where they are asked. */
  escalate?: Escalation | undefined;
  /** Where the result is POSTed when the question ends (lib/notify). */
  notify?: { url: string } | undefined;
  /** Who asked: `api:<key name>` or `run` (QuestionRecord.askedBy). */
  askedBy?: string | undefined;
  /**
   * Also list it under its asker (the pending index of an `ask` key's questions), so that key's listing
   * reads only its own questions.
   */
  listUnderAsker?: boolean | undefined;
  /** The person the question was asked on behalf of, who may never answer it. */
  requestedBy?: string | undefined;
  /** Who is asking and why, canonical (QuestionRecord.context). */
  context?: string | undefined;
  /** Who else may answer from the start: people and groups, as the caller listed them. */
  askedAnswerers?: AnswererEntry[] | undefined;
  /** How many agreeing answers close it; above 1 the record keeps each person's vote. */
  quorum?: number | undefined;
}

/** The statuses a run is resumed with (lib/app/run-outcome.ts); expired and delivery_failed send nothing. */
const RUN_OUTCOMES = new Set<QuestionRecord["status"]>(["answered", "cancelled", "no_quorum"]);

/**
 * A create whose id was taken and whose token could not be replaced: the same run's question, closed with an
 * outcome for it, or an id in use.
 */
export function takenIdResult(
  question: NewQuestion,
  stored: QuestionRecord | undefined,
): Extract<CreateResult, { kind: "closed_for_run" | "id_in_use" }> {
  const sameRun = question.runId !== undefined && stored?.runId === question.runId;
  // The same question, not only the same id: an agent of one's own that reuses a tool-call id in a loop must
  // not be handed an earlier iteration's answer.
  const sameQuestion =
    stored !== undefined &&
    stored.owner === question.owner &&
    isDeepStrictEqual(stored.questions, question.questions);
  return stored && sameRun && sameQuestion && RUN_OUTCOMES.has(stored.status)
    ? { kind: "closed_for_run", record: stored }
    : { kind: "id_in_use" };
}

export type CreateResult =
  | { kind: "created"; record: QuestionRecord }
  /** The same run registered this question before (a retried task): its token was replaced. */
  | { kind: "token_replaced"; record: QuestionRecord }
  /**
   * The same run registered this question before and it has since closed with an outcome for the run
   * (answered, cancelled, no_quorum): a task retried after a quick answer, whose new token is to be resumed
   * with it.
   */
  | { kind: "closed_for_run"; record: QuestionRecord }
  | { kind: "id_in_use" }
  /**
   * Another question of the session is pending. `pendingTaskToken`: the run that waits on it, so the caller
   * can ask Step Functions whether that wait is still alive (a wait ended outside Handraise frees the slot).
   */
  | { kind: "session_busy"; pendingId?: string | undefined; pendingTaskToken?: string | undefined };

/** Who closed a question: the audit value, and the API key the request came with, if any. */
interface ResolvedBy {
  resolvedBy?: string | undefined;
  resolvedByKey?: string | undefined;
}

/** With a quorum: every vote, the one that closes it last (written whole: the write is conditional on the votes read). */
interface Counted {
  votes?: Vote[] | undefined;
}

export type Outcome =
  | ({ status: "answered"; answers: Answers } & ResolvedBy & Counted)
  | ({ status: "cancelled"; reason: CancelReason } & ResolvedBy)
  /** The people who have not voted can no longer make any answer reach the quorum. */
  | ({ status: "no_quorum" } & ResolvedBy & Counted)
  | { status: "delivery_failed" };

/** The outcomes a vote can end a question with. */
export type VoteOutcome = Extract<Outcome, { status: "answered" | "no_quorum" }>;

export type VoteResult =
  /** The vote is kept; the question still waits for more. */
  | { kind: "recorded"; record: QuestionRecord }
  /**
   * Another vote landed after the `seen` votes were read: nothing changed; `record` is the question as it now
   * is, to count again from.
   */
  | { kind: "stale"; record: QuestionRecord }
  | CloseResult;

export type CloseResult =
  /**
   * This call closed it; `taskToken` is the run to resume, if one waits. `responseLost`: the write landed on
   * an attempt whose response was lost and the SDK's retry found it done — the token left the item with
   * that attempt, so the table's stream resumes the run (lib/app/settle-closed-question.ts).
   */
  | { kind: "closed"; record: QuestionRecord; taskToken: string | undefined; responseLost?: true }
  /** It had already ended (answered, cancelled, expired, …): nothing changed. */
  | { kind: "not_pending"; record: QuestionRecord }
  | { kind: "not_found" };

export type SaveDraftResult =
  /** The draft is stored; the record as it now is. */
  | { kind: "saved"; record: QuestionRecord }
  /** It had already ended (answered, cancelled, expired, …): the draft was not stored. */
  | { kind: "not_pending"; record: QuestionRecord }
  | { kind: "not_found" };

/**
 * A one-time token that hands `answerer` their own answer link in a private conversation they open
 * themselves (lib/app/link-handover.ts): it names the person and the question, never the link.
 */
export interface LinkToken {
  token: string;
  questionId: string;
  answerer: string;
  /** The question's deadline: the token ends with it. */
  expiresAtMs: number;
}

export type PendingFilter = { owner: string } | { sessionKey: string } | { agentId: string };

/**
 * Filters of a paged listing, combined with AND: at least one of owner, sessionKey and agentId, any of the
 * others too. `askedBy`: only the questions of that `ask` key (asked with `listUnderAsker`).
 */
export type PendingFilters = PendingFilter & {
  owner?: string | undefined;
  sessionKey?: string | undefined;
  agentId?: string | undefined;
  askedBy?: string | undefined;
};

/** A place in the pending indexes' order (creation time, then id): the last question of a page. */
export interface PagePosition {
  createdAtMs: number;
  id: string;
}

export interface PendingPageQuery {
  filters: PendingFilters;
  /** At most this many questions. */
  limit: number;
  /** Continue after this question (the `next` of the previous page). */
  after?: PagePosition | undefined;
}

export interface PendingPage {
  /** Open questions, oldest first. */
  questions: QuestionRecord[];
  /** The last question's position, present only when more questions follow. */
  next?: PagePosition;
}

/**
 * Where questions live. Every lookup is by key or by a Query on a pending index; closing is one
 * conditional write, so the first answer wins and every later one learns the final state.
 *
 * @example
 * const result = await store.close(id, { status: "answered", answers }, Date.now());
 * if (result.kind === "closed" && result.taskToken) await callbacks.succeed(result.taskToken, ...);
 */
export interface QuestionStore {
  create(question: NewQuestion, nowMs: number): Promise<CreateResult>;
  get(id: string, nowMs: number): Promise<QuestionRecord | undefined>;
  /** Open questions, oldest first. */
  listPending(filter: PendingFilter, nowMs: number): Promise<QuestionRecord[]>;
  /** One page of open questions matching every filter, oldest first (the question API's listing). */
  listPendingPage(query: PendingPageQuery, nowMs: number): Promise<PendingPage>;
  /**
   * Closes a pending question (one conditional write) and drops its task token from the item: the caller
   * gets the token to resume the run, and the table's stream carries it in the old image for the durable
   * resume (lib/app/settle-closed-question.ts). Its session slot stays until the next ask in that session
   * takes it over (a slot whose question has ended is free).
   */
  close(id: string, outcome: Outcome, nowMs: number): Promise<CloseResult>;
  /**
   * Replaces a pending question's draft (the stepper's answers so far, lib/app/handle-inbound.ts): one
   * conditional write on `status = pending` and the deadline, so a draft never lands on a question that has
   * ended. The caller merges: the whole draft is written (one person steps through one question at a time).
   */
  saveDraft(
    id: string,
    draft: Answers,
    step: number,
    nowMs: number,
    /** With several answerers (`drafts` on the record): whose stepper this is; only their entry is written. */
    person?: string,
  ): Promise<SaveDraftResult>;
  /**
   * Adds a vote to a pending question with a quorum: one conditional write on `status = pending`, the
   * deadline and the number of votes the caller `seen` (so of two votes counted from the same read, one
   * lands and the other is told `stale`, and counts again). `votes` is the whole list after this vote;
   * with `outcome` the same write closes the question, as `close` does (token handed over, draft dropped).
   *
   * @example
   * const result = await store.vote(id, [...record.votes, vote], record.votes.length, Date.now());
   */
  vote(id: string, votes: Vote[], seen: number, nowMs: number, outcome?: VoteOutcome): Promise<VoteResult>;
  /**
   * Closes a question whose wait has ended outside Handraise, if it is still pending; changes nothing
   * otherwise. Unlike `close` it reads nothing back (so a caller that may not see task tokens can use it).
   * With `taskToken`, only while the question still waits on that token (a retried task may have replaced
   * it). True when this call closed it.
   */
  release(id: string, outcome: Outcome, nowMs: number, options?: { taskToken?: string }): Promise<boolean>;
  /**
   * Closes a question whose deadline has passed as `expired` (one conditional write on `status = pending`
   * and the deadline, so an answer that came first wins, and only one of several callers closes it). Like
   * `release` it reads nothing back and leaves the task token alone (the model step may call it). True when
   * this call closed it.
   */
  expire(id: string, nowMs: number): Promise<boolean>;
  /**
   * Records the copies the first delivery posted, each in place of the target it was posted to (`index`:
   * its position in `deliverTo`), and indexes each posted message for routing. Returns the record as it now is: a question answered
   * while its post was in flight is no longer pending, and its late copies need retiring.
   */
  recordDeliveries(
    id: string,
    posted: { index: number; delivery: Delivery }[],
    nowMs: number,
  ): Promise<QuestionRecord | undefined>;
  /**
   * Records further copies (a re-post, an escalation), appending, and indexes them for routing. Returns the
   * record as it now is (undefined when there is no such question): one that ended while the copies were
   * posted has them to retire. Only as many as its room allows are recorded (`copiesRoom`: MAX_COPIES in
   * all, less what is kept for the escalation unless `by` is the escalation itself, held under concurrent
   * writes: an append that loses a race is fitted to the room left and tried again); every one is still
   * indexed, so a reply to a copy not recorded still reaches the question (it is only not retired when the
   * question ends, nor found as a person's own copy).
   */
  addDeliveries(
    id: string,
    deliveries: Delivery[],
    nowMs: number,
    by?: CopiesBy,
  ): Promise<QuestionRecord | undefined>;
  /**
   * Records `next` in place of the copy `previous` (the same chat: a message that takes over from an earlier
   * one, as a WhatsApp step does from the step before), and indexes it for routing; `previous` stays
   * indexed, so a reply to it still reaches the question. Where `previous` is not recorded, `next` is added
   * as `addDeliveries` adds a copy. Returns the record as it now is (undefined when there is no such
   * question).
   */
  replaceCopy(
    id: string,
    previous: Delivery,
    next: Delivery,
    nowMs: number,
  ): Promise<QuestionRecord | undefined>;
  /** The question a posted message belongs to (a reply to it, a thread under it, a tap on it). */
  findByMessage(channel: string, chatId: string, messageId: string): Promise<string | undefined>;
  /**
   * The questions posted to `person` in their one-to-one chat `chatId` with the bot as an answerer other
   * than the owner (recorded with the copies, by key), newest first, at most PRIVATE_CHAT_LOOKUP: where a
   * line they type there, replying to nothing, may belong. Some may have ended.
   */
  findPrivateQuestions(channel: string, chatId: string, person: string): Promise<string[]>;
  /**
   * Claims an inbound platform event; false when it was claimed before (a duplicate delivery). Claims
   * expire after `ttlSeconds` (longer than the platform's retry horizon).
   */
  claimEvent(dedupeKey: string, ttlSeconds: number, nowMs: number): Promise<boolean>;
  /** Gives a claim back when handling the event failed, so the platform's retry is handled. */
  releaseEvent(dedupeKey: string): Promise<void>;
  /** Stores a new link token (never over another: a token is random, a clash is an error). */
  saveLinkToken(token: LinkToken): Promise<void>;
  /**
   * Takes a link token for `answerer`: one conditional delete that holds only for the answerer it was made
   * for, before its deadline, so it is used once without a transaction. Undefined — and nothing changed —
   * for an unknown, used or expired token, or one made for someone else.
   */
  takeLinkToken(token: string, answerer: string, nowMs: number): Promise<LinkToken | undefined>;
  /**
   * Notes on a closed question that its run could not be resumed and never will be (the error's code and
   * when): the stream consumer gives up on it, and whoever investigates finds why on the record.
   */
  recordResumeFailure(id: string, failure: { code: string; atMs: number }): Promise<void>;
  /** Notes on a closed question that the stream consumer is about to resume its run (before it sends). */
  markStreamResume(id: string, atMs: number): Promise<void>;
  /** Whether the stream consumer has begun resuming a closed question's run (a strongly consistent read). */
  streamResumeStarted(id: string): Promise<boolean>;
}

/**
 * Whether a write was refused because the item would pass DynamoDB's 400 KB (both stores throw DynamoDB's
 * ValidationException for it). The budgets keep votes and drafts well under it; people stepping at the same
 * moment can still pass the drafts' budget together, and this tells that refusal from a fault.
 */
export function isItemTooLarge(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.name === "ValidationException" &&
    /item size has exceeded/i.test(error.message)
  );
}

/** How many of the questions last posted to a person's private chat a typed line there looks among. */
export const PRIVATE_CHAT_LOOKUP = 10;
/** How many a private-chat index item keeps (the oldest beyond are dropped as new ones are noted). */
export const PRIVATE_CHAT_KEPT = 25;

/** The ids noted last, newest first, each once, at most PRIVATE_CHAT_LOOKUP of them. */
export function newestIds(ids: readonly string[]): string[] {
  return [...new Set([...ids].reverse())].slice(0, PRIVATE_CHAT_LOOKUP);
}

/**
 * The ids a posted copy is found by in the message index: its message, and the thread it started when the
 * platform names that thread apart from the message (`startedThread`); none for a copy never posted.
 */
export function indexedMessageIds({ messageId, threadId, startedThread }: Delivery): string[] {
  if (messageId === undefined) return [];
  return startedThread === true && threadId !== undefined && threadId !== messageId
    ? [messageId, threadId]
    : [messageId];
}

/**
 * The private-chat index entries a question's copies make: one per person answerer other than the owner
 * (`privateTo`) and chat, for a copy that was posted.
 */
export function privateChatEntries(
  owner: string,
  deliveries: readonly Delivery[],
): { channel: string; chatId: string; person: string }[] {
  const entries = new Map<string, { channel: string; chatId: string; person: string }>();
  for (const { channel, chatId, privateTo, messageId } of deliveries) {
    if (privateTo === undefined || privateTo === owner || messageId === undefined) continue;
    entries.set(JSON.stringify([channel, chatId, privateTo]), { channel, chatId, person: privateTo });
  }
  return [...entries.values()];
}
