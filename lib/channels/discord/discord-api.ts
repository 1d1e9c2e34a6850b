import type { SecretValue } from "../../secrets/secrets.ts";
import { PlatformApiError } from "../platform-api-error.ts";
import { callTimeoutMs } from "./discord-interaction-scope.ts";

export type DiscordHttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

export interface DiscordApi {
  /** One REST call (`path` below the API base, e.g. `/channels/1/messages`); throws PlatformApiError. */
  request<T = unknown>(method: DiscordHttpMethod, path: string, body?: unknown): Promise<T>;
}

/** Discord asks bots to identify themselves this way (API reference, "User Agent"). */
const USER_AGENT = "DiscordBot (https://github.com/handraise/handraise, 0.1.0)";

/**
 * The Discord REST API (`<apiBase>/...`, `Authorization: Bot <token>`, JSON). Every call is bounded by
 * PLATFORM_CALL_TIMEOUT_MS, and inside an interaction by what is left of its 3 s budget. A 429 fails at once
 * with the retry-after in the message: waiting would outlast the interaction, and the callers (delivery,
 * retiring copies) already treat a failed call as reported-not-fatal. Errors carry the method and path,
 * never the token.
 */
export function createDiscordApi(options: { apiBase: string; botToken: SecretValue }): DiscordApi {
  const base = options.apiBase.replace(/\/+$/, "");
  return {
    async request<T>(method: DiscordHttpMethod, path: string, body?: unknown): Promise<T> {
      const what = `${method} ${path}`;
      const timeoutMs = callTimeoutMs();
      if (timeoutMs <= 0) {
        throw new PlatformApiError("discord", what, undefined, "no time left to answer the interaction");
      }
      const token = await options.botToken();
      let response: Response;
      try {
        response = await fetch(`${base}${path}`, {
          method,
          headers: {
            authorization: `Bot ${token}`,
            "user-agent": USER_AGENT,
            ...(body !== undefined && { "content-type": "application/json" }),
          },
          ...(body !== undefined && { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        throw new PlatformApiError(
          "discord",
          what,
          undefined,
          error instanceof Error ? error.name : "fetch failed",
        );
      }
      const text = await response.text().catch(() => "");
      let parsed: unknown;
      try {
        parsed = text === "" ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (!response.ok)
        throw new PlatformApiError("discord", what, response.status, describe(response, parsed));
      return parsed as T;
    },
  };
}

function describe(response: Response, body: unknown): string {
  const fields = (typeof body === "object" && body !== null ? body : {}) as {
    message?: unknown;
    code?: unknown;
    retry_after?: unknown;
  };
  const message = typeof fields.message === "string" ? fields.message : `HTTP ${response.status}`;
  const code = typeof fields.code === "number" ? ` (code ${fields.code})` : "";
  if (response.status !== 429) return `${message}${code}`;
  const retryAfter =
    typeof fields.retry_after === "number" ? fields.retry_after : Number(response.headers.get("retry-after"));
  return `rate limited${Number.isFinite(retryAfter) ? `, retry after ${retryAfter} s` : ""}: ${message}`;
}
