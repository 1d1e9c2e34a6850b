/**
 * Each function's logger, metrics and tracer (Powertools for AWS Lambda), built once per process, and the
 * middy middlewares that tie them to an invocation: the Lambda context on every log line, metrics flushed at
 * the end of each invocation (with a cold-start metric), and an X-Ray subsegment for the handler with every
 * AWS SDK call under it.
 *
 * Settings come from the environment Powertools reads itself: `POWERTOOLS_LOG_LEVEL` (or the function's
 * `AWS_LAMBDA_LOG_LEVEL`), `POWERTOOLS_DEV` (pretty, and no metrics output: the local stack in a terminal),
 * `POWERTOOLS_TRACE_ENABLED`, `POWERTOOLS_METRICS_DISABLED`.
 */
import { Logger } from "@aws-lambda-powertools/logger";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import { Metrics } from "@aws-lambda-powertools/metrics";
import { logMetrics } from "@aws-lambda-powertools/metrics/middleware";
import { Tracer } from "@aws-lambda-powertools/tracer";
import { captureLambdaHandler } from "@aws-lambda-powertools/tracer/middleware";
import type { MiddlewareObj } from "@middy/core";
import type { FunctionName } from "../secrets/secret-catalog.ts";
import { createPowertoolsTelemetry, METRICS_NAMESPACE } from "./powertools-telemetry.ts";
import type { Telemetry } from "./telemetry.ts";

/** Every function logs and measures as one service; the function's name is on each line. */
const SERVICE = "handraise";

export interface Observability {
  logger: Logger;
  metrics: Metrics;
  tracer: Tracer;
  telemetry: Telemetry;
  /** For `middy().use(...)`, first: the other middlewares' errors and responses happen inside them. */
  middlewares: MiddlewareObj[];
}

/**
 * @example
 * const observability = createObservability("telegramWebhook");
 * export const handler = middy().use(observability.middlewares).use(httpErrors(...)).handler(...);
 */
export function createObservability(fn: FunctionName): Observability {
  const logger = new Logger({ serviceName: SERVICE, persistentKeys: { function: fn } });
  const metrics = new Metrics({
    namespace: METRICS_NAMESPACE,
    serviceName: SERVICE,
    // Metrics' own notices go through the logger, as structured lines; an invocation that counted nothing
    // (most webhook requests) is normal, not a warning.
    logger: {
      debug: (...args: unknown[]) => logger.debug(String(args[0])),
      info: (...args: unknown[]) => logger.info(String(args[0])),
      warn: (...args: unknown[]) =>
        String(args[0]).startsWith("No application metrics")
          ? logger.debug(String(args[0]))
          : logger.warn(String(args[0])),
      error: (...args: unknown[]) => logger.error(String(args[0])),
    },
  });
  const tracer = new Tracer({ serviceName: SERVICE });
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
