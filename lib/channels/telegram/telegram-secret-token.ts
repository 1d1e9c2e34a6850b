/**
 * How a Telegram update proves it came from Telegram: Telegram signs nothing, it sends back the secret token
 * given to setWebhook (telegram-setup.ts) in every request's `X-Telegram-Bot-Api-Secret-Token` header. It
 * carries no timestamp, so a replayed update is caught by the dedupe of its update id, not here.
 */
import { safeEqual } from "../../http/safe-equal.ts";
import type { WebhookPreludeOptions } from "../../http/webhook-prelude.ts";
import type { SecretValue } from "../../secrets/secrets.ts";

/** API Gateway (payload 2.0) lower-cases every header name. */
export const TELEGRAM_SECRET_HEADER = "x-telegram-bot-api-secret-token";

/**
 * The prelude's verification for Telegram: the header equals the webhook secret, compared in constant time.
 * The secret is read per request (cached by the secret store), so a rotated one is picked up without a restart.
 *
 * @example
 * middy(handler).use(webhookPrelude({ ...telegramSecretTokenCheck(secret), now: Date.now }))
 */
export function telegramSecretTokenCheck(
  webhookSecret: SecretValue,
): Pick<WebhookPreludeOptions, "verify" | "refusal"> {
  return {
    verify: async ({ headers }) => safeEqual(headers[TELEGRAM_SECRET_HEADER] ?? "", await webhookSecret()),
    refusal: "Missing or wrong Telegram secret token.",
  };
}
