import type { SecretValue } from "../../secrets/secrets.ts";
import { PLATFORM_CALL_TIMEOUT_MS, PlatformApiError } from "../platform-api-error.ts";

export interface TelegramApi {
  call<T = unknown>(method: string, params: Record<string, unknown>): Promise<T>;
}

/**
 * The Bot API over HTTPS (`<apiBase>/bot<token>/<method>`, JSON). The token is part of the URL, so errors
 * name the method, never the URL.
 */
export function createTelegramApi(options: { apiBase: string; botToken: SecretValue }): TelegramApi {
  const base = options.apiBase.replace(/\/+$/, "");
  return {
    async call<T>(method: string, params: Record<string, unknown>): Promise<T> {
      // Read per call (cached by the secret store): a rotated token is picked up without a restart.
      const token = await options.botToken();
      let response: Response;
      try {
        response = await fetch(`${base}/bot${token}/${method}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(params),
          signal: AbortSignal.timeout(PLATFORM_CALL_TIMEOUT_MS),
        });
      } catch (error) {
        throw new PlatformApiError(
          "telegram",
          method,
          undefined,
          error instanceof Error ? error.name : "fetch failed",
        );
      }
      const body = (await response.json().catch(() => undefined)) as
        | { ok: boolean; result?: T; description?: string }
        | undefined;
      if (!body?.ok) {
        throw new PlatformApiError(
          "telegram",
          method,
          response.status,
          body?.description ?? `HTTP ${response.status}`,
        );
      }
      return body.result as T;
    },
  };
}
