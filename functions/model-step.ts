/** The reference agent's model step: records the last tool outcome, runs the model, returns ask or reply. */
import middy from "@middy/core";
import { modelStepEventSchema } from "#lib/agent/model-step.ts";
import { loadConfig } from "#lib/config.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { createServices } from "#lib/wiring.ts";

const observability = createObservability("modelStep");
const { modelStep } = createServices(loadConfig(), "modelStep", observability);

export const handler = middy()
  .use(observability.middlewares)
  .handler(async (event: unknown) => modelStep(modelStepEventSchema.parse(event)));
