/**
 * An access token a platform issues for a while (the Bot Framework's app token, a Google service account's
 * token), held per process and shared: one request at a time asks for a new one, and it is renewed a minute
 * before it runs out, so a call started just before the expiry does not reach the platform with a token that
 * ran out on the way. A token the platform refused is dropped (`forget`) and the next call asks again.
 */

/** A token is used until this long before it expires. */
export const TOKEN_EARLY_MS = 60_000;

export interface IssuedToken {
  value: string;
  /** How long it lasts from now (0 when the issuer did not say: it is then asked for on every use). */
  lifetimeMs: number;
}

/** @example const token = createCachedToken(() => requestToken(), Date.now); await token.get() */
export function createCachedToken(request: () => Promise<IssuedToken>, now: () => number) {
  let held: { value: string; renewAtMs: number } | undefined;
  let asking: Promise<string> | undefined;
  return {
    get(): Promise<string> {
      if (held && now() < held.renewAtMs) return Promise.resolve(held.value);
      asking ??= request()
        .then((issued) => {
          held = { value: issued.value, renewAtMs: now() + Math.max(0, issued.lifetimeMs - TOKEN_EARLY_MS) };
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
