import { PlatformApiError } from "../platform-api-error.ts";
import {
  createPlatformHttp,
  type PlatformApiOptions,
  type PlatformReply,
  retryAfterHeaderMs,
} from "../platform-http.ts";

export interface SlackApi {
  call<T = unknown>(method: string, params: Record<string, unknown>): Promise<T>;
}

/** Methods Slack may do twice without harm; posting (a message, an ephemeral, a modal) is not among them. */
const REPEATABLE = /^(chat\.update|conversations\.(open|info|members)|auth\.test|users\.info)$/;
/**
 * Methods that only read: Slack takes JSON bodies for write methods alone, so their arguments go in the query
 * string of a GET.
 */
const READ = /^(conversations\.(info|members)|auth\.test|users\.info)$/;

const queryOf = (params: Record<string, unknown>) =>
  new URLSearchParams(Object.entries(params).map(([key, value]): [string, string] => [key, String(value)]));

const envelope = (reply: PlatformReply) => (reply.body ?? {}) as { ok?: boolean; error?: string };

/**
 * The Slack Web API (`POST <apiBase>/<method>` with JSON, or for a method that only reads `GET
 * <apiBase>/<method>?<arguments>`; `Authorization: Bearer <bot token>`). Slack answers
 * most failures with HTTP 200 and `{ok: false, error}`: both that and a non-2xx status become
 * PlatformApiError naming the method and Slack's error code, never the token. A 429 names its wait in the
 * `Retry-After` header (seconds).
 */
export function createSlackApi(options: PlatformApiOptions): SlackApi {
  const base = options.apiBase.replace(/\/+$/, "");
  const http = createPlatformHttp(
    {
      platform: "slack",
      retryAfterMs: (reply, nowMs) => retryAfterHeaderMs(reply.headers, nowMs),
      describe: (reply) => envelope(reply).error ?? `HTTP ${reply.status}`,
    },
    { now: options.now, ...options.http },
  );
  return {
    async call<T>(method: string, params: Record<string, unknown>): Promise<T> {
      const token = await options.botToken();
      const read = READ.test(method);
      const reply = await http.send({
        name: method,
        method: read ? "GET" : "POST",
        url: read ? `${base}/${method}?${queryOf(params)}` : `${base}/${method}`,
        headers: { authorization: `Bearer ${token}` },
        ...(!read && { body: params }),
        idempotent: REPEATABLE.test(method),
      });
      const body = envelope(reply);
      if (!body.ok)
        throw new PlatformApiError("slack", method, reply.status, body.error ?? `HTTP ${reply.status}`);
      return body as T;
    },
  };
}
