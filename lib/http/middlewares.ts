import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { ApiKey, ApiKeyring } from "../auth/api-keys.ts";
import type { Telemetry } from "../telemetry/telemetry.ts";
import { HttpError, toHttpResponse } from "./http-errors.ts";

type HttpMiddleware = MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>;

/** Largest body the question API reads; a question is a few KiB. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Largest body a chat webhook reads (Slack interaction payloads carry the whole message, so more than the
 * question API's limit). Checked before any signature work (lib/http/webhook-prelude.ts).
 */
export const MAX_WEBHOOK_BODY_BYTES = 128 * 1024;

/** The key each authenticated request presented (set by apiKeyAuth, read with apiKeyOf). */
const presentedKeys = new WeakMap<APIGatewayProxyEventV2, ApiKey>();

/** What a 401 says about how to authenticate (RFC 6750). */
const AUTHENTICATE = { "www-authenticate": 'Bearer realm="handraise"' };

/**
 * `Authorization: Bearer <key>` (the scheme in any case, as HTTP has it), matched against every key of the
 * keyring in constant time. The key that matched — its name and scope, never the key — is handed to the
 * route through apiKeyOf. Without a configured key every request is refused: the API never runs open.
 */
export function apiKeyAuth(keyring: ApiKeyring): HttpMiddleware {
  return {
    before: async (request) => {
      const presented = /^bearer +(\S+) *$/i.exec(request.event.headers?.authorization ?? "")?.[1];
      const key = presented === undefined ? undefined : await keyring.identify(presented);
      if (key === undefined) {
        throw new HttpError(
          401,
          "UNAUTHORIZED",
          "Missing or wrong API key (Authorization: Bearer <key>).",
          AUTHENTICATE,
        );
      }
      presentedKeys.set(request.event, key);
    },
  };
}

/**
 * The key the request was authenticated with. Throws when apiKeyAuth did not run before the route: a route
 * behind no key check is a bug, and must not run as if some key had been shown.
 */
export function apiKeyOf(event: APIGatewayProxyEventV2): ApiKey {
  const key = presentedKeys.get(event);
  if (key === undefined) throw new Error("this route runs only behind apiKeyAuth");
  return key;
}

/**
 * A request the presented key's scope does not allow (403): `code` says which rule, and the response tells
 * the client, as RFC 6750 has it, that another key is needed.
 */
export function insufficientScope(code: string, message: string): HttpError {
  return new HttpError(403, code, message, { "www-authenticate": 'Bearer error="insufficient_scope"' });
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
