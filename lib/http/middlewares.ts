import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { Telemetry } from "../telemetry/telemetry.ts";
import { HttpError, toHttpResponse } from "./http-errors.ts";
import { safeEqual } from "./safe-equal.ts";

type HttpMiddleware = MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>;

/** Largest body the question API reads; a question is a few KiB. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Largest body a chat webhook reads (Slack interaction payloads carry the whole message, so more than the
 * question API's limit). Checked before any signature work (lib/http/webhook-prelude.ts).
 */
export const MAX_WEBHOOK_BODY_BYTES = 128 * 1024;

/**
 * `Authorization: Bearer <key>`, compared in constant time. Without a configured key every request is
 * refused: the API never runs open.
 */
export function apiKeyAuth(apiKey: () => Promise<string | undefined>): HttpMiddleware {
  return {
    before: async (request) => {
      const header = request.event.headers?.authorization ?? "";
      const presented = header.startsWith("Bearer ") ? header.slice("Bearer ".length) : "";
      const expected = await apiKey();
      if (expected === undefined || !safeEqual(presented, expected))
        throw new HttpError(401, "UNAUTHORIZED", "Missing or wrong API key (Authorization: Bearer <key>).");
    },
  };
}

/** The raw body bytes, decoded from base64 when API Gateway encoded them. */
export function rawBody(event: APIGatewayProxyEventV2): Buffer {
  // `== null`: API Gateway leaves the body out when there is none; some emulators send null.
  if (event.body == null) return Buffer.alloc(0);
  return Buffer.from(event.body, event.isBase64Encoded ? "base64" : "utf8");
}

/** The raw body bytes, refused with 413 PAYLOAD_TOO_LARGE when over MAX_BODY_BYTES, before anything reads them. */
export function boundedBody(event: APIGatewayProxyEventV2): Buffer {
  const raw = rawBody(event);
  if (raw.length > MAX_BODY_BYTES) {
    throw new HttpError(413, "PAYLOAD_TOO_LARGE", `The body is larger than ${MAX_BODY_BYTES} bytes.`);
  }
  return raw;
}

/** Parses a JSON request body; absent body → `{}`. */
export function parseJsonBody(event: APIGatewayProxyEventV2): unknown {
  const raw = boundedBody(event);
  if (raw.length === 0) return {};
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch {
    throw new HttpError(400, "INVALID_JSON", "The body is not valid JSON.");
  }
}

/**
 * Turns every thrown error into a response through the one mapper, and reports it: an unexpected error in
 * full (name and message, never the event) and counted, a webhook's refusal (4xx) as `webhook rejected` with
 * its status and code only — the body of a refused request is never logged. Used right after the
 * observability middlewares, so its response is the one they see.
 */
export function httpErrors(telemetry: Telemetry, options: { platform?: string } = {}): HttpMiddleware {
  return {
    onError: async (request) => {
      const response = toHttpResponse(request.error, (error) =>
        telemetry.internalError(`unexpected error in ${request.event.routeKey ?? "a request"}`, error),
      );
      request.response = response;
      const status = response.statusCode ?? 500;
      if (options.platform !== undefined && status >= 400 && status < 500) {
        telemetry.webhookRejected(options.platform, status, errorCode(response.body));
      }
    },
  };
}

function errorCode(body: string | undefined): string {
  try {
    return (JSON.parse(body ?? "") as { error?: { code?: string } }).error?.code ?? "UNKNOWN";
  } catch {
    return "UNKNOWN";
  }
}
