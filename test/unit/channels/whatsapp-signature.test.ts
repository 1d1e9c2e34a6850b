import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  answerHandshake,
  verifyWhatsappSignature,
  whatsappSignature,
} from "#lib/channels/whatsapp/whatsapp-signature.ts";

const vectors = JSON.parse(
  readFileSync(new URL("../../fixtures/signature-vectors.json", import.meta.url), "utf8"),
);
const meta = vectors.meta_whatsapp_generated as {
  app_secret: string;
  body: string;
  signature: string;
  negative_reserialized_signature: string;
};

describe("WhatsApp's X-Hub-Signature-256", () => {
  const body = Buffer.from(meta.body, "utf8");

  it("matches the known vector, signed over the raw bytes", () => {
    expect(whatsappSignature(meta.app_secret, body)).toBe(meta.signature);
    expect(verifyWhatsappSignature(meta.app_secret, meta.signature, body)).toBe(true);
  });

  it("refuses the signature of the same JSON re-serialised (escapes differ), another secret, or none", () => {
    expect(verifyWhatsappSignature(meta.app_secret, meta.negative_reserialized_signature, body)).toBe(false);
    const reserialized = Buffer.from(JSON.stringify(JSON.parse(meta.body)), "utf8");
    expect(verifyWhatsappSignature(meta.app_secret, meta.signature, reserialized)).toBe(false);
    expect(verifyWhatsappSignature("another secret", meta.signature, body)).toBe(false);
    expect(verifyWhatsappSignature(meta.app_secret, undefined, body)).toBe(false);
    expect(verifyWhatsappSignature(meta.app_secret, meta.signature.replace("sha256=", ""), body)).toBe(false);
    expect(verifyWhatsappSignature(meta.app_secret, meta.signature.toUpperCase(), body)).toBe(false);
    // No secret configured: fail closed, even for a signature made with the empty key.
    expect(verifyWhatsappSignature("", whatsappSignature("", body), body)).toBe(false);
  });
});

describe("the subscription handshake", () => {
  const good = { "hub.mode": "subscribe", "hub.verify_token": "tok-123", "hub.challenge": "1158201444" };

  it("echoes the challenge for the right token", () => {
    expect(answerHandshake(good, "tok-123")).toEqual({ kind: "challenge", challenge: "1158201444" });
  });

  it.each([
    ["a wrong token", { ...good, "hub.verify_token": "tok-124" }],
    ["no token", { ...good, "hub.verify_token": undefined }],
    ["another mode", { ...good, "hub.mode": "unsubscribe" }],
    ["no challenge", { ...good, "hub.challenge": undefined }],
    ["a challenge that is markup", { ...good, "hub.challenge": "<script>alert(1)</script>" }],
  ])("refuses %s", (_, query) => {
    expect(answerHandshake(query, "tok-123")).toEqual({ kind: "refused" });
  });

  it("refuses everything when no verify token is configured", () => {
    expect(answerHandshake({ ...good, "hub.verify_token": "" }, "")).toEqual({ kind: "refused" });
  });
});
