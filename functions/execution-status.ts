/**
 * EventBridge "Step Functions Execution Status Change" (ABORTED, TIMED_OUT, FAILED) → cancel the stopped
 * run's pending question with resolvedBy "run-abort" and retire its chat controls.
 */
import middy from "@middy/core";
import type { EventBridgeEvent } from "aws-lambda";
import { z } from "zod";
import { loadConfig } from "#lib/config.ts";
import { createServices } from "#lib/wiring.ts";

const { cancelStoppedRun } = createServices(loadConfig());

const detailSchema = z.object({
  executionArn: z.string().min(1),
  status: z.string(),
  input: z.string().nullish(),
});

export const handler = middy(async (event: EventBridgeEvent<string, unknown>) => {
  const cancelled = await cancelStoppedRun(detailSchema.parse(event.detail));
  return { cancelled };
});
