/**
 * Google Chat's request tokens against a local fake of Google's certificate endpoint: RS256 JWTs from
 * `chat@system.gserviceaccount.com`, audience the project number, keys published as X.509 certificates.
 * And the service account's own token (JWT-bearer grant) against a fake token endpoint.
 */
import { decodeJwt, decodeProtectedHeader, exportPKCS8, generateKeyPair, importPKCS8, SignJWT } from "jose";
import { generate } from "selfsigned";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCachedToken } from "#lib/channels/cached-token.ts";
import {
  createGoogleChatAuth,
  GOOGLE_CHAT_ISSUER,
  GoogleChatAuthError,
} from "#lib/channels/gchat/gchat-auth.ts";
import {
  CHAT_BOT_SCOPE,
  requestServiceAccountToken,
  serviceAccountKeyProblem,
} from "#lib/channels/gchat/gchat-token.ts";
import { FAILED_FETCH_COOLDOWN_MS, KeySetUnavailableError } from "#lib/channels/signing-keys.ts";
import { type FakePlatform, startFakePlatform } from "./support/fake-platform.ts";

const PROJECT = "1234567890";
const NOW = Date.UTC(2026, 11, 3, 20, 0);
/** An RSA key pair and its self-signed certificate, as Google publishes its keys. */
async function signingKey() {
  const pems = await generate([{ name: "commonName", value: GOOGLE_CHAT_ISSUER }], {
    keySize: 2048,
    algorithm: "sha256",
    notBeforeDate: new Date(NOW - 86_400_000),
    notAfterDate: new Date(NOW + 86_400_000),
  });
  return { privateKey: await importPKCS8(pems.private, "RS256"), pem: pems.cert };
}

let google: FakePlatform;
let current: Awaited<ReturnType<typeof signingKey>>;
let stranger: Awaited<ReturnType<typeof signingKey>>;
beforeAll(async () => {
  [current, stranger] = await Promise.all([signingKey(), signingKey()]);
  google = await startFakePlatform(() => ({ body: { "key-1": current.pem } }));
});
afterAll(async () => {
  await google.stop();
});

function token(
  claims: Record<string, unknown> = {},
  options: {
    key?: Awaited<ReturnType<typeof importPKCS8>>;
    kid?: string;
    iss?: string;
    aud?: string;
    exp?: number;
  } = {},
) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "RS256", kid: options.kid ?? "key-1" })
    .setIssuer(options.iss ?? GOOGLE_CHAT_ISSUER)
    .setAudience(options.aud ?? PROJECT)
    .setIssuedAt(Math.floor(NOW / 1000))
    .setExpirationTime(options.exp ?? Math.floor(NOW / 1000) + 3600)
    .sign(options.key ?? current.privateKey);
}

const verifier = (now = () => NOW) =>
  createGoogleChatAuth({
    projectNumber: PROJECT,
    certsUrl: `${google.url}/certs`,
    now,
    onRefreshFailed: () => {},
  });

describe("Google Chat's bearer token", () => {
  it("is accepted when Google signed it for this project", async () => {
    const payload = await verifier()(`Bearer ${await token()}`);
    expect(payload).toMatchObject({ iss: GOOGLE_CHAT_ISSUER, aud: PROJECT });
  });

  it.each([
    ["no header", async () => undefined],
    ["not a bearer token", async () => `Basic ${await token()}`],
    ["another audience", async () => `Bearer ${await token({}, { aud: "999" })}`],
    [
      "another issuer",
      async () => `Bearer ${await token({}, { iss: "someone@example.iam.gserviceaccount.com" })}`,
    ],
    ["an expired token", async () => `Bearer ${await token({}, { exp: Math.floor(NOW / 1000) - 3600 })}`],
    ["a key Google did not publish", async () => `Bearer ${await token({}, { key: stranger.privateKey })}`],
    ["an unknown key id", async () => `Bearer ${await token({}, { kid: "key-9" })}`],
    [
      "alg none",
      async () => {
        const [, body] = (await token()).split(".");
        return `Bearer ${Buffer.from(JSON.stringify({ alg: "none", kid: "key-1" })).toString("base64url")}.${body}.`;
      },
    ],
  ])("is refused with %s", async (_, header) => {
    await expect(verifier()(await header())).rejects.toBeInstanceOf(GoogleChatAuthError);
  });

  it("cannot be judged while Google's certificates cannot be read: 503, not 401", async () => {
    const down = await startFakePlatform(() => ({ status: 503, body: {} }));
    const verify = createGoogleChatAuth({
      projectNumber: PROJECT,
      certsUrl: `${down.url}/certs`,
      now: () => NOW,
      onRefreshFailed: () => {},
    });
    await expect(verify(`Bearer ${await token()}`)).rejects.toBeInstanceOf(KeySetUnavailableError);
    await down.stop();
  });

  it("while Google's certificates stay unreadable, asks again at once, then not until the cooldown is over", async () => {
    let down = true;
    const certs = await startFakePlatform(() =>
      down ? { status: 503, body: {} } : { body: { "key-1": current.pem } },
    );
    let now = NOW;
    const verify = createGoogleChatAuth({
      projectNumber: PROJECT,
      certsUrl: `${certs.url}/certs`,
      now: () => now,
      onRefreshFailed: () => {},
    });
    const bearer = `Bearer ${await token()}`;
    for (let i = 0; i < 6; i++) await expect(verify(bearer)).rejects.toBeInstanceOf(KeySetUnavailableError);
    expect(certs.calls.length).toBe(2);
    down = false;
    now += FAILED_FETCH_COOLDOWN_MS;
    await expect(verify(bearer)).resolves.toMatchObject({ aud: PROJECT });
    expect(certs.calls.length).toBe(3);
    await certs.stop();
  });

  it("keeps the certificates per process: warm requests fetch nothing", async () => {
    const before = google.calls.length;
    const verify = verifier();
    for (let i = 0; i < 3; i++) await verify(`Bearer ${await token()}`);
    expect(google.calls.length - before).toBe(1);
  });
});

describe("the service account's token (JWT-bearer grant)", () => {
  it("signs an assertion for chat.bot and keeps the token until a minute before it expires", async () => {
    const { privateKey } = await generateKeyPair("RS256", { extractable: true });
    const key = {
      client_email: "handraise@project.iam.gserviceaccount.com",
      private_key: await exportPKCS8(privateKey),
    };
    let issued = 0;
    const oauth = await startFakePlatform(() => ({
      body: { access_token: `ya29.token-${++issued}`, expires_in: 3600 },
    }));
    let now = NOW;
    const tokenUrl = `${oauth.url}/token`;
    const cached = createCachedToken(
      () => requestServiceAccountToken(key, tokenUrl, now),
      () => now,
    );
    expect(await cached.get()).toBe("ya29.token-1");
    expect(await cached.get()).toBe("ya29.token-1");
    const [call] = oauth.calls;
    expect(call?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(call?.body.grant_type).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer");
    expect(decodeProtectedHeader(call?.body.assertion)).toMatchObject({ alg: "RS256" });
    expect(decodeJwt(call?.body.assertion)).toMatchObject({
      iss: key.client_email,
      aud: tokenUrl,
      scope: CHAT_BOT_SCOPE,
      iat: Math.floor(NOW / 1000),
      exp: Math.floor(NOW / 1000) + 3600,
    });
    now += 3600_000 - 59_000;
    expect(await cached.get()).toBe("ya29.token-2");
    await oauth.stop();
  });

  it("says what is wrong with a key without quoting it", () => {
    expect(serviceAccountKeyProblem("not json")).toMatch(/JSON key/);
    expect(serviceAccountKeyProblem('{"type":"authorized_user"}')).toMatch(/service_account/);
    expect(serviceAccountKeyProblem('{"type":"service_account","client_email":"a@b"}')).toMatch(
      /private_key/,
    );
  });
});
