/**
 * The port through which the use cases report what happens to a question — the lifecycle an operator reads
 * in the logs and graphs in the metrics: asked, delivered (per target), reminded, escalated, answered /
 * cancelled / skipped / expired / delivery_failed, resumed, and webhooks rejected. Adapters decide how (lib/telemetry/
 * powertools-telemetry.ts: structured log lines and CloudWatch EMF metrics).
 *
 * What may be reported is fixed here, by type: ids, statuses, channel names, counts and durations — never a
 * task token, a secret, an answer's text or a message body (chat payloads carry personal data).
 */
import type {
  Delivery,
  DeliveryTarget,
  QuestionRecord,
  QuestionStatus,
} from "../questions/question-record.ts";

/** The ids that tie a log line to a question and its run. */
export interface QuestionRef {
  id: string;
  runId?: string | undefined;
  sessionKey?: string | undefined;
}

/** How a question ended, as far as a report needs it (no answers, no text). */
export interface ClosedQuestion extends QuestionRef {
  status: Exclude<QuestionStatus, "pending">;
  reason?: "cancelled" | "skipped" | undefined;
  resolvedBy?: string | undefined;
  createdAtMs?: number | undefined;
  resolvedAtMs?: number | undefined;
}

/** Who made the run take its outcome: the closing request itself, or the table's stream retrying it. */
export type ResumeVia = "answer" | "stream" | "retried_ask";

/**
 * @example
 * telemetry.asked(record);
 * telemetry.closed({ id, runId, status: "answered", createdAtMs, resolvedAtMs });
 * telemetry.webhookRejected("slack", 401, "UNAUTHORIZED");
 */
export interface Telemetry {
  asked(question: QuestionRecord): void;
  delivered(question: QuestionRef, delivery: Delivery): void;
  deliveryRefused(question: QuestionRef, target: DeliveryTarget, error: unknown): void;
  /** A reminder was posted in one chat of a question still waiting. */
  reminded(question: QuestionRef, delivery: Delivery): void;
  /** The question was escalated: `copies` copies were posted to the escalation owner's targets. */
  escalated(question: QuestionRef, copies: number): void;
  /** A question ended; reported once, by whoever's closing write won. */
  closed(question: ClosedQuestion): void;
  /** The run took the outcome (`resumed`), or no longer waited on it (`not_waiting`). */
  resumed(question: QuestionRef, via: ResumeVia, outcome: "resumed" | "not_waiting"): void;
  /** A closed question's run could not be resumed and never will be (a final error): recorded, not retried. */
  resumeAbandoned(question: QuestionRef, error: unknown): void;
  /** A webhook request refused before it changed anything: its status and error code, never its body. */
  webhookRejected(platform: string, status: number, reason: string): void;
  /** Something that does not change the outcome failed (a copy not retired, a notice not sent). */
  failed(context: string, error: unknown, fields?: LogFields): void;
  /**
   * An unexpected error the caller was answered opaquely (an HTTP 500, an MCP `INTERNAL` tool error): logged
   * with the error, since the caller never sees it, and counted.
   */
  internalError(context: string, error: unknown, fields?: LogFields): void;
}

/** Extra fields of a log line: ids, names and counts only. */
export type LogFields = Record<string, string | number | undefined>;

/** The correlation ids of a question, as log fields. */
export function idsOf(question: QuestionRef): LogFields {
  return { questionId: question.id, runId: question.runId, sessionKey: question.sessionKey };
}

/** A question's reference ids, from its record. */
export function refOf(record: QuestionRecord): QuestionRef {
  return { id: record.id, runId: record.runId, sessionKey: record.sessionKey };
}

/** What a closed record reports. */
export function closedOf(record: QuestionRecord): ClosedQuestion {
  return {
    ...refOf(record),
    status: record.status === "pending" ? "expired" : record.status,
    reason: record.reason,
    resolvedBy: record.resolvedBy,
    createdAtMs: record.createdAtMs,
    resolvedAtMs: record.resolvedAtMs,
  };
}

/** Reports nothing: for tests of use cases that do not look at telemetry, and tools. */
export const silentTelemetry: Telemetry = {
  asked() {},
  delivered() {},
  deliveryRefused() {},
  reminded() {},
  escalated() {},
  closed() {},
  resumed() {},
  resumeAbandoned() {},
  webhookRejected() {},
  failed() {},
  internalError() {},
};
