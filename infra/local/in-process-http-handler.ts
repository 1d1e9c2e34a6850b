/**
 * An AWS SDK request handler that hands each request to a local service in this process instead of sending
 * it over a socket: the request is signed, serialized and its response parsed exactly as over HTTP (the
 * service answers the same wire bytes and headers), only the TCP connection and HTTP framing on both sides
 * are gone. The local stack gives it to the handlers' DynamoDB client when asked (LocalStackOptions).
 */
import { Readable } from "node:stream";
import type { DynamoDbWireRequest, DynamoDbWireResponse } from "./dynamodb.ts";

/** The members of the SDK's HttpRequest this handler reads. */
interface SdkHttpRequest {
  method: string;
  path: string;
  query?: Record<string, string | string[] | null>;
  headers: Record<string, string>;
  body?: unknown;
}

/** Serves `serve`'s wire requests to an SDK client, in place of its HTTP handler. */
export function inProcessRequestHandler(
  serve: (request: DynamoDbWireRequest) => Promise<DynamoDbWireResponse>,
) {
  return {
    metadata: { handlerProtocol: "http/1.1" },
    async handle(request: SdkHttpRequest) {
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(request.query ?? {})) {
        for (const one of Array.isArray(value) ? value : [value]) query.append(name, one ?? "");
      }
      const search = query.toString();
      const served = await serve({
        method: request.method,
        url: `${request.path}${search ? `?${search}` : ""}`,
        headers: Object.fromEntries(
          Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]),
        ),
        body: bodyBytes(request.body),
      });
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(served.headers)) {
        if (value !== undefined)
          headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value);
      }
      return { response: { statusCode: served.status, headers, body: Readable.from([served.body]) } };
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs: () => ({}),
    destroy() {},
  };
}

function bodyBytes(body: unknown): Buffer {
  if (body === undefined || body === null) return Buffer.alloc(0);
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new Error("a streamed request body cannot be served in process");
}
