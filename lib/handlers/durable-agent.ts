/**
 * The reference durable agent's handler (functions/durable-agent.ts; lib/durable/durable-agent.ts): asks and
 * delivers as the ask task does, and calls the model its input names, as the modelStep function does.
 *
 * Composed here rather than in lib/wiring.ts: the durable execution SDK loads the whole Lambda client (every
 * command, paginator and waiter) with `import()`, which a bundler cannot trim, so only this bundle may
 * import it.
 */
import { withDurableExecution } from "@aws/durable-execution-sdk-js";
import middy from "@middy/core";
import type { Config } from "../config.ts";
import { createDurableAskUser } from "../durable/ask-user.ts";
import { createDurableAgent } from "../durable/durable-agent.ts";
import { createExecutionStarts } from "../durable/execution-starts.ts";
import { createAsker, createProviderFor, createServices } from "../wiring.ts";
import type { DeliveringHandlerDeps } from "./handler-deps.ts";

export async function createDurableAgentHandler(
  config: Config,
  { observability, channels, aws }: DeliveringHandlerDeps,
) {
  const services = createServices(config, "durableAgent", observability, channels, aws);
  const starts = createExecutionStarts();
  const timeoutSeconds = config.durableExecutionTimeoutSeconds;
  const agent = createDurableAgent({
    askUser: createDurableAskUser({
      askQuestion: createAsker(services),
      limits: config.limits,
      execution:
        timeoutSeconds === undefined
          ? undefined
          : {
              timeoutSeconds,
              startedAtMs: starts.startedAtMs,
              now: services.now,
              warn: (message, fields) => observability.logger.warn(message, fields),
            },
    }),
    limits: config.limits,
    providerFor: createProviderFor(services.secrets, observability),
    now: services.now,
  });
  await services.ready();
  return middy()
    .use(observability.middlewares)
    .handler(withDurableExecution(agent, { plugins: [starts.plugin] }) as never);
}
