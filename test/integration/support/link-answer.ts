/**
 * What a person handed an answer page link can do with it: open it, and answer through it as the page's form
 * does without JavaScript (a form post of the link's `sig`, `a.<question id>` = the chosen option's position,
 * and Submit).
 */
import type { HttpResult, InProcessStack } from "../../support/in-process-stack.ts";

/** The page's form for the link `url` with one option chosen per question, as the browser posts it. */
export function answerForm(url: string, picks: Record<string, string>): URLSearchParams {
  const sig = new URL(url).searchParams.get("sig") ?? "";
  const form = new URLSearchParams({ sig, action: "submit" });
  for (const [questionId, option] of Object.entries(picks)) form.set(`a.${questionId}`, option);
  return form;
}

/** Posts the page's form at `url` with one option chosen per question; the redirect is not followed. */
export function answerThroughLink(url: string, picks: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: answerForm(url, picks),
    redirect: "manual",
  });
}

/** A link's path and query: what the in-process stack routes (the link names the deployment's public URL). */
export function linkPath(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/** As answerThroughLink, through the in-process stack (test/support/in-process-stack.ts). */
export function answerThroughLinkInProcess(
  stack: Pick<InProcessStack, "request">,
  url: string,
  picks: Record<string, string>,
): Promise<HttpResult> {
  return stack.request("POST", linkPath(url), {
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: answerForm(url, picks).toString(),
  });
}
