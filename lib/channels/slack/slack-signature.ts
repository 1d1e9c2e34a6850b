/**
 * Slack request signing (docs.slack.dev "Verifying requests from Slack"): every request — events,
 * interactivity, slash commands — carries `X-Slack-Request-Timestamp` (unix seconds) and
 * `X-Slack-Signature: v0=<hex HMAC-SHA256(signing secret, "v0:" + timestamp + ":" + raw body)>`.
 * Pure: the clock is a parameter, so a stale timestamp can be tested.
 */
import { createHmac } from "node:crypto";
import { safeEqual } from "../../http/safe-equal.ts";

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
