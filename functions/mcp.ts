/**
 * The MCP server (`POST /mcp`, Streamable HTTP, stateless, JSON responses): ask_user, get_answer and
 * cancel_question for any MCP client, behind the question API's key (lib/mcp).
 */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { CHANNELS } from "#lib/channels/channel-list.ts";
import { loadConfig } from "#lib/config.ts";
import { apiKeyAuth, httpErrors } from "#lib/http/middlewares.ts";
import { createMcpHttp } from "#lib/mcp/mcp-http.ts";
import { createMcpTools } from "#lib/mcp/mcp-tools.ts";
import { createUntracedObservability } from "#lib/telemetry/untraced-observability.ts";
import { createServices } from "#lib/wiring.ts";

const observability = createUntracedObservability("mcp");
const config = loadConfig();
const services = createServices(config, "mcp", observability, CHANNELS);
await services.ready();
const { keyring, askQuestion, resolve, waitForQuestion } = services;

const tools = createMcpTools({
  askQuestion,
  resolve,
  waitForQuestion,
  waitSeconds: config.mcp.waitSeconds,
  telemetry: observability.telemetry,
});

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(observability.middlewares)
  .use(httpErrors(observability.telemetry))
  .use(apiKeyAuth(keyring))
  .handler(createMcpHttp({ tools, defaults: config.mcp }));
