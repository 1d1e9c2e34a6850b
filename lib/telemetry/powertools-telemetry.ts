import type { Logger } from "@aws-lambda-powertools/logger";
import { type Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import { type ClosedQuestion, idsOf, type LogFields, type QuestionRef, type Telemetry } from "./telemetry.ts";

/** The CloudWatch namespace of every Handraise metric. */
export const METRICS_NAMESPACE = "Handraise";

/** One metric per way a question ends. */
const CLOSED_METRICS = {
  answered: "QuestionsAnswered",
  cancelled: "QuestionsCancelled",
  skipped: "QuestionsSkipped",
  expired: "QuestionsExpired",
  delivery_failed: "QuestionsDeliveryFailed",
  no_quorum: "QuestionsNoQuorum",
} as const;

/**
 * Anything shaped like a task token or a long credential (a long unbroken run of base64 characters) in an
 * error message is replaced before it is logged: the messages of AWS and platform errors are not ours, and
 * the logs must never carry a token.
 */
export function redact(text: string): string {
  return text.replace(/[A-Za-z0-9+/=_-]{80,}/g, "[redacted]");
}

function errorFields(error: unknown): { error: { name: string; message: string } } {
  return error instanceof Error
    ? { error: { name: error.name, message: redact(error.message) } }
    : { error: { name: "Error", message: redact(String(error)) } };
}

/** Fields without the undefined ones (a log line shows what is known). */
const known = (fields: LogFields) =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
const ids = (question: QuestionRef) => known(idsOf(question));

/**
 * Telemetry as Powertools Logger lines (structured JSON, the question and run ids on every line) and
 * Powertools Metrics in CloudWatch's embedded metric format (namespace `Handraise`, flushed by the
 * `logMetrics` middleware at the end of each invocation).
 *
 * @example
 * const telemetry = createPowertoolsTelemetry({ logger, metrics });
 */
export function createPowertoolsTelemetry({
  logger,
  metrics,
}: {
  logger: Logger;
  metrics: Metrics;
}): Telemetry {
  return {
    asked(question) {
      logger.info("question asked", {
        ...ids(question),
        questions: question.questions.length,
        targets: question.deliveries.map((d) => d.channel),
        expiresAtMs: question.expiresAtMs,
      });
      metrics.addMetric("QuestionsAsked", MetricUnit.Count, 1);
    },
    delivered(question, delivery) {
      logger.info("question delivered", { ...ids(question), channel: delivery.channel });
    },
    deliveryRefused(question, target, error) {
      logger.warn("delivery refused", { ...ids(question), channel: target.channel, ...errorFields(error) });
    },
    reminded(question, delivery) {
      logger.info("reminder sent", { ...ids(question), channel: delivery.channel });
      metrics.addMetric("RemindersSent", MetricUnit.Count, 1);
    },
    escalated(question, copies) {
      logger.info("question escalated", { ...ids(question), copies });
      metrics.addMetric("QuestionsEscalated", MetricUnit.Count, 1);
    },
    closed(question: ClosedQuestion) {
      const outcome =
        question.status === "cancelled" && question.reason === "skipped" ? "skipped" : question.status;
      logger.info(`question ${outcome.replace("_", " ")}`, {
        ...ids(question),
        status: question.status,
        ...(question.reason !== undefined && { reason: question.reason }),
        // Who, as an identity kind only: "telegram", "api", "run-abort", … (never the person's id).
        ...(question.resolvedBy !== undefined && { resolvedBy: question.resolvedBy.split(":")[0] }),
      });
      metrics.addMetric(CLOSED_METRICS[outcome], MetricUnit.Count, 1);
      if (
        outcome === "answered" &&
        question.createdAtMs !== undefined &&
        question.resolvedAtMs !== undefined
      ) {
        metrics.addMetric(
          "TimeToAnswer",
          MetricUnit.Seconds,
          Math.max(0, (question.resolvedAtMs - question.createdAtMs) / 1000),
        );
      }
    },
    resumed(question, via, outcome) {
      logger.info(outcome === "resumed" ? "run resumed" : "run no longer waiting", { ...ids(question), via });
      // The stream resumed a run the closing request had not: its own SendTask* failed, or it died first.
      if (via === "stream" && outcome === "resumed") metrics.addMetric("ResumeRetried", MetricUnit.Count, 1);
    },
    resumeAbandoned(question, error) {
      logger.error("run resume abandoned (final error, not retried)", {
        ...ids(question),
        ...errorFields(error),
      });
      metrics.addMetric("ResumeAbandoned", MetricUnit.Count, 1);
    },
    webhookRejected(platform, status, reason) {
      logger.warn("webhook rejected", { platform, status, reason });
      const single = metrics.singleMetric();
      single.addDimensions({ platform, reason });
      single.addMetric("WebhookRejected", MetricUnit.Count, 1);
    },
    failed(context, error, fields = {}) {
      logger.error(context, { ...known(fields), ...errorFields(error) });
    },
    internalError(context, error, fields = {}) {
      logger.error(context, { ...known(fields), ...errorFields(error) });
      metrics.addMetric("InternalErrors", MetricUnit.Count, 1);
    },
  };
}
