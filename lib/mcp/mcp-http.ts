/**
 * The MCP endpoint (`POST /mcp`): the official SDK's server over Streamable HTTP, stateless (no session
 * id: every request stands alone, as Lambda does) with JSON responses instead of SSE streams. API Gateway's
 * payload-2.0 event becomes a web-standard Request for the SDK's WebStandardStreamableHTTPServerTransport,
 * and its Response becomes the Lambda result: no Node socket is faked. Each request gets its own Server and
 * transport (a stateless transport serves one request).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { apiKeyOf, boundedBody } from "../http/middlewares.ts";
import { askerOf } from "./asker.ts";
import type { McpTools } from "./mcp-tools.ts";

const SERVER_INFO = { name: "handraise", version: "1.0.0" };

/**
 * The low-level Server's JSON Schema validator checks only elicitation replies, which Handraise never asks
 * for: a stand-in keeps ajv out of the bundle. Tool results fit their `outputSchema` by construction
 * (mcp-tools.ts), and MCP clients check them.
 */
const noValidator = {
  getValidator: () => (input: unknown) => ({ valid: true as const, data: input, errorMessage: undefined }),
};

export interface McpHttpDeps {
  tools: McpTools;
  defaults: { owner: string | undefined; deliverTo: string | undefined; context?: string | undefined };
}

export function createMcpHttp(deps: McpHttpDeps) {
  return async function mcp(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
    // No SSE stream to open and no session to end: stateless, JSON only. 405 is what the spec says a client
    // expects then (it stops trying).
    if (event.requestContext.http.method !== "POST") {
      return { statusCode: 405, headers: { allow: "POST" }, body: "" };
    }
    // Over the limit → 413 before the SDK parses a byte of it (a tool call's arguments are a few KiB).
    const body = boundedBody(event);
    const headers = event.headers ?? {};
    const asker = askerOf(headers, deps.defaults);
    const key = apiKeyOf(event);
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: {} },
      jsonSchemaValidator: noValidator as never,
    });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: deps.tools.list() }));
    server.setRequestHandler(CallToolRequestSchema, async (request) =>
      deps.tools.call(request.params.name, request.params.arguments ?? {}, asker, key),
    );
    // Stateless: no sessionIdGenerator (the SDK's `sessionIdGenerator: undefined`, which this project's
    // exactOptionalPropertyTypes spells by leaving it out).
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    await server.connect(transport);
    try {
      const request = new Request(`https://${event.requestContext.domainName}${event.rawPath}`, {
        method: "POST",
        headers: Object.entries(headers).flatMap(([name, value]) =>
          value === undefined ? [] : [[name, value] as [string, string]],
        ),
        body: new Uint8Array(body),
      });
      const response = await transport.handleRequest(request);
      return {
        statusCode: response.status,
        headers: Object.fromEntries(response.headers.entries()),
        body: await response.text(),
      };
    } finally {
      await server.close();
    }
  };
}
