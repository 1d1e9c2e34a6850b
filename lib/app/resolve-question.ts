import { isDeepStrictEqual } from "node:util";
import type { TaskCallbacks } from "../callbacks/task-callbacks.ts";
import { waiterOf } from "../callbacks/waiter.ts";
import { validateAnswers } from "../questions/index.ts";
import {
  type ActingIn,
  answerRefusal,
  type CancelReason,
  type QuestionRecord,
  type Vote,
  votersOf,
} from "../questions/question-record.ts";
import { votesFit } from "../questions/record-budget.ts";
import type { Answers } from "../questions/schema.ts";
import { hasVoted, tally } from "../questions/votes.ts";
import {
  type CloseResult,
  isItemTooLarge,
  type Outcome,
  type QuestionStore,
  type VoteOutcome,
} from "../store/question-store.ts";
import { closedOf, idsOf, refOf, type Telemetry } from "../telemetry/telemetry.ts";
import {
  AlreadyAnsweredError,
  AlreadyResolvedError,
  NotFoundError,
  NotOwnerError,
  OnlyOwnerCancelsError,
  RequesterCannotAnswerError,
  VotesBusyError,
  VotesFullError,
} from "./errors.ts";
import { resumeRun, runHasEnded } from "./run-outcome.ts";

export interface ResolveDeps {
  store: QuestionStore;
  callbacks: TaskCallbacks;
  now: () => number;
  /** Reports each close (once: this write won) and each resume, or a resume the stream will retry. */
  telemetry: Telemetry;
}

export interface ResolveOptions {
  /** Who resolved it, recorded on the question (e.g. "api", "api:ops-bot", "telegram:42", "run-abort"). */
  resolvedBy?: string | undefined;
  /** The name of the API key the request came with (the question API, /mcp), recorded as `resolvedByKey`. */
  resolvedByKey?: string | undefined;
  /**
   * When set, the platform-qualified user resolving it (chat webhooks, the answer page): they must be its
   * owner, or its escalation owner from the escalation time on, and never the person it was asked for.
   */
  actor?: string | undefined;
  /** Where `actor` acted: a member of one of the question's groups may answer only from that group. */
  actingIn?: ActingIn | undefined;
  /**
   * When set, whether the caller may see the question at all (an `ask` key sees only its own): one it may
   * not is NotFoundError, as if it did not exist.
   */
  visible?: ((record: QuestionRecord) => boolean) | undefined;
  /**
   * The question as this request already read it (a strongly consistent read): the checks run on it and no
   * second read is made. The close stays conditional on `pending`, so a question that ended since that read
   * still loses the write (AlreadyResolvedError) — the read only saves a round trip on the answer path.
   */
  loaded?: QuestionRecord | undefined;
}

export interface Resolution {
  record: QuestionRecord;
  /**
   * Whether the waiting run took the result; `no_run` for questions nothing waits on; `pending_retry` when
   * Step Functions could not be reached (throttled, 5xx), or when the table's stream had begun its own resume
   * (which may have delivered it first): the record is closed all the same, and the stream resumes the run
   * (lib/app/settle-closed-question.ts). `not_waiting`: the run said it no longer waits, and the stream had
   * not begun resuming it.
   */
  run: "resumed" | "not_waiting" | "no_run" | "pending_retry";
  /**
   * With a quorum, when this vote was kept and did not close the question: how many more agreeing answers
   * it waits for. Absent when the question ended.
   */
  more?: number;
  /** With `more`: this request's vote was the person's abstention (a Skip that left it to the others). */
  abstained?: boolean;
}

/**
 * Whether `record` keeps the vote `mine`: the same voter (and key) at the same time, with the same answers —
 * so the same person's other request in the same millisecond is not taken for this one.
 */
const holdsVote = (record: QuestionRecord, mine: Vote) =>
  (record.votes ?? []).some(
    (vote) =>
      vote.by === mine.by &&
      vote.atMs === mine.atMs &&
      vote.key === mine.key &&
      (vote.skipped ?? false) === (mine.skipped ?? false) &&
      isDeepStrictEqual(vote.answers ?? {}, mine.answers ?? {}),
  );

/**
 * How often a vote is counted before it is given up on as busy (VotesBusyError, retryable). Each retry means
 * another vote was kept first; without a group a question has at most 10 voters, so a vote lands within
 * that many tries, and only a crowd in a group can outrun it — that vote is then sent again, not failed.
 */
export const MAX_VOTE_ATTEMPTS = 12;

/**
 * Answering and cancelling: one conditional write decides (first one wins), then the waiting run is resumed.
 * A request that finds the question past its deadline closes it as expired if nothing has yet (the question's
 * expiry timer normally has, within a minute of the deadline).
 * The posted copies are retired by the table's stream consumer (lib/app/settle-closed-question.ts), the one
 * function holding every platform's credentials; a webhook answers its own tapping user directly.
 *
 * @example
 * const { answer, cancel } = createResolveQuestion(deps);
 * await answer("ask_…", { deploy_target: ["Production"] }, { resolvedBy: "api" });
 * await cancel("ask_…", "skipped", { actor: "telegram:42" });
 * @throws NotFoundError, NotOwnerError, RequesterCannotAnswerError, AlreadyResolvedError (with the final
 *   status), InvalidAnswerError, AlreadyAnsweredError, VotesBusyError and VotesFullError (a vote, with a
 *   quorum).
 */
export function createResolveQuestion(deps: ResolveDeps) {
  const { store, callbacks, now } = deps;

  async function loadPending(id: string, options: ResolveOptions): Promise<QuestionRecord> {
    const record = options.loaded?.id === id ? options.loaded : await store.get(id, now());
    if (!record || (options.visible !== undefined && !options.visible(record))) throw new NotFoundError(id);
    const refusal =
      options.actor === undefined ? undefined : answerRefusal(record, options.actor, now(), options.actingIn);
    if (refusal === "requester") throw new RequesterCannotAnswerError(id);
    if (refusal === "not_answerer") throw new NotOwnerError(id);
    if (record.status === "expired") throw new AlreadyResolvedError(id, await expiredOrFinal(record));
    if (record.status !== "pending") throw new AlreadyResolvedError(id, record.status);
    return record;
  }

  /**
   * A question read past its deadline: unless its expiry timer has already done so, it is closed as expired
   * here — the same conditional write — so the status this late request is told is the stored one. An
   * answer read just before the deadline may still be landing: if its write wins, this one fails and the
   * request is told `answered`; if this one wins, that answer's write fails and it is told `expired`.
   */
  async function expiredOrFinal(record: QuestionRecord): Promise<QuestionRecord["status"]> {
    const at = now();
    if (await store.expire(record.id, at)) {
      deps.telemetry.closed({
        ...refOf(record),
        status: "expired",
        createdAtMs: record.createdAtMs,
        resolvedAtMs: at,
      });
      return "expired";
    }
    return (await store.get(record.id, at))?.status ?? "expired";
  }

  async function close(id: string, outcome: Outcome): Promise<Resolution> {
    return afterClose(id, await store.close(id, outcome, now()));
  }

  /** After a closing write: the run resumed, or the reason the write did not close it. */
  async function afterClose(id: string, closed: CloseResult): Promise<Resolution> {
    if (closed.kind === "not_found") throw new NotFoundError(id);
    if (closed.kind === "not_pending") throw new AlreadyResolvedError(id, closed.record.status);
    deps.telemetry.closed(closedOf(closed.record));
    // The session slot is not freed here: a slot whose question has ended is free by definition (the next
    // ask in the session takes it over), which keeps a write off the path a person waits on.
    let run: Resolution["run"] = "no_run";
    // Our write landed on an attempt whose response was lost: the token left with it, and the table's
    // stream resumes the run that waits.
    if (closed.responseLost && closed.record.runId !== undefined) run = "pending_retry";
    if (closed.taskToken !== undefined) {
      try {
        run = await resumeRun(callbacks, closed.taskToken, closed.record);
        deps.telemetry.resumed(refOf(closed.record), "answer", run);
        // "No longer waiting" may only mean the table's stream delivered this very outcome first: that
        // consumer notes its resume before it sends, so a note here means the run is the stream's to tell.
        if (run === "not_waiting" && (await store.streamResumeStarted(closed.record.id)))
          run = "pending_retry";
        // A dead token is not a stopped run: a retried AskUser task gives this outcome to its own token.
        // Only a run that has ended is told as one; when that cannot be told, the answer is "recorded".
        if (
          run === "not_waiting" &&
          waiterOf(closed.taskToken).kind === "task" &&
          !(await runHasEnded(callbacks, closed.record, deps.telemetry))
        )
          run = "pending_retry";
      } catch (error) {
        // The answer is accepted (the write won): the stream consumer delivers it to the run.
        deps.telemetry.failed("resuming the run (the stream will retry)", error, idsOf(closed.record));
        run = "pending_retry";
      }
    }
    return { record: closed.record, run };
  }

  /**
   * One person's vote on a question with a quorum: counted with the votes already kept, and written on the
   * condition that no other vote landed since they were read — else counted again from the votes as they now
   * are. The write that makes n agree (or makes agreement impossible) closes the question; only one can.
   */
  async function vote(
    loaded: QuestionRecord,
    cast: Pick<Vote, "answers" | "skipped">,
    options: ResolveOptions,
  ): Promise<Resolution> {
    const by = options.actor ?? options.resolvedBy ?? "api";
    const key = options.resolvedByKey;
    // A key's vote is the key's own, whatever person its `resolvedBy` names: one key is one voter, so it
    // cannot cast several people's votes and close a question alone.
    const keyVote = options.actor === undefined && key !== undefined;
    let record = loaded;
    for (let attempt = 0; attempt < MAX_VOTE_ATTEMPTS; attempt++) {
      const votes = record.votes ?? [];
      if (keyVote ? votes.some((vote) => vote.key === key) : hasVoted(votes, by)) {
        throw new AlreadyAnsweredError(record.id, by, keyVote ? key : undefined);
      }
      const mine: Vote = { by, ...cast, atMs: now(), ...(key !== undefined && { key }) };
      const counted = [...votes, mine];
      // The whole list is written on the condition that it still holds the votes read, so the list stored is
      // the one measured here: this check keeps the budget under races too.
      if (!votesFit(counted)) throw new VotesFullError(record.id);
      const decided = tally(counted, record.quorum ?? 1, votersOf(record), record.questions);
      const who = { resolvedBy: options.resolvedBy, resolvedByKey: options.resolvedByKey };
      const outcome: VoteOutcome | undefined =
        decided.kind === "agreed"
          ? { status: "answered", answers: decided.answers, ...who }
          : decided.kind === "no_quorum"
            ? { status: "no_quorum", ...who }
            : undefined;
      const result = await store
        .vote(record.id, counted, votes.length, now(), outcome)
        .catch((error: unknown) => {
          // Drafts written at the same moment can leave the item no room for this vote: refused, not a fault.
          if (isItemTooLarge(error)) throw new VotesFullError(record.id);
          throw error;
        });
      // A write applied whose response was lost, retried after another vote landed: the retry finds the votes
      // changed, and among them this call's own (its voter and its time), so it was kept.
      if ((result.kind === "stale" || result.kind === "not_pending") && holdsVote(result.record, mine)) {
        return ownVote(result.record, cast);
      }
      if (result.kind === "stale") {
        record = result.record;
        continue;
      }
      if (result.kind === "recorded") {
        return {
          record: result.record,
          run: "no_run",
          more: decided.kind === "waiting" ? decided.more : 0,
          ...(cast.skipped === true && { abstained: true }),
        };
      }
      return afterClose(record.id, result);
    }
    throw new VotesBusyError(record.id);
  }

  /** What a vote found kept on `record` gives, as if its own write had answered. */
  function ownVote(record: QuestionRecord, cast: Pick<Vote, "skipped">): Resolution {
    if (record.status !== "pending") {
      // Closed since, by a later write or by this one: the table's stream resumes the run either way.
      return { record, run: record.runId === undefined ? "no_run" : "pending_retry" };
    }
    const decided = tally(record.votes ?? [], record.quorum ?? 1, votersOf(record), record.questions);
    return {
      record,
      run: "no_run",
      more: decided.kind === "waiting" ? decided.more : 0,
      ...(cast.skipped === true && { abstained: true }),
    };
  }

  /** Whether the question is decided by several votes (else the first answer closes it). */
  const byVotes = (record: QuestionRecord) => (record.quorum ?? 1) > 1;

  return {
    async answer(id: string, rawAnswers: unknown, options: ResolveOptions = {}): Promise<Resolution> {
      const record = await loadPending(id, options);
      const answers: Answers = validateAnswers(record.questions, rawAnswers);
      if (byVotes(record)) return vote(record, { answers }, options);
      // Someone who abstained has given their word (a Skip that left the question to the others): with the
      // first answer closing too, they do not answer it afterwards, on any surface.
      const person = options.actor;
      if (person !== undefined && hasVoted(record.votes, person)) throw new AlreadyAnsweredError(id, person);
      return close(id, {
        status: "answered",
        answers,
        resolvedBy: options.resolvedBy,
        resolvedByKey: options.resolvedByKey,
      });
    },

    async cancel(id: string, reason: CancelReason, options: ResolveOptions = {}): Promise<Resolution> {
      const record = await loadPending(id, options);
      const person = options.actor;
      // A person's Skip is their abstention — with the first answer closing too, unless they own the question,
      // whose Skip ends it then; only the owner (or a key) may cancel the whole question, whatever the quorum.
      if (person !== undefined && (byVotes(record) || person !== record.owner)) {
        if (reason === "skipped") return vote(record, { answers: {}, skipped: true }, options);
        if (person !== record.owner) throw new OnlyOwnerCancelsError(id);
      }
      return close(id, {
        status: "cancelled",
        reason,
        resolvedBy: options.resolvedBy,
        resolvedByKey: options.resolvedByKey,
      });
    },
  };
}

export type ResolveQuestion = ReturnType<typeof createResolveQuestion>;
