import { AsyncLocalStorage } from "node:async_hooks";
import type { SecretValue } from "../../secrets/secrets.ts";
import { PLATFORM_CALL_TIMEOUT_MS, PlatformApiError } from "../platform-api-error.ts";

export interface SlackApi {
  call<T = unknown>(method: string, params: Record<string, unknown>): Promise<T>;
}

/**
 * The time by which the current Slack request must be acknowledged, for every Slack API call made while
 * handling it — including the ones the shared pipeline makes through the registered channel (a
 * `/handraise question` re-post). Async context, not a parameter: those calls go through `ChatChannel`,
 * which has no notion of a request.
 */
const ackDeadlines = new AsyncLocalStorage<number>();

/** A call with less time left than this is not started: it could not finish before the deadline. */
const MIN_CALL_MS = 100;

/**
 * Runs `work` with every Slack API call inside it bounded by `deadlineMs` (epoch ms) as well as by
 * PLATFORM_CALL_TIMEOUT_MS; a call that would start with less than 100 ms left fails at once.
 *
 * @example
 * await withSlackDeadline(Date.now() + 2_000, () => handleInbound(inbound));
 */
export function withSlackDeadline<T>(deadlineMs: number, work: () => Promise<T>): Promise<T> {
  return ackDeadlines.run(deadlineMs, work);
}

/**
 * The Slack Web API (`POST <apiBase>/<method>`, JSON, `Authorization: Bearer <bot token>`). Slack answers
 * most failures with HTTP 200 and `{ok: false, error}`: both that and a non-2xx status become
 * PlatformApiError naming the method and Slack's error code, never the token.
 */
export function createSlackApi(options: {
  apiBase: string;
  botToken: SecretValue;
  now?: () => number;
}): SlackApi {
  const base = options.apiBase.replace(/\/+$/, "");
  const now = options.now ?? Date.now;

  function timeoutFor(method: string): number {
    const deadline = ackDeadlines.getStore();
    if (deadline === undefined) return PLATFORM_CALL_TIMEOUT_MS;
    const left = deadline - now();
    if (left < MIN_CALL_MS) {
      throw new PlatformApiError("slack", method, undefined, "no time left before the 3 s acknowledgement");
    }
    return Math.min(PLATFORM_CALL_TIMEOUT_MS, left);
  }

  return {
    async call<T>(method: string, params: Record<string, unknown>): Promise<T> {
      const timeoutMs = timeoutFor(method);
      const token = await options.botToken();
      let response: Response;
      try {
        response = await fetch(`${base}/${method}`, {
          method: "POST",
          headers: {
            "content-type": "application/json; charset=utf-8",
            authorization: `Bearer ${token}`,
          },
          body: JSON.stringify(params),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        throw new PlatformApiError(
          "slack",
          method,
          undefined,
          error instanceof Error ? error.name : "fetch failed",
        );
      }
      const body = (await response.json().catch(() => undefined)) as
        | ({ ok: boolean; error?: string } & T)
        | undefined;
      if (!response.ok || !body?.ok) {
        throw new PlatformApiError(
          "slack",
          method,
          response.status,
          body?.error ?? `HTTP ${response.status}`,
        );
      }
      return body;
    },
  };
}
