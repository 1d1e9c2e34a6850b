import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics } from "@aws-lambda-powertools/metrics";
import type { FunctionName } from "../secrets/secret-catalog.ts";
import { METRICS_NAMESPACE } from "./powertools-telemetry.ts";

/** Every function logs and measures as one service; the function's name is on each line. */
const SERVICE = "handraise";

/** A function's Powertools logger and metrics (lib/telemetry/observability.ts adds the tracer). */
export function createLogsAndMetrics(fn: FunctionName): {
  logger: Logger;
  metrics: Metrics;
  service: string;
} {
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
  return { logger, metrics, service: SERVICE };
}
