/**
 * The MCP server (`POST /mcp`, Streamable HTTP, stateless, JSON responses): ask_user, get_answer and
 * cancel_question for any MCP client, behind the question API's key (lib/mcp).
 */
import { CHANNELS } from "#lib/channels/channel-list.ts";
import { loadConfig } from "#lib/config.ts";
import { createMcpHandler } from "#lib/handlers/mcp.ts";
import { createUntracedObservability } from "#lib/telemetry/untraced-observability.ts";

const observability = createUntracedObservability("mcp");
export const handler = await createMcpHandler(loadConfig(), { observability, channels: CHANNELS });
