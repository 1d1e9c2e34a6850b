/**
 * How a posted question offers the answer page (lib/web/answer-link.ts), the one way to answer a prompt of
 * several questions or a multi-select one in a single form, on any platform — without ever leaving a link
 * where someone other than its answerer can read it:
 * - a copy in a one-to-one conversation between the bot and an answerer (`Delivery.privateTo`) carries that
 *   person's own link, as a URL button or in its text;
 * - a copy in a shared conversation carries an "Answer in browser" control instead. A tap by someone who may
 *   answer is handed that person's own link privately (an ephemeral reply, the bot's private chat); anyone
 *   else is told the question is not theirs (lib/app/handle-inbound.ts).
 */
import type { Delivery, QuestionRecord } from "../questions/question-record.ts";
import type { AnswerLinks } from "../web/answer-link.ts";

/** The link's text, and the shared control's label, on every platform. */
export const ANSWER_IN_BROWSER = "Answer in browser";

/** What a copy shows for the answer page. */
export type BrowserEntry =
  /** A private copy: its answerer's own link. */
  | { kind: "link"; url: string }
  /**
   * A shared copy: the control that hands each tapper their own link privately (a platform with no private
   * reply in a shared conversation, Teams, draws nothing for it).
   */
  | { kind: "control" }
  /** The page is off in this deployment. */
  | { kind: "none" };

export const NO_BROWSER_ENTRY: BrowserEntry = { kind: "none" };

/**
 * What a copy posted (or redrawn) for `privateTo` shows: the link of that answerer when the copy is private,
 * else the control — or nothing when the page is off.
 *
 * @example
 * await browserEntry(links, record, delivery.privateTo) // → { kind: "link", url } | { kind: "control" } | …
 */
export async function browserEntry(
  links: AnswerLinks,
  question: QuestionRecord,
  privateTo: Delivery["privateTo"],
): Promise<BrowserEntry> {
  if (privateTo === undefined) return (await links.isOn()) ? { kind: "control" } : NO_BROWSER_ENTRY;
  const url = await links.urlFor(question, privateTo);
  return url === undefined ? NO_BROWSER_ENTRY : { kind: "link", url };
}

/** The posted copy of `question` in `chatId` (and message, where known): what a redraw of it is bound by. */
export function copyIn(
  question: Pick<QuestionRecord, "deliveries">,
  channel: string,
  chatId: string,
  messageId?: string,
): Delivery | undefined {
  return question.deliveries.find(
    (d) =>
      d.channel === channel && d.chatId === chatId && (messageId === undefined || d.messageId === messageId),
  );
}

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
