import { timingSafeEqual } from "node:crypto";

/**
 * Compares two secrets in time that does not depend on where they differ. `timingSafeEqual` throws on a
 * length mismatch, so lengths are checked first (the length of a secret is not the secret).
 */
export function safeEqual(presented: string | Buffer, expected: string | Buffer): boolean {
  const a = Buffer.isBuffer(presented) ? presented : Buffer.from(presented);
  const b = Buffer.isBuffer(expected) ? expected : Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
