/** The reference durable agent's handler (functions/durable-agent.ts; lib/durable/durable-agent.ts). */
import { withDurableExecution } from "@aws/durable-execution-sdk-js";
import middy from "@middy/core";
import type { Config } from "../config.ts";
import { createDurableAgentService } from "../wiring.ts";
import type { DeliveringHandlerDeps } from "./handler-deps.ts";

export async function createDurableAgentHandler(
  config: Config,
  { observability, channels, aws }: DeliveringHandlerDeps,
) {
  const { agent, ready } = createDurableAgentService(config, observability, channels, aws);
  await ready();
  return middy()
    .use(observability.middlewares)
    .handler(withDurableExecution(agent) as never);
}
