/** The reference agent's model step: records the last tool outcome, runs the model, returns ask or reply. */
import middy from "@middy/core";
import type { Context } from "aws-lambda";
import { parseModelStepEvent } from "#lib/agent/model-step.ts";
import { loadConfig } from "#lib/config.ts";
import { createModelStepService } from "#lib/wiring.ts";

const modelStep = createModelStepService(loadConfig());

export const handler = middy(async (event: unknown, context: Context) =>
  modelStep(parseModelStepEvent(event), { remainingMs: context.getRemainingTimeInMillis() }),
);
