/**
 * What a function's entry point gets to observe itself with: traced (observability.ts) or not
 * (untraced-observability.ts). A module of its own, so that neither implementation imports the other for it.
 */
import type { Logger } from "@aws-lambda-powertools/logger";
import type { Metrics } from "@aws-lambda-powertools/metrics";
import type { Tracer } from "@aws-lambda-powertools/tracer";
import type { MiddlewareObj } from "@middy/core";
import type { Telemetry } from "./telemetry.ts";

export interface Observability {
  logger: Logger;
  metrics: Metrics;
  tracer: Tracer;
  telemetry: Telemetry;
  /** For `middy().use(...)`, first: the other middlewares' errors and responses happen inside them. */
  middlewares: MiddlewareObj[];
}
