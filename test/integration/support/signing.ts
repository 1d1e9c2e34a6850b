/** How the tests sign webhook requests the way each platform does (the product only verifies). */
import { createHmac, createPrivateKey, sign } from "node:crypto";
import vectors from "../../fixtures/signature-vectors.json" with { type: "json" };

/** Slack: `v0=` + hex HMAC-SHA256(signing secret, `v0:<timestamp>:<raw body>`). */
export function slackSignature(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

const D1 = vectors.discord_generated;
/** The Discord vector's key pair: the stack verifies with its public key, tests sign with its RFC 8032 seed. */
export const DISCORD_PRIVATE_KEY = createPrivateKey({
  key: {
    kty: "OKP",
    crv: "Ed25519",
    d: Buffer.from(D1.private_seed_rfc8032_test1, "hex").toString("base64url"),
    x: Buffer.from(D1.public_key, "hex").toString("base64url"),
  },
  format: "jwk",
});

/** Discord: hex Ed25519 signature of `<timestamp><raw body>`. */
export function discordSignature(timestamp: string, body: string): string {
  return sign(null, Buffer.from(`${timestamp}${body}`), DISCORD_PRIVATE_KEY).toString("hex");
}

/** Meta (WhatsApp): `sha256=` + hex HMAC-SHA256(app secret, raw body). */
export function metaSignature(appSecret: string, body: string): string {
  return `sha256=${createHmac("sha256", appSecret).update(body).digest("hex")}`;
}
