/** The reference agent's model step: records the last tool outcome, runs the model, returns ask or reply. */
import middy from "@middy/core";
import { modelStepEventSchema } from "#lib/agent/model-step.ts";
import { loadConfig } from "#lib/config.ts";
import { createServices } from "#lib/wiring.ts";

const { modelStep } = createServices(loadConfig(), "modelStep");

export const handler = middy(async (event: unknown) => modelStep(modelStepEventSchema.parse(event)));
