/**
 * Who may call `POST /webhooks/teams`: the Bot Framework, proven by the JWT in `Authorization: Bearer`.
 * Teams signs no body; the token is what Microsoft vouches for, so every check the Bot Framework's own SDK
 * makes on a channel's token is made here, and anything short of all of them refuses the request.
 *
 * The signature is checked by `jose` (a maintained JOSE library), never by hand; this module only finds the
 * key and says which claims must hold.
 */
import { importJWK, type JWK, type JWTPayload, jwtVerify } from "jose";
import { isHttpsOrLoopback } from "../../http/outbound.ts";
import { createSigningKeys, fetchKeyDocument, KeySetUnavailableError } from "../signing-keys.ts";

export { KeySetUnavailableError } from "../signing-keys.ts";

/** The only issuer of tokens the Bot Framework sends to a bot. */
export const BOT_FRAMEWORK_ISSUER = "https://api.botframework.com";
export const BOT_FRAMEWORK_OPENID_METADATA_URL =
  "https://login.botframework.com/v1/.well-known/openidconfiguration";
/** `exp` and `nbf` are given this much slack, as the Bot Framework SDK gives them (clocks drift). */
export const CLOCK_SKEW_SECONDS = 300;
/** Keys are kept this long: Microsoft rolls them over days ahead, and lists the next one early. */
const KEYS_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** A Bot Framework signing key: a JWK, plus the channels it may sign for. */
interface BotFrameworkKey extends JWK {
  kid: string;
  endorsements?: string[];
}

/** Why a token was refused: for the log, never for the caller (who gets a bare 401). */
export class TeamsAuthError extends Error {
  override readonly name = "TeamsAuthError";
}

/** The activity fields the token must agree with (read from the body before anything is acted on). */
export interface ActivityClaims {
  channelId?: string | undefined;
  serviceUrl?: string | undefined;
}

export interface TeamsAuthOptions {
  /** The bot's Microsoft App ID: the audience every token must name. */
  appId: string;
  /** The OpenID metadata document that names the key set (`jwks_uri`). */
  metadataUrl: string;
  now: () => number;
  /** Reports a refresh of a key set already held that failed (the held keys stay in use meanwhile). */
  onRefreshFailed: (error: unknown) => void;
}

/**
 * Checks a request's `Authorization` header against the activity it came with: RS256 only, issuer
 * `https://api.botframework.com`, audience the app id, `exp` (required) and `nbf` within 5 minutes' skew, a
 * key of the Bot Framework's key set endorsed for the activity's channel, and the token's `serviceurl`
 * equal to the activity's `serviceUrl` (so a token cannot be replayed to make the bot call another host).
 * Resolves when all hold; throws a TeamsAuthError otherwise, or a KeySetUnavailableError when the keys
 * could not be fetched (fail closed, but as "try again", not "you are refused").
 *
 * The key set is cached per process, so warm invocations check a token without any network call; a refresh
 * that fails keeps the keys already held, so an outage of the metadata endpoint does not refuse tokens signed
 * with a key the process knows.
 *
 * @example
 * const verify = createTeamsAuth({
 *   appId, metadataUrl: BOT_FRAMEWORK_OPENID_METADATA_URL, now: Date.now, onRefreshFailed: console.warn,
 * });
 * await verify(event.headers.authorization, activity); // TeamsAuthError → 401, KeySetUnavailableError → 503
 */
export function createTeamsAuth(options: TeamsAuthOptions) {
  const keys = createSigningKeys<BotFrameworkKey>({
    maxAgeMs: KEYS_MAX_AGE_MS,
    now: options.now,
    onRefreshFailed: options.onRefreshFailed,
    async fetchKeys() {
      const metadata = (await fetchKeyDocument(options.metadataUrl, "the OpenID metadata")) as {
        jwks_uri?: unknown;
      };
      // The key set decides which tokens are genuine: never read over plain HTTP from another host.
      if (typeof metadata?.jwks_uri !== "string" || !isHttpsOrLoopback(metadata.jwks_uri)) {
        throw new KeySetUnavailableError("the OpenID metadata names no https key set");
      }
      const set = (await fetchKeyDocument(metadata.jwks_uri, "the key set")) as { keys?: unknown };
      if (!Array.isArray(set?.keys)) throw new KeySetUnavailableError("the key set has no keys");
      const held = new Map<string, BotFrameworkKey>();
      for (const key of set.keys as BotFrameworkKey[]) {
        if (typeof key?.kid === "string" && key.kty === "RSA") held.set(key.kid, key);
      }
      return held;
    },
  });

  return async function verifyTeamsRequest(
    authorization: string | undefined,
    activity: ActivityClaims,
  ): Promise<JWTPayload> {
    const match = /^Bearer ([A-Za-z0-9_\-.]+)$/.exec(authorization ?? "");
    if (!match?.[1]) throw new TeamsAuthError("no bearer token");
    if (typeof activity.serviceUrl !== "string" || activity.serviceUrl === "") {
      throw new TeamsAuthError("the activity has no serviceUrl");
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(
        match[1],
        async (header) => {
          if (typeof header.kid !== "string") throw new TeamsAuthError("the token names no key");
          const key = await keys.keyFor(header.kid);
          if (!key) throw new TeamsAuthError("the token's key is not in the Bot Framework's key set");
          const { channelId } = activity;
          if (channelId !== undefined && !key.endorsements?.includes(channelId)) {
            // The channel id is unverified input: named only as far as a channel id goes, never in full.
            throw new TeamsAuthError(
              `the token's key is not endorsed for channel "${channelId.slice(0, 32)}${channelId.length > 32 ? "…" : ""}"`,
            );
          }
          // Only the RSA public key itself: whatever else the set says of the key (alg, use) is not trusted.
          const publicKey: JWK = { kty: "RSA" };
          if (key.n !== undefined) publicKey.n = key.n;
          if (key.e !== undefined) publicKey.e = key.e;
          return importJWK(publicKey, "RS256");
        },
        {
          algorithms: ["RS256"],
          issuer: BOT_FRAMEWORK_ISSUER,
          audience: options.appId,
          clockTolerance: CLOCK_SKEW_SECONDS,
          requiredClaims: ["exp"],
          currentDate: new Date(options.now()),
        },
      ));
    } catch (error) {
      if (error instanceof TeamsAuthError || error instanceof KeySetUnavailableError) throw error;
      // jose's errors say which check failed (alg, signature, exp, aud, iss), without the token.
      throw new TeamsAuthError(error instanceof Error ? `${error.name}: ${error.message}` : "invalid token");
    }
    if (payload.serviceurl !== activity.serviceUrl) {
      throw new TeamsAuthError("the token's serviceurl is not the activity's serviceUrl");
    }
    return payload;
  };
}

export type VerifyTeamsRequest = ReturnType<typeof createTeamsAuth>;
