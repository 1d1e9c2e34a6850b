/**
 * The public keys a platform signs its webhook tokens with (the Bot Framework's key set, Google's
 * certificates), held per process: warm invocations check a token without a network call. A key set held is
 * asked for again when it is old or when a token names a key it lacks — at most every few minutes, so
 * neither a flood of made-up key ids nor an outage of the platform's endpoint turns every request into a
 * fetch — and a refresh that fails keeps the keys already held. While no key set is held, a failed fetch is
 * tried again by the next request (a platform's first retry often comes at once), and once that fails too,
 * requests fail closed without a fetch for a short cooldown, so an endpoint that is down is not asked on
 * every request.
 */
import { networkCode } from "../http/outbound.ts";
import { traceOutbound } from "../telemetry/outbound-trace.ts";
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
/** With no key set held, after two fetches in a row failed, the next is tried no sooner than this. */
export const FAILED_FETCH_COOLDOWN_MS = 10_000;

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
  /** Cold fetches that failed in a row, and until when no other is tried. */
  let coldFailures = 0;
  let coolUntilMs = Number.NEGATIVE_INFINITY;
  let coldLoading: Promise<Map<string, Key>> | undefined;

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

  /** The first fetch, or its retry: fails closed without a fetch while cooling down after failures in a row. */
  function loadCold(): Promise<Map<string, Key>> {
    if (!coldLoading && now() < coolUntilMs) {
      return Promise.reject(
        new KeySetUnavailableError("the key set could not be fetched a moment ago; not asked again yet"),
      );
    }
    // Requests that share one fetch count as one failure.
    coldLoading ??= load()
      .then(
        (keys) => {
          coldFailures = 0;
          return keys;
        },
        (error: unknown) => {
          if (++coldFailures >= 2) coolUntilMs = now() + FAILED_FETCH_COOLDOWN_MS;
          throw error;
        },
      )
      .finally(() => {
        coldLoading = undefined;
      });
    return coldLoading;
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
      if (!cached) return (await loadCold()).get(kid);
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
    response = await traceOutbound(
      { url, method: "GET", name: what },
      fetch(url, {
        headers: { accept: "application/json" },
        signal: AbortSignal.timeout(PLATFORM_CALL_TIMEOUT_MS),
      }),
      (reply) => reply.status,
    );
  } catch (error) {
    throw new KeySetUnavailableError(`${what} could not be read: ${networkCode(error)}`);
  }
  if (!response.ok) throw new KeySetUnavailableError(`${what} answered HTTP ${response.status}`);
  return response.json().catch(() => {
    throw new KeySetUnavailableError(`${what} is not JSON`);
  });
}
