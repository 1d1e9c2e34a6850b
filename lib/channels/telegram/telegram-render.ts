/**
 * What a question looks like in Telegram: plain text (no parse_mode, so nothing the model, the caller or a
 * user wrote is interpreted as markup) with inline buttons. The question's context (who is asking and why)
 * stands above its questions in every drawing: each step, and the ended copy. A prompt of several questions
 * is a stepper: one question at a time in the same message, redrawn at each step. Every button's
 * callback_data (≤ 64 bytes) is the shared control codec (../control-codec.ts); a multi-select's toggle
 * state lives in the drawn keyboard (t0 / t1), not in storage, until Done.
 */
import { renderPromptText } from "../../questions/index.ts";
import type { QuestionRecord } from "../../questions/question-record.ts";
import {
  ANSWER_IN_BROWSER,
  type BrowserEntry,
  isLoopbackUrl,
  NO_BROWSER_ENTRY,
} from "../answer-in-browser.ts";
import { type Control, decodeControl, encodeControl } from "../control-codec.ts";
import { fitToLimit } from "../fit.ts";
import { PLATFORM_LIMITS } from "../platform-limits.ts";
import { promptView, type StepView, stepPromptText } from "../prompt-view.ts";
import { answerLinkLine, replies, type TextFits } from "../replies.ts";

export interface InlineButton {
  text: string;
  callback_data: string;
}
/** Opens the answer page; Telegram sends the bot nothing when it is tapped. */
export interface UrlButton {
  text: string;
  url: string;
}
export type InlineKeyboard = (InlineButton | UrlButton)[][];

/** A message's text and keyboard, as sendMessage and editMessageText take them. */
export interface DrawnPrompt {
  text: string;
  reply_markup: { inline_keyboard: InlineKeyboard };
}

const SELECTED = "✅ ";

/** Whether a message's text is within Telegram's limit (it is sent as plain text: nothing is escaped). */
export const fitsMessage: TextFits = (text) => text.length <= PLATFORM_LIMITS.telegram.text;

/**
 * The keyboard of sub-question `questionIndex`: a single-select's options as buttons, a multi-select's as
 * toggles + Done (`selected`: the options drawn with ✅ — the toggles on, or the option a step already holds);
 * Other…; Back from the second step on; "Answer in browser" (`browser`: on a private copy a URL button with
 * its answerer's link, unless the link is on this machine — then it is in the text, see `withLink`; on a
 * shared copy a callback button that hands each tapper their own link privately); Skip.
 */
export function renderKeyboard(
  record: QuestionRecord,
  selected: ReadonlySet<number> = new Set(),
  browser: BrowserEntry = NO_BROWSER_ENTRY,
  questionIndex = 0,
): InlineKeyboard {
  return keyboardOf(promptView(record, { step: questionIndex, browser, chosen: selected }).step);
}

const button = (text: string, control: Control): InlineButton => ({
  text,
  callback_data: encodeControl(control),
});

/** The view's step as rows: a choice a row, Done and Other… side by side, then each other control a row. */
function keyboardOf(step: StepView | undefined): InlineKeyboard {
  if (!step) return [];
  const rows: InlineKeyboard = step.choices.map((choice) => [
    button(choice.chosen ? `${SELECTED}${choice.label}` : choice.label, choice.control),
  ]);
  rows.push(
    step.controls.flatMap((c) =>
      c.kind === "done" || c.kind === "other" ? [button(c.label, c.control)] : [],
    ),
  );
  for (const c of step.controls) {
    if (c.kind === "back" || c.kind === "browser" || c.kind === "skip")
      rows.push([button(c.label, c.control)]);
    // A link on this machine goes in the text instead (`withLink`).
    if (c.kind === "link" && !isLoopbackUrl(c.url)) rows.push([{ text: c.label, url: c.url }]);
  }
  return rows;
}

/**
 * The prompt as posted and redrawn: one question whole; of several, the step at `questionIndex` — its header
 * with the progress ("Deploy to (1 of 3)"), question, numbered options and typed-reply hint — with what the
 * draft holds for it already chosen.
 */
export function renderPrompt(
  record: QuestionRecord,
  questionIndex: number,
  browser: BrowserEntry = NO_BROWSER_ENTRY,
): DrawnPrompt {
  return {
    text: fitToLimit(
      record,
      (shown) => withLink(stepPromptText(promptView(shown, { step: questionIndex })), browser),
      fitsMessage,
    ),
    reply_markup: { inline_keyboard: keyboardOf(promptView(record, { step: questionIndex, browser }).step) },
  };
}

/** The toggles currently selected on a posted keyboard (its state lives in the message, not in storage). */
export function selectedToggles(keyboard: InlineKeyboard | undefined): Set<number> {
  const selected = new Set<number>();
  for (const button of (keyboard ?? []).flat()) {
    if (!("callback_data" in button)) continue;
    const control = decodeControl(button.callback_data);
    if (control?.kind === "toggle" && control.selected) selected.add(control.optionIndex);
  }
  return selected;
}

/** The whole prompt (every question, under the context), as an ended copy shows it above its outcome. */
export function renderText(record: QuestionRecord): string {
  return renderPromptText(record.questions, record.context);
}

/** An ended copy's text: the whole prompt, then how it ended — shortened to fit, never losing the outcome. */
export function renderRetiredText(record: QuestionRecord, voter?: string): string {
  return fitToLimit(
    record,
    (shown) => `${renderText(shown)}\n\n${promptView(shown, { voter }).outcome}`,
    fitsMessage,
    { ended: true },
  );
}

/**
 * The message that hands a person their own link in their private chat with the bot (the answer to
 * `/start <token>`): the sentence, and the link as a URL button — or in the text, on this machine.
 * Protected content: Telegram offers no forwarding or saving of it.
 */
export function renderOwnLink(url: string) {
  return {
    text: withLink(replies.yourOwnLink, { kind: "link", url }),
    ...(!isLoopbackUrl(url) && { reply_markup: { inline_keyboard: [[{ text: ANSWER_IN_BROWSER, url }]] } }),
    protect_content: true,
  };
}

/** With a link to the answer page on this machine (the local stack), the link goes in the text: Telegram refuses such a URL button. */
function withLink(prompt: string, browser: BrowserEntry): string {
  return browser.kind === "link" && isLoopbackUrl(browser.url)
    ? `${prompt}\n\n${answerLinkLine(browser.url)}`
    : prompt;
}
