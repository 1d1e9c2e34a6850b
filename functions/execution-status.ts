/**
 * EventBridge "Step Functions Execution Status Change" (ABORTED, TIMED_OUT, FAILED) → cancel the stopped
 * run's pending question with resolvedBy "run-abort"; the table's stream then retires its chat copies.
 */
import { loadConfig } from "#lib/config.ts";
import { createExecutionStatusHandler } from "#lib/handlers/execution-status.ts";
import { createObservability } from "#lib/telemetry/observability.ts";

const observability = await createObservability("executionStatus");
export const handler = createExecutionStatusHandler(loadConfig(), { observability });
