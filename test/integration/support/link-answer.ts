/**
 * What a person handed an answer page link can do with it: open it, and answer through it as the page's form
 * does without JavaScript (a form post of the link's `sig`, `a.<question id>` = the chosen option's position,
 * and Submit).
 */

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
