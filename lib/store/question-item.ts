/**
 * How a question is stored: the record of lib/questions/question-record.ts plus the attributes only storage
 * needs (key, entity, TTL, the task token while a run waits). Read by the DynamoDB store and by the
 * table-stream reader; nothing outside lib/store sees an item.
 */
import {
  answerersOf,
  type QuestionRecord,
  type StoredStatus,
  statusAt,
} from "../questions/question-record.ts";

/** Stored item of a question (the record plus storage-only attributes). */
export interface QuestionItem extends Omit<QuestionRecord, "status" | "answerers"> {
  pk: string;
  entity: "question";
  status: StoredStatus;
  taskToken?: string;
  expiresAt: number;
  /** Set when the stream consumer gave up resuming the run (lib/app/settle-closed-question.ts). */
  resumeFailure?: { code: string; atMs: number };
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
    ...(item.reason !== undefined && { reason: item.reason }),
    ...(item.resolvedBy !== undefined && { resolvedBy: item.resolvedBy }),
    ...(item.resolvedByKey !== undefined && { resolvedByKey: item.resolvedByKey }),
    ...(item.resolvedAtMs !== undefined && { resolvedAtMs: item.resolvedAtMs }),
    ...(item.remindAfterSeconds !== undefined && { remindAfterSeconds: item.remindAfterSeconds }),
    ...(item.escalate !== undefined && { escalate: item.escalate }),
    ...(item.notify !== undefined && { notify: item.notify }),
  };
}
