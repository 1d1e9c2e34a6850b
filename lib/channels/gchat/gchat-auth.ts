/**
 * Who may call `POST /webhooks/gchat`: Google Chat, proven by the JWT in `Authorization: Bearer`. An HTTP
 * endpoint app whose authentication audience is its project number gets tokens issued by
 * `chat@system.gserviceaccount.com`, signed RS256 with one of the keys Google publishes as X.509
 * certificates at GOOGLE_CHAT_CERTS_URL. Every claim is checked and anything short of all of them refuses
 * the request; the signature is checked by `jose`, never by hand.
 */
import { importX509, type JWTPayload, jwtVerify } from "jose";
import { isHttpsOrLoopback } from "../../http/outbound.ts";
import { createSigningKeys, fetchKeyDocument, KeySetUnavailableError } from "../signing-keys.ts";

/** The only issuer of the tokens Google Chat sends an app. */
export const GOOGLE_CHAT_ISSUER = "chat@system.gserviceaccount.com";
export const GOOGLE_CHAT_CERTS_URL =
  "https://www.googleapis.com/service_accounts/v1/metadata/x509/chat@system.gserviceaccount.com";
/** `exp`, `nbf` and `iat` are given this much slack (clocks drift). */
const CLOCK_SKEW_SECONDS = 300;
/** Google rotates these keys within days and publishes the next one early: a set is kept six hours. */
const CERTS_MAX_AGE_MS = 6 * 60 * 60 * 1000;

/** A key as `jose` imports a certificate's. */
type PublicKey = Awaited<ReturnType<typeof importX509>>;

/** Why a token was refused: for the log, never for the caller (who gets a bare 401). */
export class GoogleChatAuthError extends Error {
  override readonly name = "GoogleChatAuthError";
}

export interface GoogleChatAuthOptions {
  /** The Google Cloud project number of the Chat app: the audience every token must name. */
  projectNumber: string;
  /** Where Google publishes the signing certificates (`{ "<key id>": "-----BEGIN CERTIFICATE-----…" }`). */
  certsUrl: string;
  now: () => number;
  onRefreshFailed: (error: unknown) => void;
}

/**
 * Checks a request's `Authorization` header: RS256 only, issuer `chat@system.gserviceaccount.com`, audience
 * the project number, `exp` required, a key Google publishes. Resolves with the token's claims; throws a
 * GoogleChatAuthError (→ 401) or, when the certificates could not be fetched, a KeySetUnavailableError (→ 503).
 *
 * @example
 * const verify = createGoogleChatAuth({ projectNumber: "1234567890", certsUrl: GOOGLE_CHAT_CERTS_URL, now, onRefreshFailed });
 * await verify(event.headers.authorization);
 */
export function createGoogleChatAuth(options: GoogleChatAuthOptions) {
  const keys = createSigningKeys<PublicKey>({
    maxAgeMs: CERTS_MAX_AGE_MS,
    now: options.now,
    onRefreshFailed: options.onRefreshFailed,
    async fetchKeys() {
      // The certificates decide which tokens are genuine: never read over plain HTTP from another host.
      if (!isHttpsOrLoopback(options.certsUrl)) {
        throw new KeySetUnavailableError("the certificates' URL is not https");
      }
      const document = await fetchKeyDocument(options.certsUrl, "Google Chat's certificates");
      if (typeof document !== "object" || document === null || Array.isArray(document)) {
        throw new KeySetUnavailableError("Google Chat's certificates are not a map of key ids");
      }
      const held = new Map<string, PublicKey>();
      for (const [kid, pem] of Object.entries(document)) {
        if (typeof pem !== "string") continue;
        // A certificate that does not parse is left out; the others still verify.
        const key = await importX509(pem, "RS256").catch(() => undefined);
        if (key) held.set(kid, key);
      }
      if (held.size === 0) throw new KeySetUnavailableError("Google Chat's certificates hold no usable key");
      return held;
    },
  });

  return async function verifyGoogleChatRequest(authorization: string | undefined): Promise<JWTPayload> {
    const match = /^Bearer ([A-Za-z0-9_\-.]+)$/i.exec(authorization ?? "");
    if (!match?.[1]) throw new GoogleChatAuthError("no bearer token");
    try {
      const { payload } = await jwtVerify(
        match[1],
        async (header) => {
          if (typeof header.kid !== "string") throw new GoogleChatAuthError("the token names no key");
          const key = await keys.keyFor(header.kid);
          if (!key) throw new GoogleChatAuthError("the token's key is not among Google Chat's certificates");
          return key;
        },
        {
          algorithms: ["RS256"],
          issuer: GOOGLE_CHAT_ISSUER,
          audience: options.projectNumber,
          clockTolerance: CLOCK_SKEW_SECONDS,
          requiredClaims: ["exp"],
          currentDate: new Date(options.now()),
        },
      );
      return payload;
    } catch (error) {
      if (error instanceof GoogleChatAuthError || error instanceof KeySetUnavailableError) throw error;
      // jose's errors say which check failed (alg, signature, exp, aud, iss), without the token.
      throw new GoogleChatAuthError(
        error instanceof Error ? `${error.name}: ${error.message}` : "invalid token",
      );
    }
  };
}

export type VerifyGoogleChatRequest = ReturnType<typeof createGoogleChatAuth>;
