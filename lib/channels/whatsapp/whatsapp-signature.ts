/**
 * How a WhatsApp Cloud API request proves it came from Meta. Every webhook POST carries
 * `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body, keyed with the app secret>`; the body is
 * signed as sent (its bytes, not a re-serialisation of its JSON). Meta signs no timestamp, so a replayed
 * notification is caught by the dedupe of its message id, not here. Subscribing the webhook is a `GET` with
 * `hub.mode=subscribe`, `hub.verify_token` (the token typed into Meta's console) and `hub.challenge`, which is
 * echoed only when the token matches.
 */
import { createHmac } from "node:crypto";
import { safeEqual } from "../../http/safe-equal.ts";
import type { WebhookPreludeOptions } from "../../http/webhook-prelude.ts";
import type { SecretValue } from "../../secrets/secrets.ts";

/** API Gateway (payload 2.0) lower-cases every header name. */
export const WHATSAPP_SIGNATURE_HEADER = "x-hub-signature-256";

/** `sha256=` + hex HMAC-SHA256 of the raw body keyed with the app secret. */
export function whatsappSignature(appSecret: string, body: Buffer): string {
  return `sha256=${createHmac("sha256", appSecret).update(body).digest("hex")}`;
}

/**
 * Whether Meta signed `body` with `appSecret`: the whole prefixed value compared in constant time.
 *
 * @example
 * verifyWhatsappSignature("app secret", "sha256=9fef…", body) // true
 */
export function verifyWhatsappSignature(
  appSecret: string,
  signature: string | undefined,
  body: Buffer,
): boolean {
  return (
    signature !== undefined && appSecret !== "" && safeEqual(signature, whatsappSignature(appSecret, body))
  );
}

/** The webhook prelude's check for WhatsApp: the app secret is read per request (a rotated one is picked up). */
export function whatsappSignatureCheck(
  appSecret: SecretValue,
): Pick<WebhookPreludeOptions, "verify" | "refusal"> {
  return {
    verify: async ({ headers, body }) =>
      verifyWhatsappSignature(await appSecret(), headers[WHATSAPP_SIGNATURE_HEADER], body),
    refusal: "Missing or wrong X-Hub-Signature-256.",
  };
}

/** What the subscription handshake answers: the challenge (200, as plain text) or a refusal (403). */
export type HandshakeAnswer = { kind: "challenge"; challenge: string } | { kind: "refused" };

/**
 * Meta's `GET` subscription check: `hub.mode=subscribe` and a `hub.verify_token` equal (in constant time) to
 * the deployment's verify token → the `hub.challenge` back; anything else is refused. A challenge is a short
 * number in Meta's requests; anything longer or not printable is refused rather than echoed.
 */
export function answerHandshake(
  query: Readonly<Record<string, string | undefined>>,
  verifyToken: string,
): HandshakeAnswer {
  const challenge = query["hub.challenge"] ?? "";
  const token = query["hub.verify_token"];
  if (query["hub.mode"] !== "subscribe" || token === undefined || verifyToken === "")
    return { kind: "refused" };
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(challenge)) return { kind: "refused" };
  return safeEqual(token, verifyToken) ? { kind: "challenge", challenge } : { kind: "refused" };
}
