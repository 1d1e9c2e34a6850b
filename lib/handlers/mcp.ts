/** The MCP server's handler (functions/mcp.ts; lib/mcp). */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { Config } from "../config.ts";
import { apiKeyAuth, httpErrors } from "../http/middlewares.ts";
import { createMcpHttp } from "../mcp/mcp-http.ts";
import { createMcpTools } from "../mcp/mcp-tools.ts";
import { createAsker, createServices } from "../wiring.ts";
import type { DeliveringHandlerDeps } from "./handler-deps.ts";

export async function createMcpHandler(
  config: Config,
  { observability, channels, aws, ports }: DeliveringHandlerDeps,
) {
  const services = createServices(config, "mcp", observability, channels, aws, ports);
  await services.ready();
  const askQuestion = createAsker(services);
  const { keyring, resolve, waitForQuestion } = services;
  const tools = createMcpTools({
    askQuestion,
    resolve,
    waitForQuestion,
    waitSeconds: config.mcp.waitSeconds,
    telemetry: observability.telemetry,
  });
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use(observability.middlewares)
    .use(httpErrors(observability.telemetry))
    .use(apiKeyAuth(keyring))
    .handler(createMcpHttp({ tools, defaults: config.mcp }));
}
