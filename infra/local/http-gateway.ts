/**
 * A thin stand-in for API Gateway HTTP API (payload format 2.0): matches the routes of serverless.yml,
 * builds the same event API Gateway sends (lower-cased headers, `routeKey`, `pathParameters`, the raw
 * body, base64 for non-text bodies) and calls the real handler. It adds about a millisecond per request
 * and starts instantly, where serverless-offline needs the framework booted.
 */

import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { asInvocation } from "./invocation-context.ts";
import { lambdaContext } from "./lambda-context.ts";
import { createServer } from "./local-server.ts";

export type HttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;

export interface GatewayRoute {
  method: string;
  path: string;
  functionName: string;
  handler: HttpHandler;
}

export interface LocalHttpGateway {
  url: string;
  /**
   * Replaces the routes. The local stack listens before it loads the handlers, so that they read the
   * gateway's URL (HANDRAISE_PUBLIC_URL) from their configuration as they do deployed; then it routes to them.
   */
  setRoutes(routes: GatewayRoute[]): void;
  stop(): Promise<void>;
}

/** API Gateway's payload limit. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;
const TEXT_TYPES = /^(text\/|application\/(json|x-www-form-urlencoded|xml|[\w.+-]+\+json))/i;

interface CompiledRoute extends GatewayRoute {
  pattern: RegExp;
  names: string[];
}

/** A route's path (`/questions/{id}`, `/answer/{proxy+}`) as a pattern, with its parameters' names. */
export function compileRoutePath(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path
    .split("/")
    .map((segment) => {
      const param = /^\{([^}+]+)(\+?)\}$/.exec(segment);
      if (!param?.[1]) return segment.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
      names.push(param[1]);
      return param[2] ? "(.+)" : "([^/]+)";
    })
    .join("/");
  return { pattern: new RegExp(`^${source}$`), names };
}

const compile = (route: GatewayRoute): CompiledRoute => ({ ...route, ...compileRoutePath(route.path) });

/** One served request, as the local stack logs it: no body, no headers, no query (they carry secrets). */
export interface RequestLogEntry {
  method: string;
  /** The route matched (`POST /questions/{id}/answer`), or the path when none did. */
  route: string;
  status: number;
  ms: number;
}

export async function startHttpGateway(options: {
  routes: GatewayRoute[];
  host?: string;
  port?: number;
  onRequest?: (entry: RequestLogEntry) => void;
}): Promise<LocalHttpGateway> {
  let routes = options.routes.map(compile);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    let served = req.url?.split("?")[0] ?? "/";
    res.once("finish", () => {
      const ms = Math.round((performance.now() - started) * 10) / 10;
      options.onRequest?.({ method: req.method ?? "GET", route: served, status: res.statusCode, ms });
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES)
        return send(res, { statusCode: 413, body: '{"message":"Request Entity Too Large"}' });
      chunks.push(chunk as Buffer);
    }
    const url = new URL(req.url ?? "/", "http://localhost");
    const method = (req.method ?? "GET").toUpperCase();
    const path = decodedPath(url.pathname);
    for (const route of routes) {
      if (route.method !== method || path === undefined) continue;
      const match = route.pattern.exec(path);
      if (!match) continue;
      served = `${route.method} ${route.path}`;
      const pathParameters = Object.fromEntries(route.names.map((name, i) => [name, match[i + 1] ?? ""]));
      const event = toEvent(
        req,
        url,
        method,
        `${route.method} ${route.path}`,
        pathParameters,
        Buffer.concat(chunks),
      );
      const result = await asInvocation(route.functionName, async () =>
        route.handler(event, lambdaContext(route.functionName)),
      );
      return send(res, toResult(result));
    }
    // In the question API's error shape, so a client sees one shape locally. Deployed, API Gateway answers
    // a route it does not know itself, before any function runs: 404 {"message":"Not Found"}.
    send(res, {
      statusCode: 404,
      body: JSON.stringify({ error: { code: "NOT_FOUND", message: `No route ${method} ${url.pathname}.` } }),
    });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // What API Gateway answers when the function itself fails.
      console.error("local gateway: handler failed:", error instanceof Error ? error.message : error);
      if (!res.headersSent) send(res, { statusCode: 500, body: '{"message":"Internal Server Error"}' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 3000, options.host ?? "127.0.0.1", () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    setRoutes: (next) => {
      routes = next.map(compile);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function toEvent(
  req: IncomingMessage,
  url: URL,
  method: string,
  routeKey: string,
  pathParameters: Record<string, string>,
  body: Buffer,
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(",") : value;
  }
  return apiGatewayEvent({
    method,
    routeKey,
    url,
    pathParameters,
    headers,
    body,
    protocol: `HTTP/${req.httpVersion}`,
    sourceIp: req.socket.remoteAddress ?? "127.0.0.1",
    at: new Date(),
  });
}

/**
 * The payload 2.0 event API Gateway sends for a request: lower-cased `headers` (cookies moved to their own
 * array), the query's repeated names joined by commas, text bodies as they are and others in base64. The local
 * gateway builds it from a socket's request; a test that calls handlers in process, from its own.
 */
export function apiGatewayEvent(request: {
  method: string;
  routeKey: string;
  url: URL;
  pathParameters: Record<string, string>;
  /** Lower-cased names. */
  headers: Record<string, string>;
  body: Buffer;
  protocol?: string;
  sourceIp?: string;
  at: Date;
}): APIGatewayProxyEventV2 {
  const { method, routeKey, url, pathParameters, body, at } = request;
  const headers = { ...request.headers };
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams)
    query[name] = name in query ? `${query[name]},${value}` : value;
  const isText = TEXT_TYPES.test(headers["content-type"] ?? "");
  // Payload 2.0 moves cookies out of the headers into their own array.
  const cookies = headers.cookie?.split(";").map((cookie) => cookie.trim());
  delete headers.cookie;
  return {
    version: "2.0",
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(cookies && { cookies }),
    headers,
    ...(Object.keys(query).length > 0 && { queryStringParameters: query }),
    ...(Object.keys(pathParameters).length > 0 && { pathParameters }),
    requestContext: {
      accountId: "000000000000",
      apiId: "local",
      domainName: headers.host ?? "localhost",
      domainPrefix: "local",
      http: {
        method,
        path: url.pathname,
        protocol: request.protocol ?? "HTTP/1.1",
        sourceIp: request.sourceIp ?? "127.0.0.1",
        userAgent: headers["user-agent"] ?? "",
      },
      requestId: randomUUID(),
      routeKey,
      stage: "$default",
      time: apiGatewayTime(at),
      timeEpoch: at.getTime(),
    },
    ...(body.length > 0 && { body: isText ? body.toString("utf8") : body.toString("base64") }),
    isBase64Encoded: body.length > 0 && !isText,
  };
}

/** The path routes match against; undefined for a malformed escape ("%E0%A4%A"), which matches no route. */
function decodedPath(pathname: string): string | undefined {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** `requestContext.time` as API Gateway writes it: `30/Nov/2026:04:27:46 +0000`. */
function apiGatewayTime(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${pad(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`;
}

/** API Gateway's rules for a v2 result: a structured result as is; anything else is a 200 JSON body. */
export function toResult(result: unknown): APIGatewayProxyStructuredResultV2 {
  if (typeof result === "object" && result !== null && "statusCode" in result) {
    return result as APIGatewayProxyStructuredResultV2;
  }
  return {
    statusCode: 200,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(result ?? null),
  };
}

function send(res: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const headers: Record<string, string | number | boolean> = { ...(result.headers ?? {}) };
  if (!Object.keys(headers).some((name) => name.toLowerCase() === "content-type")) {
    headers["content-type"] = "application/json";
  }
  res.writeHead(result.statusCode ?? 200, headers as Record<string, string>);
  const body = result.body ?? "";
  res.end(result.isBase64Encoded ? Buffer.from(body, "base64") : body);
}
