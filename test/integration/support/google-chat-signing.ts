/**
 * Google Chat's side of its request tokens, made here: a key published as Google publishes its own (an X.509
 * certificate at the certificate endpoint) and an RS256 token from `chat@system.gserviceaccount.com` signed
 * with it, valid or wrong in exactly one way. And the deployment's Google Chat settings, with every Google
 * endpoint at one fake and a service account key made here.
 */
import { exportPKCS8, importPKCS8, SignJWT } from "jose";
import { generate } from "selfsigned";
import { GOOGLE_CHAT_ISSUER } from "#lib/channels/gchat/gchat-auth.ts";

/** A key as `jose` holds one. */
export type Key = Awaited<ReturnType<typeof importPKCS8>>;

/** An RSA key and its self-signed certificate, valid for a day either side of `aroundMs`. */
export async function googleChatCertificate(aroundMs: number): Promise<{ privateKey: Key; pem: string }> {
  const pems = await generate([{ name: "commonName", value: GOOGLE_CHAT_ISSUER }], {
    keySize: 2048,
    algorithm: "sha256",
    notBeforeDate: new Date(aroundMs - 86_400_000),
    notAfterDate: new Date(aroundMs + 86_400_000),
  });
  return { privateKey: (await importPKCS8(pems.private, "RS256")) as Key, pem: pems.cert };
}

export interface TokenOptions {
  key: Key;
  /** The project number the token is for. */
  aud: string;
  /** When it is made. */
  nowMs: number;
  kid?: string;
  iss?: string;
  /** Seconds from `nowMs` (default 300). */
  exp?: number;
}

/** A request token as Google Chat sends one in `Authorization: Bearer`. */
export function googleChatToken(options: TokenOptions): Promise<string> {
  const now = Math.floor(options.nowMs / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: "RS256", kid: options.kid ?? "key-1", typ: "JWT" })
    .setIssuer(options.iss ?? GOOGLE_CHAT_ISSUER)
    .setAudience(options.aud)
    .setIssuedAt(now - 10)
    .setExpirationTime(now + (options.exp ?? 300))
    .sign(options.key);
}

/** The service account's e-mail in the settings below (the token grant is issued by it). */
export const SERVICE_ACCOUNT_EMAIL = "handraise@handraise-test.iam.gserviceaccount.com";

/**
 * The Google Chat settings of a deployment whose Chat API, token and certificate endpoints are the fake at
 * `fakeUrl` (`/token`, `/certs`), with the service account key `privateKey`.
 */
export async function googleChatSettings(
  fakeUrl: string,
  privateKey: Parameters<typeof exportPKCS8>[0],
  projectNumber: string,
): Promise<Record<string, string>> {
  return {
    GOOGLE_CHAT_SERVICE_ACCOUNT: JSON.stringify({
      type: "service_account",
      project_id: "handraise-test",
      private_key_id: "0123456789abcdef",
      private_key: await exportPKCS8(privateKey),
      client_email: SERVICE_ACCOUNT_EMAIL,
      client_id: "100000000000000000001",
      token_uri: `${fakeUrl}/token`,
    }),
    GOOGLE_CHAT_PROJECT_NUMBER: projectNumber,
    GOOGLE_CHAT_API_BASE: fakeUrl,
    GOOGLE_CHAT_CERTS_URL: `${fakeUrl}/certs`,
    GOOGLE_OAUTH_TOKEN_URL: `${fakeUrl}/token`,
  };
}
