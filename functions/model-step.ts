/** The reference agent's model step: records the last tool outcome, runs the model, returns ask or reply. */
import middy from "@middy/core";
import type { Context } from "aws-lambda";
import { parseModelStepEvent } from "#lib/agent/model-step.ts";
import { loadConfig } from "#lib/config.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { createModelStepService } from "#lib/wiring.ts";

const observability = await createObservability("modelStep");
const modelStep = createModelStepService(loadConfig(), observability);

export const handler = middy()
  .use(observability.middlewares)
  .handler(async (event: unknown, context: Context) =>
    modelStep(parseModelStepEvent(event), { remainingMs: context.getRemainingTimeInMillis() }),
  );
