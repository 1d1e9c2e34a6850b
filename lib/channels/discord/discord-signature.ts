/**
 * Discord's request signature (Interactions Endpoint): Ed25519 over `X-Signature-Timestamp + raw body`
 * with the application's public key, hex-encoded as the Developer Portal shows it. Pure: the clock is a
 * parameter.
 */
import { createPublicKey, type KeyObject, verify } from "node:crypto";
import type { WebhookRequest } from "../../http/webhook-prelude.ts";

export const SIGNATURE_HEADER = "x-signature-ed25519";
export const TIMESTAMP_HEADER = "x-signature-timestamp";
/** Discord does not say how old a signed request may be; 300 s is the window every other signer uses. */
export const REPLAY_WINDOW_SECONDS = 300;

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const HEX_SIGNATURE = /^[0-9a-fA-F]{128}$/;
const UNIX_SECONDS = /^\d{1,12}$/;

/**
 * The application public key (64 hex characters) as a Node key object.
 * @throws Error naming DISCORD_PUBLIC_KEY when it is not 32 bytes of hex.
 */
export function discordPublicKey(hex: string): KeyObject {
  if (!HEX_KEY.test(hex))
    throw new Error("DISCORD_PUBLIC_KEY must be the application's public key: 64 hex characters");
  const x = Buffer.from(hex, "hex").toString("base64url");
  return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" });
}

export interface SignedRequest {
  signature: string | undefined;
  timestamp: string | undefined;
  /** The raw body bytes exactly as received. */
  body: Buffer;
}

/**
 * Whether Discord signed this request, recently. Ed25519 verification does not compare secrets byte by
 * byte, so there is nothing to time; malformed headers are refused before any crypto runs.
 *
 * @example
 * verifyDiscordRequest(key, { signature, timestamp: "1700000000", body }, 1_700_000_000_000) // → true
 */
export function verifyDiscordRequest(publicKey: KeyObject, request: SignedRequest, nowMs: number): boolean {
  const { signature, timestamp, body } = request;
  if (signature === undefined || timestamp === undefined) return false;
  if (!HEX_SIGNATURE.test(signature) || !UNIX_SECONDS.test(timestamp)) return false;
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > REPLAY_WINDOW_SECONDS) return false;
  const signed = Buffer.concat([Buffer.from(timestamp, "utf8"), body]);
  try {
    return verify(null, signed, publicKey, Buffer.from(signature, "hex"));
  } catch {
    return false;
  }
}

/** The 401's message when a request is not Discord's (it never says what was presented). */
export const DISCORD_REFUSAL = "Missing, invalid or stale Discord request signature.";

/**
 * The webhook prelude's check (lib/http/webhook-prelude.ts): Discord's signature headers over the raw body.
 *
 * @example
 * webhookPrelude({ verify: discordRequestVerifier(publicKey), refusal: DISCORD_REFUSAL, now: Date.now })
 */
export function discordRequestVerifier(publicKey: KeyObject): (request: WebhookRequest) => boolean {
  return ({ headers, body, nowMs }) =>
    verifyDiscordRequest(
      publicKey,
      { signature: headers[SIGNATURE_HEADER], timestamp: headers[TIMESTAMP_HEADER], body },
      nowMs,
    );
}
