/**
 * Who may call `POST /webhooks/teams`: the Bot Framework, proven by the JWT in `Authorization: Bearer`.
 * Teams signs no body; the token is what Microsoft vouches for, so every check the Bot Framework's own SDK
 * makes on a channel's token is made here, and anything short of all of them refuses the request.
 *
 * The signature is checked by `jose` (a maintained JOSE library), never by hand; this module only finds the
 * key and says which claims must hold.
 */
import { importJWK, type JWK, type JWTPayload, jwtVerify } from "jose";
import { PLATFORM_CALL_TIMEOUT_MS } from "../platform-api-error.ts";

/** The only issuer of tokens the Bot Framework sends to a bot. */
export const BOT_FRAMEWORK_ISSUER = "https://api.botframework.com";
export const BOT_FRAMEWORK_OPENID_METADATA_URL =
  "https://login.botframework.com/v1/.well-known/openidconfiguration";
/** `exp` and `nbf` are given this much slack, as the Bot Framework SDK gives them (clocks drift). */
export const CLOCK_SKEW_SECONDS = 300;
/** Keys are kept this long: Microsoft rolls them over days ahead, and lists the next one early. */
const KEYS_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/**
 * An unknown key id fetches the keys again at most this often: a rolled-over key is picked up soon, and a
 * flood of tokens with made-up key ids cannot turn every request into a fetch from Microsoft.
 */
const UNKNOWN_KEY_REFETCH_MS = 5 * 60 * 1000;

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
  now?: () => number;
}

/**
 * Checks a request's `Authorization` header against the activity it came with: RS256 only, issuer
 * `https://api.botframework.com`, audience the app id, `exp` (required) and `nbf` within 5 minutes' skew, a
 * key of the Bot Framework's key set endorsed for the activity's channel, and the token's `serviceurl`
 * equal to the activity's `serviceUrl` (so a token cannot be replayed to make the bot call another host).
 * Resolves when all hold; throws a TeamsAuthError otherwise (an unreachable key set included: fail closed).
 *
 * The key set is cached per process, so warm invocations check a token without any network call.
 *
 * @example
 * const verify = createTeamsAuth({ appId, metadataUrl: BOT_FRAMEWORK_OPENID_METADATA_URL });
 * await verify(event.headers.authorization, activity); // throws TeamsAuthError → 401
 */
export function createTeamsAuth(options: TeamsAuthOptions) {
  const now = options.now ?? Date.now;
  let cached: { keys: Map<string, BotFrameworkKey>; fetchedAtMs: number } | undefined;
  let loading: Promise<{ keys: Map<string, BotFrameworkKey>; fetchedAtMs: number }> | undefined;

  async function getJson(url: string, what: string): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { accept: "application/json" },
        signal: AbortSignal.timeout(PLATFORM_CALL_TIMEOUT_MS),
      });
    } catch (error) {
      throw new TeamsAuthError(`${what} could not be read: ${error instanceof Error ? error.name : error}`);
    }
    if (!response.ok) throw new TeamsAuthError(`${what} answered HTTP ${response.status}`);
    return response.json().catch(() => {
      throw new TeamsAuthError(`${what} is not JSON`);
    });
  }

  async function fetchKeys() {
    const metadata = (await getJson(options.metadataUrl, "the OpenID metadata")) as { jwks_uri?: unknown };
    if (typeof metadata?.jwks_uri !== "string" || !/^https?:\/\//.test(metadata.jwks_uri)) {
      throw new TeamsAuthError("the OpenID metadata names no key set");
    }
    const set = (await getJson(metadata.jwks_uri, "the key set")) as { keys?: unknown };
    if (!Array.isArray(set?.keys)) throw new TeamsAuthError("the key set has no keys");
    const keys = new Map<string, BotFrameworkKey>();
    for (const key of set.keys as BotFrameworkKey[]) {
      if (typeof key?.kid === "string" && key.kty === "RSA") keys.set(key.kid, key);
    }
    return { keys, fetchedAtMs: now() };
  }

  /** One fetch at a time: concurrent requests of a cold process share it. A failed fetch is not kept. */
  function refresh() {
    loading ??= fetchKeys()
      .then((fresh) => {
        cached = fresh;
        return fresh;
      })
      .finally(() => {
        loading = undefined;
      });
    return loading;
  }

  async function keyFor(kid: string): Promise<BotFrameworkKey | undefined> {
    let current = cached;
    if (!current || now() - current.fetchedAtMs > KEYS_MAX_AGE_MS) current = await refresh();
    const key = current.keys.get(kid);
    if (key || now() - current.fetchedAtMs < UNKNOWN_KEY_REFETCH_MS) return key;
    return (await refresh()).keys.get(kid);
  }

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
          const key = await keyFor(header.kid);
          if (!key) throw new TeamsAuthError("the token's key is not in the Bot Framework's key set");
          const { channelId } = activity;
          if (channelId !== undefined && !key.endorsements?.includes(channelId)) {
            throw new TeamsAuthError(`the token's key is not endorsed for channel "${channelId}"`);
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
          currentDate: new Date(now()),
        },
      ));
    } catch (error) {
      if (error instanceof TeamsAuthError) throw error;
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
