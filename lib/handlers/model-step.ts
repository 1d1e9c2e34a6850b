/** The reference agent's model step handler (functions/model-step.ts). */
import middy from "@middy/core";
import type { Context } from "aws-lambda";
import { parseModelStepEvent } from "../agent/model-step.ts";
import type { Config } from "../config.ts";
import { createModelStepService } from "../wiring.ts";
import type { HandlerDeps } from "./handler-deps.ts";

export function createModelStepHandler(config: Config, { observability, aws }: HandlerDeps) {
  const modelStep = createModelStepService(config, observability, aws);
  return middy()
    .use(observability.middlewares)
    .handler(async (event: unknown, context: Context) =>
      modelStep(parseModelStepEvent(event), { remainingMs: context.getRemainingTimeInMillis() }),
    );
}
