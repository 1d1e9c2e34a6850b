/**
 * Observability without X-Ray, for the functions whose own SDK left no room for the X-Ray SDK (≈ 110 KB with
 * cls-hooked and semver) within the 320 KB bundle budget of the time, when the AWS SDK was not bundled (it
 * still adds that much code to load at every cold start): the MCP server (the MCP SDK and the full zod it
 * needs) and the durable agent (the durable execution SDK). Same logger, lifecycle lines and metrics as
 * every function (lib/telemetry/observability.ts); their AWS SDK calls are simply not traced, and Lambda's
 * own trace segment still records each invocation. It is also every function's observability when tracing
 * is switched off (lib/telemetry/observability.ts).
 */

import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import { logMetrics } from "@aws-lambda-powertools/metrics/middleware";
import type { Tracer } from "@aws-lambda-powertools/tracer";
import type { MiddlewareObj } from "@middy/core";
import type { FunctionName } from "../secrets/secret-catalog.ts";
import { createLogsAndMetrics } from "./logs-and-metrics.ts";
import type { Observability } from "./observability-port.ts";
import { createPowertoolsTelemetry } from "./powertools-telemetry.ts";

/** Hands every client back as it is: nothing traces it. */
const NO_TRACER = { captureAWSv3Client: <T>(client: T): T => client } as unknown as Tracer;

/**
 * @example
 * const observability = createUntracedObservability("mcp");
 * export const handler = middy().use(observability.middlewares).handler(...);
 */
export function createUntracedObservability(fn: FunctionName): Observability {
  const { logger, metrics } = createLogsAndMetrics(fn);
  return {
    logger,
    metrics,
    tracer: NO_TRACER,
    telemetry: createPowertoolsTelemetry({ logger, metrics }),
    middlewares: [
      injectLambdaContext(logger, { resetKeys: true }),
      logMetrics(metrics, { captureColdStartMetric: true }),
    ] as MiddlewareObj[],
  };
}
