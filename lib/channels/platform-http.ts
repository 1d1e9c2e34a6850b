/**
 * The one way Handraise calls a chat platform's API. Each platform's client (`*-api.ts`) says only where a
 * call goes, how it is authorised, how to read the platform's error and rate-limit answers, and which calls
 * may be sent twice; this module bounds every call in time and retries what is worth retrying:
 *
 * - a call ends by a deadline, retries included: the one of the scope it runs in (`withPlatformDeadline`: a
 *   webhook's acknowledgement, a function's own time), else PLATFORM_CALL_TIMEOUT_MS from its start; one
 *   attempt never takes longer than PLATFORM_CALL_TIMEOUT_MS;
 * - a 429 is retried after the wait the platform asks for when that wait fits before the deadline, and fails
 *   at once ("rate limited, retry after N s") when it does not;
 * - a lost connection, a time-out and a 5xx are retried with jittered exponential backoff, but a call that
 *   is not idempotent only when the platform cannot have acted on it (below);
 * - any other 4xx is final.
 *
 * Errors name the platform and the call (`sendMessage`, `POST /channels/{id}/messages`), never the URL
 * (Telegram's token is in it), a header or the request's body; so does each attempt's trace subsegment
 * (../telemetry/outbound-trace.ts).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { networkCode, parseJsonOrUndefined, retryAfterValueMs } from "../http/outbound.ts";
import type { SecretValue } from "../secrets/secrets.ts";
import { traceOutbound } from "../telemetry/outbound-trace.ts";
import { PLATFORM_CALL_TIMEOUT_MS, PlatformApiError } from "./platform-api-error.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface PlatformRequest {
  /**
   * What errors and the trace call it: the API method or the verb and path with ids elided. Never holds a
   * secret.
   */
  name: string;
  method: HttpMethod;
  /** May hold a secret (Telegram's token is in its path): never copied into an error. */
  url: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /**
   * Whether the platform doing it twice is no worse than doing it once (a read, an edit to the same
   * content). A call that is not — posting a message — is retried only when it cannot have been done.
   */
  idempotent: boolean;
}

export interface PlatformReply {
  status: number;
  headers: Headers;
  /** The parsed JSON body; undefined when it was empty or not JSON. */
  body: unknown;
}

/** What differs between the platforms' answers. */
export interface PlatformRules {
  platform: string;
  /** The wait a 429 asks for, in ms; undefined when it names none. */
  retryAfterMs(reply: PlatformReply, nowMs: number): number | undefined;
  /** The platform's own words for a failed reply (its error code or description); no request data. */
  describe(reply: PlatformReply): string;
  /** How long to hold a call before sending it, from what earlier replies said (Discord's buckets). */
  holdMs?(request: PlatformRequest, nowMs: number): number;
  /** Sees every reply, 429s included, to learn the rate limits `holdMs` applies. */
  observe?(request: PlatformRequest, reply: PlatformReply, nowMs: number): void;
}

export interface PlatformHttpDeps {
  fetch?: typeof fetch;
  /** Epoch ms; the clock of `withPlatformDeadline`'s deadlines. */
  now: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** In [0, 1): the jitter of the backoff. */
  random?: () => number;
}

/** What every platform's API client is built from: where it is, its bot's token, the clock. */
export interface PlatformApiOptions {
  /** The API's base URL (the platform's own, or a local fake's: the `*_API_BASE` settings). */
  apiBase: string;
  /** Read per call (the secret store caches it): a rotated token is picked up without a restart. */
  botToken: SecretValue;
  now: () => number;
  /** Overrides of the HTTP client's parts (tests). */
  http?: Partial<PlatformHttpDeps>;
}

export interface PlatformHttp {
  /**
   * Sends `request` until a 2xx reply, which it returns.
   *
   * @throws PlatformApiError for a final non-2xx reply (`describe`'s words), a rate limit whose wait does
   *   not fit, a call that could not be made or answered in time, or no time left to start one.
   */
  send(request: PlatformRequest): Promise<PlatformReply>;
}

/** Attempts per call, the first included. */
const MAX_ATTEMPTS = 4;
/** Backoff between attempts: doubling from this, at most BACKOFF_MAX_MS, half of it at random. */
const BACKOFF_BASE_MS = 200;
const BACKOFF_MAX_MS = 2_000;
/** An attempt with less time left than this is not started: it could not finish before the deadline. */
const MIN_ATTEMPT_MS = 100;
/** What a function keeps of its own time for what follows its platform calls (storing the outcome). */
const FUNCTION_RESERVE_MS = 3_000;

interface DeadlineScope {
  deadlineMs: number;
  /** How "no time left …" ends, naming what the deadline is for. */
  purpose: string;
}

/**
 * Deadlines travel as async context, not as parameters: most platform calls are made deep inside the shared
 * pipeline, through `ChatChannel`, which has no notion of a request. The context also keeps concurrent
 * requests in one process (the local stack) apart.
 */
const scopes = new AsyncLocalStorage<DeadlineScope>();

/**
 * Runs `work` with every platform call made inside it bounded by `deadlineMs` (epoch ms), retries included.
 * A scope inside another can only shorten the deadline. Outside any scope a call has PLATFORM_CALL_TIMEOUT_MS
 * in all: what a webhook can afford, so only a caller that knows it has longer (the ask function delivering a
 * question, the stream consumer retiring copies) opens a scope.
 *
 * @example
 * await withPlatformDeadline(Date.now() + 2_000, () => handleInbound(inbound), "before the 3 s acknowledgement");
 */
export function withPlatformDeadline<T>(
  deadlineMs: number,
  work: () => Promise<T>,
  purpose = "before the call's deadline",
): Promise<T> {
  const outer = scopes.getStore();
  const scope = outer && outer.deadlineMs <= deadlineMs ? outer : { deadlineMs, purpose };
  return scopes.run(scope, work);
}

/**
 * The deadline for the platform calls of a function that is not answering a webhook: its remaining time
 * (`context.getRemainingTimeInMillis()`) less what it needs after them, from `nowMs` (epoch ms, the
 * composition root's clock).
 *
 * @example
 * const deadline = functionDeadline(context.getRemainingTimeInMillis(), now());
 * await withPlatformDeadline(deadline, () => askQuestion(input));
 */
export function functionDeadline(remainingMs: number, nowMs: number): number {
  return nowMs + Math.max(0, remainingMs - FUNCTION_RESERVE_MS);
}

/** Network failures that happen before a request is sent: the platform cannot have acted on it. */
const NOT_SENT = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** One failed attempt: what to say if it is the last, whether another may help, and when. */
interface Failure {
  status: number | undefined;
  message: string;
  retryable: boolean;
  retryAfterMs?: number;
}

export function createPlatformHttp(rules: PlatformRules, deps: PlatformHttpDeps): PlatformHttp {
  const fetchFn = deps.fetch ?? fetch;
  const { now } = deps;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = deps.random ?? Math.random;
  const fail = (request: PlatformRequest, status: number | undefined, message: string) =>
    new PlatformApiError(rules.platform, request.name, status, message);

  async function attempt(request: PlatformRequest, timeoutMs: number): Promise<PlatformReply | Failure> {
    let response: Response;
    try {
      response = await traceOutbound(
        request,
        fetchFn(request.url, {
          method: request.method,
          headers: {
            ...request.headers,
            ...(request.body !== undefined && { "content-type": "application/json; charset=utf-8" }),
          },
          ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
          signal: AbortSignal.timeout(timeoutMs),
        }),
        (reply) => reply.status,
      );
    } catch (error) {
      const code = networkCode(error);
      if (code === "TimeoutError" || code === "AbortError") {
        // A POST that timed out is not sent again: the platform may have posted it, and a second copy of a
        // question would be one Handraise never learns the id of — its buttons live on after the question
        // ends, and nothing ever retires them. A failed delivery is visible (the run gets delivery_failed,
        // or another target has the question); an orphaned duplicate is not.
        return {
          status: undefined,
          message: `no answer within ${timeoutMs} ms`,
          retryable: request.idempotent,
        };
      }
      return {
        status: undefined,
        message: `could not reach it (${code})`,
        retryable: request.idempotent || NOT_SENT.has(code),
      };
    }
    const text = await response.text().catch(() => "");
    return { status: response.status, headers: response.headers, body: parseJsonOrUndefined(text) };
  }

  function failureOf(request: PlatformRequest, reply: PlatformReply): Failure {
    const words = rules.describe(reply);
    if (reply.status === 429) {
      const retryAfterMs = rules.retryAfterMs(reply, now());
      const after = retryAfterMs === undefined ? "" : `, retry after ${retryAfterMs / 1000} s`;
      return {
        status: 429,
        message: `rate limited${after}: ${words}`,
        retryable: true,
        ...(retryAfterMs !== undefined && { retryAfterMs }),
      };
    }
    // 503 says the server did not take the request; another 5xx may come after the platform acted.
    const retryable = reply.status >= 500 && (request.idempotent || reply.status === 503);
    return { status: reply.status, message: words, retryable };
  }

  return {
    async send(request) {
      const started = now();
      const scope = scopes.getStore();
      const deadlineMs = scope?.deadlineMs ?? started + PLATFORM_CALL_TIMEOUT_MS;
      const purpose = scope?.purpose ?? "before the call's deadline";
      for (let n = 1; ; n++) {
        const held = rules.holdMs?.(request, now()) ?? 0;
        if (held > 0) {
          if (now() + held + MIN_ATTEMPT_MS > deadlineMs) {
            throw fail(request, 429, `rate limited, retry after ${held / 1000} s (its bucket is empty)`);
          }
          await sleep(held);
        }
        const remaining = deadlineMs - now();
        if (remaining < MIN_ATTEMPT_MS) throw fail(request, undefined, `no time left ${purpose}`);
        // Whole ms: AbortSignal.timeout refuses a fraction.
        const outcome = await attempt(request, Math.floor(Math.min(PLATFORM_CALL_TIMEOUT_MS, remaining)));
        if ("headers" in outcome) rules.observe?.(request, outcome, now());
        if ("headers" in outcome && outcome.status >= 200 && outcome.status < 300) return outcome;
        const failure = "headers" in outcome ? failureOf(request, outcome) : outcome;
        if (!failure.retryable || n >= MAX_ATTEMPTS) throw fail(request, failure.status, failure.message);
        const delayMs = failure.retryAfterMs ?? backoffMs(n, random());
        if (now() + delayMs + MIN_ATTEMPT_MS > deadlineMs)
          throw fail(request, failure.status, failure.message);
        await sleep(delayMs);
      }
    },
  };
}

/** Exponential with "equal jitter": half the doubled delay for sure, the other half at random. */
function backoffMs(attempt: number, random: number): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (random * ceiling) / 2);
}

/** A `Retry-After` header (seconds, or an HTTP date) in ms; undefined when absent or unreadable. */
export function retryAfterHeaderMs(headers: Headers, nowMs: number): number | undefined {
  return retryAfterValueMs(headers.get("retry-after"), nowMs);
}

/** `message` of a JSON error body `{message: "…"}` (Discord, Mattermost), else `HTTP <status>`. */
export function messageOf(reply: PlatformReply): string {
  const body = reply.body as { message?: unknown } | undefined;
  return typeof body?.message === "string" ? body.message : `HTTP ${reply.status}`;
}
