/**
 * An access token a platform issues for a while (the Bot Framework's app token, a Google service account's
 * token): asked for at an OAuth 2.0 token endpoint, held per process and shared. One request at a time asks
 * for a new one, and it is renewed a while before it runs out, so a call started just before the expiry does
 * not reach the platform with a token that ran out on the way. A token the platform refused is dropped
 * (`forget`) and the next call asks again.
 */
import { networkCode } from "../http/outbound.ts";
import { traceOutbound } from "../telemetry/outbound-trace.ts";
import { PLATFORM_CALL_TIMEOUT_MS, PlatformApiError } from "./platform-api-error.ts";

/** By default a token is used until this long before it expires. */
export const TOKEN_EARLY_MS = 60_000;

export interface IssuedToken {
  value: string;
  /** How long it lasts from now (0 when the issuer did not say: it is then asked for on every use). */
  lifetimeMs: number;
}

/**
 * POSTs a grant (`form`) to `tokenUrl` and reads the token: a PlatformApiError naming the endpoint's error code
 * (`invalid_client`, …) or the HTTP status, never a secret, when there is none.
 */
export async function requestOAuthToken(
  platform: string,
  tokenUrl: string,
  form: URLSearchParams,
): Promise<IssuedToken> {
  let response: Response;
  try {
    response = await traceOutbound(
      { url: tokenUrl, method: "POST", name: `${platform} token` },
      fetch(tokenUrl, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: form,
        signal: AbortSignal.timeout(PLATFORM_CALL_TIMEOUT_MS),
      }),
      (reply) => reply.status,
    );
  } catch (error) {
    throw new PlatformApiError(platform, "token", undefined, networkCode(error));
  }
  const parsed = (await response.json().catch(() => undefined)) as
    | { access_token?: unknown; expires_in?: unknown; error?: unknown }
    | undefined;
  if (!response.ok || typeof parsed?.access_token !== "string") {
    const code = typeof parsed?.error === "string" ? parsed.error.slice(0, 64) : `HTTP ${response.status}`;
    throw new PlatformApiError(platform, "token", response.status, code);
  }
  const seconds = typeof parsed.expires_in === "number" ? parsed.expires_in : Number(parsed.expires_in);
  return {
    value: parsed.access_token,
    lifetimeMs: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0,
  };
}

/** @example const token = createCachedToken(() => requestToken(), Date.now); await token.get() */
export function createCachedToken(
  request: () => Promise<IssuedToken>,
  now: () => number,
  earlyMs: number = TOKEN_EARLY_MS,
) {
  let held: { value: string; renewAtMs: number } | undefined;
  let asking: Promise<string> | undefined;
  return {
    get(): Promise<string> {
      if (held && now() < held.renewAtMs) return Promise.resolve(held.value);
      asking ??= request()
        .then((issued) => {
          held = { value: issued.value, renewAtMs: now() + Math.max(0, issued.lifetimeMs - earlyMs) };
          return issued.value;
        })
        .finally(() => {
          asking = undefined;
        });
      return asking;
    },
    forget(): void {
      held = undefined;
    },
  };
}
