/**
 * The prelude every chat webhook runs before it reads a request, as one middy middleware: the body limit
 * (checked before any signature work), the platform's verification of what it signed, and the deadline for
 * the platform calls made while answering (the acknowledgement some platforms want within 3 s). The
 * platform handler then reads the verified body with `verifiedWebhook(event)` — which fails closed when the
 * prelude did not run — and never sees an unverified byte.
 *
 * @example
 * middy(handler).use(webhookPrelude({
 *   verify: ({ headers, body, nowMs }) => verifySlackSignature(secret, { ...headers, body }, nowMs),
 *   refusal: "Missing, stale or wrong Slack signature.",
 *   ackWithinMs: 2_000,
 *   now: Date.now,
 * }));
 * // in the handler:
 * const { body, within } = verifiedWebhook(event);
 * return within(() => dispatch(body));
 */
import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { withPlatformDeadline } from "../channels/platform-http.ts";
import { HttpError } from "./http-errors.ts";
import { MAX_WEBHOOK_BODY_BYTES, rawBody } from "./middlewares.ts";

/** What a platform's verification sees: the headers (lower-case names) and the raw body bytes. */
export interface WebhookRequest {
  headers: Readonly<Record<string, string | undefined>>;
  body: Buffer;
  /** Epoch ms when the request arrived (replay windows are measured from it). */
  nowMs: number;
}

export interface WebhookPreludeOptions {
  /** Largest body read, in bytes (default MAX_WEBHOOK_BODY_BYTES); larger → 413 before verification. */
  maxBytes?: number;
  /** True when the request carries the platform's valid signature, token or secret; anything else → 401. */
  verify: (request: WebhookRequest) => boolean | Promise<boolean>;
  /** The 401's message: which proof was missing or wrong (never what was presented). */
  refusal: string;
  /**
   * Milliseconds from arrival by which every platform API call of this request must be done (the
   * acknowledgement deadline less what the response itself needs); without it, each call's own limit.
   */
  ackWithinMs?: number;
  now: () => number;
}

export interface VerifiedWebhook {
  /** The raw body, verified. */
  body: Buffer;
  /** Epoch ms when the request arrived. */
  receivedAtMs: number;
  /** Runs `work` with every platform call inside it bounded by the acknowledgement deadline, if any. */
  within<T>(work: () => Promise<T>): Promise<T>;
}

type HttpMiddleware = MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>;

const verified = new WeakMap<APIGatewayProxyEventV2, VerifiedWebhook>();

export function webhookPrelude(options: WebhookPreludeOptions): HttpMiddleware {
  const maxBytes = options.maxBytes ?? MAX_WEBHOOK_BODY_BYTES;
  const tooLarge = () =>
    new HttpError(413, "PAYLOAD_TOO_LARGE", `The body is larger than ${maxBytes} bytes.`);
  return {
    before: async (request) => {
      const { event } = request;
      const receivedAtMs = options.now();
      // Decoded size is at most the encoded length: refuse an oversized body before decoding it.
      if ((event.body?.length ?? 0) > maxBytes * 4) throw tooLarge();
      const body = rawBody(event);
      if (body.length > maxBytes) throw tooLarge();
      const headers = event.headers ?? {};
      if (!(await options.verify({ headers, body, nowMs: receivedAtMs }))) {
        throw new HttpError(401, "UNAUTHORIZED", options.refusal);
      }
      const deadlineMs = options.ackWithinMs === undefined ? undefined : receivedAtMs + options.ackWithinMs;
      verified.set(event, {
        body,
        receivedAtMs,
        within: (work) =>
          deadlineMs === undefined
            ? work()
            : withPlatformDeadline(deadlineMs, work, "before the acknowledgement"),
      });
    },
  };
}

/** The request as the prelude verified it; throws (a 500, never a pass) when the prelude did not run. */
export function verifiedWebhook(event: APIGatewayProxyEventV2): VerifiedWebhook {
  const request = verified.get(event);
  if (!request) throw new Error("webhook handler ran without webhookPrelude: refusing an unverified request");
  return request;
}

/** A verified body as JSON of `schema`'s shape, or undefined when it is not (not JSON, or not that shape). */
export function parseJsonBody<T>(
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } },
  body: Buffer,
): T | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}
