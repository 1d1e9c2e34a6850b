import { createPrivateKey, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  discordPublicKey,
  discordRequestVerifier,
  REPLAY_WINDOW_SECONDS,
  verifyDiscordRequest,
} from "#lib/channels/discord/discord-signature.ts";
import vectors from "../../fixtures/signature-vectors.json" with { type: "json" };

const D1 = vectors.discord_generated;
const key = discordPublicKey(D1.public_key);
/** The clock frozen at the vector's timestamp. */
const AT_VECTOR = Number(D1.timestamp) * 1000;
const request = (overrides: { signature?: string; timestamp?: string; body?: string } = {}) => ({
  signature: overrides.signature ?? D1.signature,
  timestamp: overrides.timestamp ?? D1.timestamp,
  body: Buffer.from(overrides.body ?? D1.body, "utf8"),
});

describe("Discord request signature (vector D1)", () => {
  it("accepts the vector's signature at its timestamp", () => {
    expect(verifyDiscordRequest(key, request(), AT_VECTOR)).toBe(true);
  });

  it('rejects the same signature over another body ({"type":2})', () => {
    expect(verifyDiscordRequest(key, request({ body: '{"type":2}' }), AT_VECTOR)).toBe(false);
  });

  it("rejects a tampered signature, a signature of the wrong length, and a missing header", () => {
    const flipped = `${D1.signature.slice(0, -1)}${D1.signature.endsWith("f") ? "e" : "f"}`;
    expect(verifyDiscordRequest(key, request({ signature: flipped }), AT_VECTOR)).toBe(false);
    expect(verifyDiscordRequest(key, request({ signature: D1.signature.slice(2) }), AT_VECTOR)).toBe(false);
    expect(verifyDiscordRequest(key, request({ signature: "zz".repeat(64) }), AT_VECTOR)).toBe(false);
    expect(verifyDiscordRequest(key, { ...request(), signature: undefined }, AT_VECTOR)).toBe(false);
    expect(verifyDiscordRequest(key, { ...request(), timestamp: undefined }, AT_VECTOR)).toBe(false);
  });

  it("as the webhook prelude's check: reads the two signature headers (lower-case, as API Gateway gives them)", () => {
    const verify = discordRequestVerifier(key);
    const headers = { "x-signature-ed25519": D1.signature, "x-signature-timestamp": D1.timestamp };
    const body = Buffer.from(D1.body, "utf8");
    expect(verify({ headers, body, nowMs: AT_VECTOR })).toBe(true);
    expect(
      verify({ headers: { ...headers, "x-signature-timestamp": undefined }, body, nowMs: AT_VECTOR }),
    ).toBe(false);
    expect(verify({ headers, body, nowMs: AT_VECTOR + (REPLAY_WINDOW_SECONDS + 1) * 1000 })).toBe(false);
  });

  it("rejects the signature when the signed timestamp header is changed", () => {
    expect(verifyDiscordRequest(key, request({ timestamp: "1700000001" }), AT_VECTOR + 1000)).toBe(false);
  });

  it("rejects a valid signature under another application's key", () => {
    const other = discordPublicKey("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c");
    expect(verifyDiscordRequest(other, request(), AT_VECTOR)).toBe(false);
  });

  it("accepts up to 300 s of clock difference either way, and rejects a stale or future timestamp", () => {
    const window = REPLAY_WINDOW_SECONDS * 1000;
    expect(REPLAY_WINDOW_SECONDS).toBe(300);
    expect(verifyDiscordRequest(key, request(), AT_VECTOR + window)).toBe(true);
    expect(verifyDiscordRequest(key, request(), AT_VECTOR + window + 1000)).toBe(false);
    expect(verifyDiscordRequest(key, request(), AT_VECTOR - window - 1000)).toBe(false);
  });

  it("verifies what a key built from the RFC 8032 seed signs (the integration tests sign this way)", () => {
    const privateKey = createPrivateKey({
      key: {
        kty: "OKP",
        crv: "Ed25519",
        d: Buffer.from(D1.private_seed_rfc8032_test1, "hex").toString("base64url"),
        x: Buffer.from(D1.public_key, "hex").toString("base64url"),
      },
      format: "jwk",
    });
    const signature = sign(null, Buffer.from(`${D1.timestamp}${D1.body}`), privateKey).toString("hex");
    expect(signature).toBe(D1.signature);
  });

  it("refuses a public key that is not 32 bytes of hex", () => {
    expect(() => discordPublicKey("abc")).toThrow(/DISCORD_PUBLIC_KEY/);
    expect(() => discordPublicKey(`${D1.public_key}00`)).toThrow(/DISCORD_PUBLIC_KEY/);
  });
});
