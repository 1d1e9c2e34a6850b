/**
 * EventBridge "Step Functions Execution Status Change" (ABORTED, TIMED_OUT, FAILED) → cancel the stopped
 * run's pending question with resolvedBy "run-abort"; the table's stream then retires its chat copies.
 */
import middy from "@middy/core";
import type { EventBridgeEvent } from "aws-lambda";
import { loadConfig } from "#lib/config.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { createServices } from "#lib/wiring.ts";
import * as z from "#lib/zod.ts";

const observability = await createObservability("executionStatus");
const { cancelStoppedRun } = createServices(loadConfig(), "executionStatus", observability);

const detailSchema = z.object({
  executionArn: z.string().check(z.minLength(1)),
  status: z.string(),
  input: z.nullish(z.string()),
});

export const handler = middy<EventBridgeEvent<string, unknown>>()
  .use(observability.middlewares)
  .handler(async (event: EventBridgeEvent<string, unknown>) => {
    const cancelled = await cancelStoppedRun(detailSchema.parse(event.detail));
    return { cancelled };
  });
