/**
 * The "Answer in browser" link every posted question carries when the answer page is on
 * (lib/web/answer-link.ts): the one way to answer a prompt of several questions or a multi-select one in a
 * single form, on any platform.
 */

/** The link's text, on every platform. */
export const ANSWER_IN_BROWSER = "Answer in browser";

/**
 * Whether a URL points at this machine (the local stack: `http://127.0.0.1:3000`). Telegram refuses a
 * whole message whose URL button points there, so such a link goes into the message's text instead.
 */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return host === "localhost" || host.endsWith(".localhost") || /^127\./.test(host) || host === "[::1]";
}
