/**
 * Slack request signing (docs.slack.dev "Verifying requests from Slack"): every request — events,
 * interactivity, slash commands — carries `X-Slack-Request-Timestamp` (unix seconds) and
 * `X-Slack-Signature: v0=<hex HMAC-SHA256(signing secret, "v0:" + timestamp + ":" + raw body)>`.
 * Pure: the clock is a parameter, so a stale timestamp can be tested. `slackPrelude` is what the webhook's
 * composition root hands lib/http/webhook-prelude.ts.
 */
import { createHmac } from "node:crypto";
import { safeEqual } from "../../http/safe-equal.ts";
import type { WebhookPreludeOptions } from "../../http/webhook-prelude.ts";
import type { SecretValue } from "../../secrets/secrets.ts";

/** Requests signed further than this from now (either way) are refused: a captured request cannot be replayed. */
export const SLACK_REPLAY_WINDOW_SECONDS = 300;

/** `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<raw body>` keyed with the signing secret. */
export function slackSignature(signingSecret: string, timestamp: string, body: Buffer): string {
  const hmac = createHmac("sha256", signingSecret);
  hmac.update(`v0:${timestamp}:`);
  hmac.update(body);
  return `v0=${hmac.digest("hex")}`;
}

export interface SlackSignedRequest {
  /** `X-Slack-Request-Timestamp`. */
  timestamp: string | undefined;
  /** `X-Slack-Signature`. */
  signature: string | undefined;
  /** The raw body bytes, exactly as received. */
  body: Buffer;
}

/**
 * Whether Slack signed this request with `signingSecret` within the replay window around `nowMs`.
 *
 * @example
 * verifySlackSignature("8f74…", { timestamp: "1531420618", signature: "v0=a211…", body }, 1531420618_000) // true
 */
export function verifySlackSignature(
  signingSecret: string,
  request: SlackSignedRequest,
  nowMs: number,
): boolean {
  const { timestamp, signature, body } = request;
  if (timestamp === undefined || signature === undefined || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(Math.floor(nowMs / 1000) - Number(timestamp)) > SLACK_REPLAY_WINDOW_SECONDS) return false;
  return safeEqual(signature, slackSignature(signingSecret, timestamp, body));
}

/**
 * Slack wants every request acknowledged within 3 s; the platform calls made while answering one get 2 s
 * from its arrival, leaving the rest to a cold start, the network and the response.
 */
export const SLACK_ACK_WITHIN_MS = 2_000;

/**
 * The webhook prelude for Slack: the body limit, the signature of `v0:<timestamp>:<raw body>` within the
 * replay window, and the acknowledgement budget.
 *
 * @example
 * middy(handler).use(webhookPrelude(slackPrelude(secretValue(secrets, "slack/signing-secret"), Date.now)))
 */
export function slackPrelude(signingSecret: SecretValue, now: () => number): WebhookPreludeOptions {
  return {
    verify: async ({ headers, body, nowMs }) =>
      verifySlackSignature(
        await signingSecret(),
        { timestamp: headers["x-slack-request-timestamp"], signature: headers["x-slack-signature"], body },
        nowMs,
      ),
    refusal: "Missing, stale or wrong Slack signature.",
    ackWithinMs: SLACK_ACK_WITHIN_MS,
    now,
  };
}
