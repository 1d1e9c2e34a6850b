/**
 * The public keys a platform signs its webhook tokens with (the Bot Framework's key set, Google's
 * certificates), held per process: warm invocations check a token without a network call. A key set held is
 * asked for again when it is old or when a token names a key it lacks — at most every few minutes, so
 * neither a flood of made-up key ids nor an outage of the platform's endpoint turns every request into a
 * fetch — and a refresh that fails keeps the keys already held.
 */
import { networkCode } from "../http/outbound.ts";
import { PLATFORM_CALL_TIMEOUT_MS } from "./platform-api-error.ts";

/**
 * The keys a token needs could not be fetched (a network error, a 5xx, a malformed answer): nothing can be said
 * of the token, so the request is neither accepted nor refused — the caller answers 503 and the platform sends
 * it again.
 */
export class KeySetUnavailableError extends Error {
  override readonly name = "KeySetUnavailableError";
}

/** A held key set is asked for again at most this often. */
const REFRESH_INTERVAL_MS = 5 * 60 * 1000;

export interface SigningKeysOptions<Key> {
  /** Fetches the whole key set, by key id; throws a KeySetUnavailableError when it cannot. */
  fetchKeys: () => Promise<Map<string, Key>>;
  /** How long a fetched set is used before it is asked for again. */
  maxAgeMs: number;
  now: () => number;
  /** Reports a refresh of a key set already held that failed (the held keys stay in use meanwhile). */
  onRefreshFailed: (error: unknown) => void;
}

/** @example const keys = createSigningKeys({ fetchKeys, maxAgeMs: DAY, now, onRefreshFailed }); await keys.keyFor(kid) */
export function createSigningKeys<Key>(options: SigningKeysOptions<Key>) {
  const { now } = options;
  let cached: { keys: Map<string, Key>; fetchedAtMs: number } | undefined;
  let loading: Promise<Map<string, Key>> | undefined;
  /** When a key set already held was last asked for again (whether or not that worked). */
  let lastRefreshAtMs = Number.NEGATIVE_INFINITY;

  /** One fetch at a time: concurrent requests of a cold process share it. */
  function load(): Promise<Map<string, Key>> {
    loading ??= options
      .fetchKeys()
      .then((keys) => {
        cached = { keys, fetchedAtMs: now() };
        return keys;
      })
      .finally(() => {
        loading = undefined;
      });
    return loading;
  }

  /** Whether a key set already held may be asked for again now (rate limit), counting this as the ask. */
  function mayRefresh(): boolean {
    if (now() - lastRefreshAtMs < REFRESH_INTERVAL_MS) return false;
    lastRefreshAtMs = now();
    return true;
  }

  return {
    async keyFor(kid: string): Promise<Key | undefined> {
      // Nothing held yet (a cold process): the fetch must work, or the request cannot be judged (503).
      if (!cached) return (await load()).get(kid);
      let keys = cached.keys;
      if (now() - cached.fetchedAtMs > options.maxAgeMs && mayRefresh()) {
        // An old set still holds the platform's keys: while a refresh fails, the tokens they sign are accepted.
        keys = await load().catch((error: unknown) => {
          options.onRefreshFailed(error);
          return keys;
        });
      }
      const key = keys.get(kid);
      if (key || !mayRefresh()) return key;
      // A key id not seen yet may be a rolled-over key: one fetch (which must work, or 503) decides.
      return (await load()).get(kid);
    },
  };
}

/** GETs a JSON document of keys; any failure is a KeySetUnavailableError naming `what` (never a token). */
export async function fetchKeyDocument(url: string, what: string): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(PLATFORM_CALL_TIMEOUT_MS),
    });
  } catch (error) {
    throw new KeySetUnavailableError(`${what} could not be read: ${networkCode(error)}`);
  }
  if (!response.ok) throw new KeySetUnavailableError(`${what} answered HTTP ${response.status}`);
  return response.json().catch(() => {
    throw new KeySetUnavailableError(`${what} is not JSON`);
  });
}
