/**
 * The Chat API's access token, as the app's service account: a JWT assertion signed with the account's
 * private key (RS256, by `jose`), exchanged at the OAuth token endpoint for a bearer token (the JWT-bearer
 * grant, RFC 7523) with the scope `chat.bot`. Held and renewed by lib/channels/cached-token.ts. Errors name
 * the call and Google's error code, never the key or a token.
 */
import { importPKCS8, SignJWT } from "jose";
import { type IssuedToken, requestOAuthToken } from "../cached-token.ts";

export const GOOGLE_OAUTH_TOKEN_URL = "https://oauth2.googleapis.com/token";
export const CHAT_BOT_SCOPE = "https://www.googleapis.com/auth/chat.bot";
/** An assertion is good for at most an hour (Google's limit). */
const ASSERTION_SECONDS = 3600;

/** The fields of a service account's JSON key the grant needs. */
export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
}

/**
 * The JSON key as Google's console downloads it, checked: what is wrong, as a phrase; undefined when usable.
 * Never quotes the key.
 */
export function serviceAccountKeyProblem(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return "must be the service account's JSON key, as the Google Cloud console downloads it";
  }
  const key = parsed as Partial<ServiceAccountKey> & { type?: unknown };
  if (key.type !== "service_account") return 'must be a JSON key of "type": "service_account"';
  if (typeof key.client_email !== "string" || !key.client_email.includes("@")) return "has no client_email";
  if (typeof key.private_key !== "string" || !key.private_key.includes("BEGIN PRIVATE KEY")) {
    return "has no PKCS#8 private_key";
  }
  return undefined;
}

/** One token for `key` from `tokenUrl`. */
export async function requestServiceAccountToken(
  key: ServiceAccountKey,
  tokenUrl: string,
  nowMs: number,
): Promise<IssuedToken> {
  const issuedAt = Math.floor(nowMs / 1000);
  const assertion = await new SignJWT({ scope: CHAT_BOT_SCOPE })
    .setProtectedHeader({ alg: "RS256", typ: "JWT" })
    .setIssuer(key.client_email)
    .setAudience(tokenUrl)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ASSERTION_SECONDS)
    .sign(await importPKCS8(key.private_key, "RS256"));
  return requestOAuthToken(
    "gchat",
    tokenUrl,
    new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion }),
  );
}
