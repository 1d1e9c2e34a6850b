/**
 * The reference agent as a Lambda durable function (lib/durable/durable-agent.ts): what the agent state
 * machine does with states, written as code that suspends on a durable callback while a question waits.
 * Start it with the same input as the state machine (Invoke on its alias, InvocationType Event).
 */
import { withDurableExecution } from "@aws/durable-execution-sdk-js";
import middy from "@middy/core";
import { CHANNELS } from "#lib/channels/channel-list.ts";
import { loadConfig } from "#lib/config.ts";
import { createUntracedObservability } from "#lib/telemetry/untraced-observability.ts";
import { createDurableAgentService } from "#lib/wiring.ts";

const observability = createUntracedObservability("durableAgent");
const { agent, ready } = createDurableAgentService(loadConfig(), observability, CHANNELS);
await ready();

export const handler = middy()
  .use(observability.middlewares)
  .handler(withDurableExecution(agent) as never);
