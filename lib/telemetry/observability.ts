/**
 * Each function's logger, metrics and tracer (Powertools for AWS Lambda), built once per process, and the
 * middy middlewares that tie them to an invocation: the Lambda context on every log line, metrics flushed at
 * the end of each invocation (with a cold-start metric), and an X-Ray subsegment for the handler with every
 * AWS SDK call and every outbound HTTP call under it.
 *
 * The Tracer's own capture of outbound HTTP is off: it writes each request's URL path into the trace, and
 * Telegram's bot token and a durable callback's id are in theirs. Outbound calls are recorded by
 * ./outbound-trace.ts instead, without their paths. A thrown error is recorded by its name, without its
 * message or stack.
 *
 * Settings come from the environment Powertools reads itself: `POWERTOOLS_LOG_LEVEL` (or the function's
 * `AWS_LAMBDA_LOG_LEVEL`), `POWERTOOLS_DEV` (pretty, and no metrics output: the local stack in a terminal),
 * `POWERTOOLS_TRACE_ENABLED`, `POWERTOOLS_METRICS_DISABLED`.
 *
 * With tracing switched off (`POWERTOOLS_TRACE_ENABLED=false`, as on the local stack) the Tracer is not even
 * loaded: the X-Ray SDK under it tracks every promise of the process with an async hook from the moment it is
 * imported, whether or not anything is traced (10–20% of the question API's own CPU per answer, measured).
 */
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import { logMetrics } from "@aws-lambda-powertools/metrics/middleware";
import type { MiddlewareObj } from "@middy/core";
import { tracingSwitchedOff } from "../config.ts";
import type { FunctionName } from "../secrets/secret-catalog.ts";
import { createLogsAndMetrics } from "./logs-and-metrics.ts";
import type { Observability } from "./observability-port.ts";
import { recordOutboundCallsWith, xrayOutboundRecorder } from "./outbound-trace.ts";
import { createPowertoolsTelemetry } from "./powertools-telemetry.ts";
import { createUntracedObservability } from "./untraced-observability.ts";

export type { Observability } from "./observability-port.ts";

/**
 * @example
 * const observability = await createObservability("telegramWebhook");
 * export const handler = middy().use(observability.middlewares).use(httpErrors(...)).handler(...);
 */
export async function createObservability(fn: FunctionName): Promise<Observability> {
  if (tracingSwitchedOff()) return createUntracedObservability(fn);
  const [{ Tracer }, { captureLambdaHandler }] = await Promise.all([
    import("@aws-lambda-powertools/tracer"),
    import("@aws-lambda-powertools/tracer/middleware"),
  ]);
  const { logger, metrics, service } = createLogsAndMetrics(fn);
  /**
   * The Tracer, recording a thrown error by its name only: its message and stack may carry a service's reply,
   * a provider's error text or chat content (the handler's middleware and captureMethod record them).
   */
  class ErrorNamingTracer extends Tracer {
    override addErrorAsMetadata(error: Error, remote?: boolean): void {
      // Anything may be thrown (undefined, a string): its name, or its type, and never a TypeError of ours.
      const name = error instanceof Error ? error.name : typeof error;
      super.addErrorAsMetadata({ name, message: "" }, remote);
    }
  }
  const tracer = new ErrorNamingTracer({ serviceName: service, captureHTTPsRequests: false });
  recordOutboundCallsWith(xrayOutboundRecorder(tracer));
  return {
    logger,
    metrics,
    tracer,
    telemetry: createPowertoolsTelemetry({ logger, metrics }),
    middlewares: [
      // Responses carry answers and chat content: the trace records that the handler ran, not what it said.
      captureLambdaHandler(tracer, { captureResponse: false }),
      injectLambdaContext(logger, { resetKeys: true }),
      logMetrics(metrics, { captureColdStartMetric: true }),
    ] as MiddlewareObj[],
  };
}
