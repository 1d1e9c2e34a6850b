/**
 * The JSON-RPC 2.0 envelope `POST /mcp` takes and answers with, for the API's OpenAPI document
 * (lib/http/openapi.ts). The MCP SDK checks each message against its own schemas (lib/mcp/mcp-http.ts); the
 * methods and the tools' arguments are MCP's, listed by the server itself (`tools/list`).
 */
import * as z from "../zod.ts";

/** The most messages one batch may hold (the MCP SDK's limit). */
export const MAX_JSON_RPC_BATCH = 100;

const jsonRpcId = z.union([z.string(), z.int()]);
const version = z.literal("2.0");

/** A request (with `id`: answered) or a notification (without: 202, no body). */
export const jsonRpcMessageSchema = z.object({
  jsonrpc: version,
  id: z.exactOptional(jsonRpcId),
  method: z
    .string()
    .check(z.describe("initialize, tools/list, tools/call, ping, or a notification (notifications/…).")),
  params: z.exactOptional(z.record(z.string(), z.unknown())),
});

export const jsonRpcBodySchema = z.union([
  jsonRpcMessageSchema,
  z.array(jsonRpcMessageSchema).check(z.minLength(1), z.maxLength(MAX_JSON_RPC_BATCH)),
]);

const errorObject = z.object({
  code: z.int().check(z.describe("-32700 parse error, -32600 invalid request, -32601 unknown method, …")),
  message: z.string(),
  data: z.exactOptional(z.unknown()),
});

/** A response: a result, or an error (with `id` null when the request could not be read). */
export const jsonRpcResponseSchema = z.union([
  z.object({
    jsonrpc: version,
    id: jsonRpcId,
    result: z
      .record(z.string(), z.unknown())
      .check(z.describe("tools/call: {content, structuredContent?, isError?}.")),
  }),
  z.object({ jsonrpc: version, id: z.nullable(jsonRpcId), error: errorObject }),
]);

export const jsonRpcResponseBodySchema = z.union([
  jsonRpcResponseSchema,
  z.array(jsonRpcResponseSchema).check(z.minLength(1)),
]);

/** What the MCP transport answers itself, before any method runs (400, 406, 415): `id` is null. */
export const jsonRpcTransportErrorSchema = z.object({
  jsonrpc: version,
  id: z.null(),
  error: errorObject,
});
