/**
 * What became of an inbound chat event (lib/app/handle-inbound.ts decides it; each platform adapter and the reply
 * catalog, lib/channels/replies.ts, turn it into what the person is shown). A module of its own, so the catalog
 * depends on the outcomes and not on the pipeline that produces them.
 */
import type { InvalidAnswerReason } from "../questions/errors.ts";
import type { QuestionRecord } from "../questions/question-record.ts";
import type { Answers, Question } from "../questions/schema.ts";

/**
 * Why an event was refused and changed nothing: data, never a sentence — the reply catalog
 * (lib/channels/replies.ts, `invalidText`) says it.
 */
export type InvalidReason =
  /** A control that names no option, step or link of this question (or Back on the first step). */
  | { kind: "control_mismatch" }
  /** A typed option number that names no option of `question` (`several`: the prompt holds more than it). */
  | { kind: "no_such_option"; question: Question; typed: string; several: boolean }
  /**
   * An answer the contract refuses (lib/questions/answers.ts): its problem, the question it is about, and the
   * contract's own sentence for it — the one the HTTP API returns too, so it is said in one place.
   */
  | {
      kind: "answer_refused";
      problem: InvalidAnswerReason;
      questionId: string | undefined;
      contractMessage: string;
    };

/** What became of an inbound chat event; the platform adapter turns it into the platform's reply. */
export type InboundOutcome =
  /** The platform delivered this event before: nothing changes, acknowledge it again. */
  | { kind: "duplicate" }
  /** Chatter that belongs to no question of this user in this chat. */
  | { kind: "ignored" }
  | { kind: "no_pending" }
  /** Someone who may not answer it (yet): they get a private notice, the question stays as it is. */
  | { kind: "not_owner"; record: QuestionRecord }
  /**
   * The person it was asked on behalf of (`requestedBy`): never theirs to answer, skip or cancel, whatever
   * else they are; told so where someone else is told "not yours", and the question stays as it is.
   */
  | { kind: "requester"; record: QuestionRecord }
  /**
   * A person whose vote the question (with a quorum) already holds: nothing changed. `skipped`: that vote is
   * their abstention, and they are told so as their copies and the page tell them.
   */
  | { kind: "already_answered"; record: QuestionRecord; skipped?: true }
  /** A cancel from an answerer who is not the owner of a question several people decide: nothing changed. */
  | { kind: "only_owner_cancels"; record: QuestionRecord }
  /** So many votes landed at once that this event's was not counted: nothing changed, send it again. */
  | { kind: "busy"; record: QuestionRecord }
  /**
   * The question's votes or drafts are at their size budget (lib/questions/schema.ts): this event's vote or
   * step was not kept, nothing changed.
   */
  | { kind: "full"; record: QuestionRecord }
  /** This event's vote is kept; the question waits for `more` agreeing answers. */
  | { kind: "recorded_waiting"; record: QuestionRecord; more: number }
  /** This event was the person's Skip, kept as their abstention: the question waits for the others. */
  | { kind: "abstained"; record: QuestionRecord }
  /** It had already ended (answered, cancelled, expired): a late tap is told so. */
  | { kind: "ended"; record: QuestionRecord }
  /**
   * This event answered, skipped or cancelled it; the run has been resumed — or, with `notWaiting`, the run
   * that asked said it no longer waits (stopped, timed out): recorded, and the person is told so.
   */
  | { kind: "resolved"; record: QuestionRecord; notWaiting?: true }
  /**
   * Answers to some questions but not all: `recorded` (what this event gave, now kept as the draft; empty when
   * it kept nothing) and the questions still `missing`, which the person is told.
   */
  | { kind: "incomplete"; record: QuestionRecord; recorded: Answers; missing: Question[] }
  /** Refused, nothing changed: `reason` says why (the reply catalog turns it into the sentence). */
  | { kind: "invalid"; record: QuestionRecord; reason: InvalidReason }
  /** `/question`: the pending question was posted again here. */
  | { kind: "shown"; record: QuestionRecord }
  /**
   * `/question` on a question that holds as many copies as it can (MAX_COPIES, less the escalation's room),
   * or (`here`) in a chat that holds it MAX_REPOSTS_IN_CHAT times already: nothing was posted.
   */
  | { kind: "copies_full"; record: QuestionRecord; here?: true }
  /** "Other…": the owner wants to type an answer to this sub-question. */
  | { kind: "needs_text"; record: QuestionRecord; questionIndex: number }
  /** A multi-select toggle by the owner: the adapter re-renders its controls. */
  | { kind: "toggled"; record: QuestionRecord; questionIndex: number; optionIndex: number }
  /**
   * The stepper moved (a step answered and kept in `record.draft`, or Back): the adapter shows sub-question
   * `questionIndex` of the prompt, with what the draft holds for it already chosen.
   */
  | { kind: "step"; record: QuestionRecord; questionIndex: number }
  /**
   * "Answer in browser" tapped on a shared copy by someone who may answer: `url` is their own link (made for
   * them alone), which the adapter hands them privately — never in the conversation.
   */
  | { kind: "private_link"; record: QuestionRecord; url: string };
