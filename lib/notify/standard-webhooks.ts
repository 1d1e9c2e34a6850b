/**
 * Signing as Standard Webhooks specifies it (the spec at standardwebhooks.com): three headers —
 * `webhook-id` (the message's id, the same on every retry, so a receiver can drop a repeat),
 * `webhook-timestamp` (Unix seconds of this attempt) and `webhook-signature`
 * (`v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`).
 *
 * The secret's format is the spec's: `whsec_` + the base64 of the key bytes. Handraise wants 24–64 random
 * bytes (`whsec_` + 32–88 characters); `openssl rand -base64 32` makes a good key.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

const PREFIX = "whsec_";
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;

/** The signing key of a `whsec_…` secret; throws a TypeError naming what is wrong with it. */
export function webhookKey(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) throw new TypeError(`must start with ${PREFIX}`);
  const encoded = secret.slice(PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw new TypeError(`must be ${PREFIX} followed by base64`);
  const key = Buffer.from(encoded, "base64");
  if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
    throw new TypeError(`must carry ${MIN_KEY_BYTES}-${MAX_KEY_BYTES} key bytes (it has ${key.length})`);
  }
  return key;
}

export interface SignedMessage {
  id: string;
  /** Unix seconds. */
  timestamp: number;
  body: string;
}

/** `v1,<base64 signature>` of one message. */
export function webhookSignature(secret: string, message: SignedMessage): string {
  const digest = createHmac("sha256", webhookKey(secret))
    .update(`${message.id}.${message.timestamp}.${message.body}`)
    .digest("base64");
  return `v1,${digest}`;
}

/** The three headers a signed message is sent with. */
export function webhookHeaders(secret: string, message: SignedMessage): Record<string, string> {
  return {
    "webhook-id": message.id,
    "webhook-timestamp": String(message.timestamp),
    "webhook-signature": webhookSignature(secret, message),
  };
}

/**
 * The receiver's check (README.md, "Signed notifications", shows the same in a few lines): a signature of
 * the raw body under the secret, among the space-separated ones of the header, and a timestamp within
 * `toleranceSeconds` of now (a replayed old message is refused).
 */
export function verifyWebhook(
  secret: string,
  headers: Record<string, string | undefined>,
  body: string,
  options: { nowSeconds: number; toleranceSeconds?: number },
): boolean {
  const id = headers["webhook-id"];
  const timestamp = Number(headers["webhook-timestamp"]);
  const signatures = headers["webhook-signature"];
  if (!id || !Number.isInteger(timestamp) || !signatures) return false;
  if (Math.abs(options.nowSeconds - timestamp) > (options.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(webhookSignature(secret, { id, timestamp, body }));
  return signatures.split(" ").some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
