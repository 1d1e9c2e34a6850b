/** The reference agent's model step: records the last tool outcome, runs the model, returns ask or reply. */
import { loadConfig } from "#lib/config.ts";
import { createModelStepHandler } from "#lib/handlers/model-step.ts";
import { createObservability } from "#lib/telemetry/observability.ts";

const observability = await createObservability("modelStep");
export const handler = createModelStepHandler(loadConfig(), { observability });
