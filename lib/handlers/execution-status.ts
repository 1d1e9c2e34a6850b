/** The run-status handler (functions/execution-status.ts): a stopped run's waiting question is cancelled. */
import middy from "@middy/core";
import type { EventBridgeEvent } from "aws-lambda";
import { createCancelStoppedRun } from "../app/cancel-stopped-run.ts";
import type { Config } from "../config.ts";
import { createServices } from "../wiring.ts";
import * as z from "../zod.ts";
import type { HandlerDeps } from "./handler-deps.ts";

const detailSchema = z.object({
  executionArn: z.string().check(z.minLength(1)),
  status: z.string(),
  input: z.nullish(z.string()),
});

export function createExecutionStatusHandler(config: Config, { observability, aws, ports }: HandlerDeps) {
  const { store, resolve, now } = createServices(config, "executionStatus", observability, [], aws, ports);
  const cancelStoppedRun = createCancelStoppedRun({ store, resolve, now });
  return middy<EventBridgeEvent<string, unknown>>()
    .use(observability.middlewares)
    .handler(async (event: EventBridgeEvent<string, unknown>) => {
      const cancelled = await cancelStoppedRun(detailSchema.parse(event.detail));
      return { cancelled };
    });
}
