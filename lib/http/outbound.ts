/**
 * What every outbound HTTP client needs alike (the chat platforms' in lib/channels/platform-http.ts, the
 * model providers' in lib/agent/provider-http.ts): a body read without throwing, a network failure named
 * without its message, and the standard `Retry-After` value read.
 */

/** A response body as JSON; undefined when empty or not JSON (the caller reports the status instead). */
export function parseJsonOrUndefined(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * undici's `fetch failed` hides the reason in `cause` (ECONNREFUSED, ENOTFOUND, UND_ERR_SOCKET…). Only a code
 * or a name: an error's message may quote the URL, and with it a token (Telegram's is in the path).
 */
export function networkCode(error: unknown): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return error.name;
  }
  const cause = (error as { cause?: { code?: unknown; name?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === "string") return cause.code;
  if (typeof cause?.name === "string") return cause.name;
  return error instanceof Error ? error.name : "network error";
}

/** A `Retry-After` value (seconds, or an HTTP date) in ms; undefined when absent or unreadable. */
export function retryAfterValueMs(value: string | null | undefined, nowMs: number): number | undefined {
  const trimmed = value?.trim();
  if (!trimmed) return undefined;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number.parseFloat(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** Hosts that are this machine: the local stack's fakes, the only place plain `http://` is allowed. */
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Whether an endpoint may carry credentials: `https:`, or `http:` on a loopback host (the local stack). A
 * bearer token or a key set fetched over plain HTTP elsewhere could be read or swapped on the way.
 */
export function isHttpsOrLoopback(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return parsed.protocol === "https:" || (parsed.protocol === "http:" && LOOPBACK_HOSTS.has(parsed.hostname));
}
