import {
  createPlatformHttp,
  type HttpMethod,
  messageOf,
  type PlatformApiOptions,
  type PlatformReply,
  type PlatformRequest,
  retryAfterHeaderMs,
} from "../platform-http.ts";

export type DiscordHttpMethod = HttpMethod;

export interface DiscordApi {
  /** One REST call (`path` below the API base, e.g. `/channels/1/messages`); throws PlatformApiError. */
  request<T = unknown>(method: DiscordHttpMethod, path: string, body?: unknown): Promise<T>;
}

/** Discord asks bots to identify themselves this way (API reference, "User Agent"). */
const USER_AGENT = "DiscordBot (https://github.com/handraise/handraise, 0.1.0)";

/**
 * The Discord REST API (`<apiBase>/...`, `Authorization: Bot <token>`, JSON). Inside an interaction every
 * call is bounded by what is left of its 3 s budget (the webhook prelude's deadline). A 429 names its wait in
 * the body's `retry_after` (seconds, a float), or the `Retry-After` header. Discord also says ahead of time
 * when a route's bucket is empty (`X-RateLimit-Remaining: 0`, `X-RateLimit-Reset-After`) or the whole bot is
 * limited (a 429 with `global`): such a call waits for the reset when it fits its deadline, and fails at once
 * without being sent when it does not — every 429 Discord has to give counts towards its ban of an IP that
 * makes too many invalid requests. POST is the one verb not sent twice. Errors carry the method and the path,
 * never the token.
 */
export function createDiscordApi(options: PlatformApiOptions): DiscordApi {
  const base = options.apiBase.replace(/\/+$/, "");
  /** Epoch ms until which a route's bucket (by `bucketOf`) is empty, or the whole bot is limited. */
  const emptyUntil = new Map<string, number>();
  let globalUntil = 0;

  const http = createPlatformHttp(
    {
      platform: "discord",
      retryAfterMs: (reply, nowMs) => {
        const seconds = (reply.body as { retry_after?: unknown } | undefined)?.retry_after;
        return typeof seconds === "number" && seconds >= 0
          ? Math.ceil(seconds * 1000)
          : retryAfterHeaderMs(reply.headers, nowMs);
      },
      describe: (reply) => {
        const code = (reply.body as { code?: unknown } | undefined)?.code;
        return `${messageOf(reply)}${typeof code === "number" ? ` (code ${code})` : ""}`;
      },
      holdMs: (request, nowMs) =>
        Math.max(0, globalUntil - nowMs, (emptyUntil.get(bucketOf(request)) ?? 0) - nowMs),
      observe: (request, reply, nowMs) => {
        const resetAfter = Number.parseFloat(reply.headers.get("x-ratelimit-reset-after") ?? "");
        if (reply.status === 429 && isGlobal(reply)) {
          const seconds = (reply.body as { retry_after?: unknown }).retry_after;
          if (typeof seconds === "number") globalUntil = nowMs + Math.ceil(seconds * 1000);
        } else if (reply.headers.get("x-ratelimit-remaining") === "0" && Number.isFinite(resetAfter)) {
          emptyUntil.set(bucketOf(request), nowMs + Math.ceil(resetAfter * 1000));
        } else {
          emptyUntil.delete(bucketOf(request));
        }
      },
    },
    { now: options.now, ...options.http },
  );

  return {
    async request<T>(method: DiscordHttpMethod, path: string, body?: unknown): Promise<T> {
      const token = await options.botToken();
      const reply = await http.send({
        // Ids elided (snowflakes are numbers): the name goes into errors and the trace.
        name: `${method} ${path.replace(/\/\d+(?=\/|$)/g, "/{id}")}`,
        method,
        url: `${base}${path}`,
        headers: { authorization: `Bot ${token}`, "user-agent": USER_AGENT },
        ...(body !== undefined && { body }),
        idempotent: method !== "POST",
      });
      return reply.body as T;
    },
  };
}

const isGlobal = (reply: PlatformReply) =>
  reply.headers.get("x-ratelimit-global") === "true" ||
  (reply.body as { global?: unknown } | undefined)?.global === true;

/**
 * A route's rate-limit bucket, as Discord draws them: the verb and the path, with the ids of its top-level
 * resource kept (a channel's, a guild's, a webhook's: each has buckets of its own) and every other id elided.
 */
function bucketOf(request: PlatformRequest): string {
  const path = new URL(request.url).pathname;
  const segments = path.split("/");
  const kept = segments.map((segment, i) =>
    /^\d+$/.test(segment) && !/^(channels|guilds|webhooks)$/.test(segments[i - 1] ?? "") ? "{id}" : segment,
  );
  return `${request.method} ${kept.join("/")}`;
}
