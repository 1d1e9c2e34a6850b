/**
 * The reference agent as a Lambda durable function (lib/durable/durable-agent.ts): what the agent state
 * machine does with states, written as code that suspends on a durable callback while a question waits.
 * Start it with the same input as the state machine (Invoke on its alias, InvocationType Event).
 */
import { CHANNELS } from "#lib/channels/channel-list.ts";
import { loadConfig } from "#lib/config.ts";
import { createDurableAgentHandler } from "#lib/handlers/durable-agent.ts";
import { createUntracedObservability } from "#lib/telemetry/untraced-observability.ts";

const observability = createUntracedObservability("durableAgent");
export const handler = await createDurableAgentHandler(loadConfig(), { observability, channels: CHANNELS });
