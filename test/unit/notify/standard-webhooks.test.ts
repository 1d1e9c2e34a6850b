import { describe, expect, it } from "vitest";
import {
  verifyWebhook,
  webhookHeaders,
  webhookKey,
  webhookSignature,
} from "#lib/notify/standard-webhooks.ts";
import { secretProblem } from "#lib/secrets/secret-catalog.ts";

/** The Standard Webhooks specification's own test vector. */
const VECTOR = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};

describe("Standard Webhooks signatures", () => {
  it("sign the specification's vector as it says", () => {
    expect(webhookSignature(VECTOR.secret, VECTOR)).toBe(VECTOR.signature);
    expect(webhookHeaders(VECTOR.secret, VECTOR)).toEqual({
      "webhook-id": VECTOR.id,
      "webhook-timestamp": String(VECTOR.timestamp),
      "webhook-signature": VECTOR.signature,
    });
  });

  it("verify on the receiver's side, and refuse a tampered body, another secret, a stale timestamp", () => {
    const headers = webhookHeaders(VECTOR.secret, VECTOR);
    const now = { nowSeconds: VECTOR.timestamp + 10 };
    expect(verifyWebhook(VECTOR.secret, headers, VECTOR.body, now)).toBe(true);
    // Several signatures (a rotated secret): any one may match.
    const both = { ...headers, "webhook-signature": `v1,bm9wZQ== ${VECTOR.signature}` };
    expect(verifyWebhook(VECTOR.secret, both, VECTOR.body, now)).toBe(true);
    expect(verifyWebhook(VECTOR.secret, headers, '{"test": 2432232315}', now)).toBe(false);
    expect(verifyWebhook(`whsec_${Buffer.alloc(24, 1).toString("base64")}`, headers, VECTOR.body, now)).toBe(
      false,
    );
    expect(verifyWebhook(VECTOR.secret, headers, VECTOR.body, { nowSeconds: VECTOR.timestamp + 301 })).toBe(
      false,
    );
    expect(verifyWebhook(VECTOR.secret, { ...headers, "webhook-id": "msg_other" }, VECTOR.body, now)).toBe(
      false,
    );
  });

  it("take whsec_ + base64 of 24-64 key bytes as the secret, and nothing else", () => {
    expect(webhookKey(VECTOR.secret)).toHaveLength(24);
    expect(() => webhookKey("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")).toThrow(/whsec_/);
    expect(() => webhookKey(`whsec_${Buffer.alloc(16).toString("base64")}`)).toThrow(/24-64/);
    expect(secretProblem("notify-secret", VECTOR.secret)).toBeUndefined();
    expect(secretProblem("notify-secret", "a-long-plain-secret-without-prefix")).toMatch(/whsec_/);
  });
});
