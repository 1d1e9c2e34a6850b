/**
 * How a question is stored: the record of lib/questions/question-record.ts plus the attributes only storage
 * needs (key, entity, TTL, the task token while a run waits). Read by both question stores (DynamoDB and in
 * memory) and by the table-stream reader; nothing outside lib/store sees an item.
 */
import {
  type AnswererEntry,
  answerersOf,
  type Delivery,
  type QuestionRecord,
  type StoredStatus,
  statusAt,
} from "../questions/question-record.ts";
import { ttlAfter } from "./dynamodb-table.ts";
import { CREATED_ORDER, INDEX, keys } from "./keys.ts";
import type { CloseResult, NewQuestion, Outcome } from "./question-store.ts";

/** Stored item of a question (the record plus storage-only attributes). */
export interface QuestionItem extends Omit<QuestionRecord, "status" | "answerers"> {
  pk: string;
  entity: "question";
  status: StoredStatus;
  taskToken?: string;
  expiresAt: number;
  /** Who else may answer, as asked (the record shows them, with the owner and escalation, as `answerers`). */
  askedAnswerers?: AnswererEntry[];
  /** Set when the stream consumer gave up resuming the run (lib/app/settle-closed-question.ts). */
  resumeFailure?: { code: string; atMs: number };
  /**
   * When the stream consumer began resuming the run, written before its send: a closing function whose own
   * resume then hears "no longer waiting" may have lost to that send, so it does not tell the person the
   * run stopped (lib/app/resolve-question.ts).
   */
  streamResumeAtMs?: number;
  /**
   * When the latest vote was kept on the pending question, at any quorum (a quorum-1 question keeps one only
   * for an abstention): the table's stream passes a pending question's change to its consumer only once
   * this is there (serverless.yml), so a question nobody has voted on wakes it at no step or draft.
   */
  votedAtMs?: number;
  /**
   * The id of the last write that decided the question's state (its put, a vote, the close): a write the SDK
   * retries after its response was lost finds its own id here and holds (lib/store/dynamodb-table.ts,
   * `writeId`). Never part of the record.
   */
  writeId?: string;
}

/** The API-visible record: storage attributes (keys, TTL, the task token) never leave the store. */
export function toRecord(item: QuestionItem, nowMs: number): QuestionRecord {
  return { ...toListedRecord(item, nowMs), answerers: answerersOf(item) };
}

/**
 * A record as a pending listing shows it: the pending indexes project only the listing's attributes
 * (infra/table.json), not the reminders or the escalation, so a listed record says nothing of who else may
 * answer (GET /questions/{id} does).
 */
export function toListedRecord(item: QuestionItem, nowMs: number): QuestionRecord {
  return {
    id: item.id,
    status: statusAt(item.status, item.expiresAtMs, nowMs),
    questions: item.questions,
    owner: item.owner,
    ...(item.sessionKey !== undefined && { sessionKey: item.sessionKey }),
    ...(item.agentId !== undefined && { agentId: item.agentId }),
    ...(item.runId !== undefined && { runId: item.runId }),
    // Not projected into the pending indexes (infra/table.json): shown when the question is read by id.
    ...(item.askedBy !== undefined && { askedBy: item.askedBy }),
    ...(item.requestedBy !== undefined && { requestedBy: item.requestedBy }),
    ...(item.context !== undefined && { context: item.context }),
    deliveries: item.deliveries ?? [],
    createdAtMs: item.createdAtMs,
    expiresAtMs: item.expiresAtMs,
    ...(item.answers !== undefined && { answers: item.answers }),
    ...(item.draft !== undefined && item.status === "pending" && { draft: item.draft }),
    ...(item.step !== undefined && item.status === "pending" && { step: item.step }),
    ...(item.drafts !== undefined && item.status === "pending" && { drafts: item.drafts }),
    ...(item.reason !== undefined && { reason: item.reason }),
    ...(item.resolvedBy !== undefined && { resolvedBy: item.resolvedBy }),
    ...(item.resolvedByKey !== undefined && { resolvedByKey: item.resolvedByKey }),
    ...(item.resolvedAtMs !== undefined && { resolvedAtMs: item.resolvedAtMs }),
    ...(item.remindAfterSeconds !== undefined && { remindAfterSeconds: item.remindAfterSeconds }),
    ...(item.escalate !== undefined && { escalate: item.escalate }),
    ...(item.notify !== undefined && { notify: item.notify }),
    ...(item.quorum !== undefined && { quorum: item.quorum }),
    ...(item.votes !== undefined && { votes: item.votes }),
  };
}

/** The item of a question just asked: pending, its deadline creation + timeout, kept `retentionSeconds` after. */
export function newQuestionItem(question: NewQuestion, retentionSeconds: number): QuestionItem {
  const expiresAtMs = question.createdAtMs + question.timeoutSeconds * 1000;
  return {
    pk: keys.question(question.id),
    entity: "question",
    id: question.id,
    status: "pending",
    questions: question.questions,
    owner: question.owner,
    ...(question.sessionKey !== undefined && { sessionKey: question.sessionKey }),
    ...(question.agentId !== undefined && { agentId: question.agentId }),
    ...(question.runId !== undefined && { runId: question.runId }),
    ...(question.taskToken !== undefined && { taskToken: question.taskToken }),
    ...(question.notify !== undefined && { notify: question.notify }),
    deliveries: question.deliverTo,
    createdAtMs: question.createdAtMs,
    expiresAtMs,
    expiresAt: ttlAfter(expiresAtMs, retentionSeconds),
    ...(question.remindAfterSeconds !== undefined &&
      question.remindAfterSeconds.length > 0 && { remindAfterSeconds: question.remindAfterSeconds }),
    ...(question.escalate !== undefined && { escalate: question.escalate }),
    ...(question.askedBy !== undefined && { askedBy: question.askedBy }),
    ...(question.requestedBy !== undefined && { requestedBy: question.requestedBy }),
    ...(question.context !== undefined && { context: question.context }),
    ...(question.askedAnswerers !== undefined &&
      question.askedAnswerers.length > 0 && { askedAnswerers: question.askedAnswerers }),
    // With more than one possible answerer (listed answerers, an escalation owner) each person steps on their
    // own: a map from the first write, so each person's entry can be set alone.
    ...(((question.askedAnswerers?.length ?? 0) > 0 || question.escalate !== undefined) && { drafts: {} }),
    // Votes are kept only where one answer does not decide: from the first write, so each vote's write can
    // be conditional on how many there are.
    ...(question.quorum !== undefined && question.quorum > 1 && { quorum: question.quorum, votes: [] }),
  };
}

/**
 * The attributes that put a new question in the pending indexes it belongs to (lib/store/keys.ts): the
 * partition of each, and the creation order they sort by.
 */
export function pendingIndexKeys(question: NewQuestion): Record<string, string> {
  return {
    [INDEX.pendingByOwner.partitionKey]: keys.ownerIndex(question.owner),
    ...(question.sessionKey !== undefined && {
      [INDEX.pendingBySession.partitionKey]: keys.sessionIndex(question.sessionKey),
    }),
    ...(question.agentId !== undefined && {
      [INDEX.pendingByAgent.partitionKey]: keys.agentIndex(question.agentId),
    }),
    ...(question.listUnderAsker &&
      question.askedBy !== undefined && {
        [INDEX.pendingByAsker.partitionKey]: keys.askerIndex(question.askedBy),
      }),
    [CREATED_ORDER]: keys.createdOrder(question.createdAtMs, question.id),
  };
}

/** The attributes an outcome sets on the question it ends. */
export function outcomeAttributes(outcome: Outcome, nowMs: number): Partial<QuestionItem> {
  return {
    status: outcome.status,
    resolvedAtMs: nowMs,
    ...(outcome.status === "answered" && { answers: outcome.answers }),
    ...(outcome.status === "cancelled" && { reason: outcome.reason }),
    ...((outcome.status === "answered" || outcome.status === "no_quorum") &&
      outcome.votes !== undefined && { votes: outcome.votes }),
    ...(outcome.status !== "delivery_failed" &&
      outcome.resolvedBy !== undefined && { resolvedBy: outcome.resolvedBy }),
    ...(outcome.status !== "delivery_failed" &&
      outcome.resolvedByKey !== undefined && { resolvedByKey: outcome.resolvedByKey }),
  };
}

/**
 * The item as the closing write leaves it, from the item before it: the outcome set, and the task token and
 * the steppers' drafts gone.
 */
export function closedItem(before: QuestionItem, outcome: Outcome, nowMs: number): QuestionItem {
  const { taskToken: _token, draft: _draft, step: _step, drafts: _drafts, ...rest } = before;
  return { ...rest, ...outcomeAttributes(outcome, nowMs) };
}

/**
 * What closing gives its caller, from the item before the write: the closed record and the token to resume.
 * `writeId`: the closing write's; when the item before it already carries it, an earlier attempt of the same
 * write closed the question and its response was lost (the token left the item then).
 */
export function closedResult(
  before: QuestionItem,
  outcome: Outcome,
  nowMs: number,
  writeId: string,
): CloseResult {
  return {
    kind: "closed",
    record: toRecord(closedItem(before, outcome, nowMs), nowMs),
    taskToken: before.taskToken,
    ...(before.writeId === writeId && { responseLost: true as const }),
  };
}

/** The same posted message: its chat and message id. */
/**
 * The copy `next` as it is recorded in place of `previous`: it keeps the escalation's mark, which the room kept
 * for the escalation's targets is read from (lib/questions/record-budget.ts) — a WhatsApp step taking over the
 * escalation owner's copy must not make the escalation look unposted again.
 */
export function takingOver(previous: Delivery, next: Delivery): Delivery {
  return previous.escalation ? { ...next, escalation: true } : next;
}

export function sameCopy(a: Delivery, b: Delivery): boolean {
  return (
    a.messageId !== undefined &&
    a.channel === b.channel &&
    a.chatId === b.chatId &&
    a.messageId === b.messageId
  );
}
