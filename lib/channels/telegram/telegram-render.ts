/**
 * What a question looks like in Telegram: plain text (no parse_mode, so nothing the model or user wrote is
 * interpreted as markup) with inline buttons where they fit, and the callback data codec.
 */
import { renderPromptText } from "../../questions/index.ts";
import type { QuestionRecord } from "../../questions/question-record.ts";
import { ANSWER_IN_BROWSER, isLoopbackUrl } from "../answer-in-browser.ts";
import type { ControlAction } from "../inbound.ts";

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

/**
 * callback_data (≤ 64 bytes): `<kind>|<sub>|<option>|<question id>` — kinds: `o` option, `t0`/`t1` an
 * unselected/selected toggle, `d` done, `x` other, `s` skip. The question id is at most 48 characters.
 */
export function encodeCallback(kind: string, sub: number, option: number, questionId: string): string {
  return `${kind}|${sub}|${option}|${questionId}`;
}

export interface DecodedCallback {
  kind: string;
  sub: number;
  option: number;
  questionId: string;
}

export function decodeCallback(data: string): DecodedCallback | undefined {
  const match = /^(o|t0|t1|d|x|s)\|(\d)\|(\d)\|([A-Za-z0-9_-]{1,48})$/.exec(data);
  if (!match?.[1] || !match[4]) return undefined;
  return { kind: match[1], sub: Number(match[2]), option: Number(match[3]), questionId: match[4] };
}

const SELECTED = "✅ ";

/**
 * One single-select question: its options as buttons; one multi-select: toggles + Done; then Other…,
 * "Answer in browser" (a URL button, when the page is on and its link is not on this machine — see
 * `renderText`) and Skip.
 */
export function renderKeyboard(
  record: QuestionRecord,
  selected: ReadonlySet<number> = new Set(),
  answerUrl?: string,
): InlineKeyboard {
  const rows: InlineKeyboard = [];
  const [only] = record.questions;
  if (record.questions.length === 1 && only) {
    only.options.forEach((option, index) => {
      const kind = only.multiSelect ? (selected.has(index) ? "t1" : "t0") : "o";
      const text = only.multiSelect && selected.has(index) ? `${SELECTED}${option.label}` : option.label;
      rows.push([{ text, callback_data: encodeCallback(kind, 0, index, record.id) }]);
    });
    const last: InlineButton[] = [{ text: "Other…", callback_data: encodeCallback("x", 0, 0, record.id) }];
    if (only.multiSelect) last.unshift({ text: "Done", callback_data: encodeCallback("d", 0, 0, record.id) });
    rows.push(last);
  }
  if (answerUrl !== undefined && !isLoopbackUrl(answerUrl))
    rows.push([{ text: ANSWER_IN_BROWSER, url: answerUrl }]);
  rows.push([{ text: "Skip", callback_data: encodeCallback("s", 0, 0, record.id) }]);
  return rows;
}

/** The answer page's link on a posted keyboard (kept when the keyboard is drawn again). */
export function answerUrlOf(keyboard: InlineKeyboard | undefined): string | undefined {
  for (const button of (keyboard ?? []).flat()) if ("url" in button) return button.url;
  return undefined;
}

/** The toggles currently selected on a posted keyboard (its state lives in the message, not in storage). */
export function selectedToggles(keyboard: InlineKeyboard | undefined): Set<number> {
  const selected = new Set<number>();
  for (const button of (keyboard ?? []).flat()) {
    if (!("callback_data" in button)) continue;
    const decoded = decodeCallback(button.callback_data);
    if (decoded?.kind === "t1") selected.add(decoded.option);
  }
  return selected;
}

/**
 * The prompt; with a link to the answer page on this machine (the local stack), the link too — Telegram
 * refuses such a URL button, not a URL in the text.
 */
export function renderText(record: QuestionRecord, answerUrl?: string): string {
  const prompt = renderPromptText(record.questions);
  return answerUrl !== undefined && isLoopbackUrl(answerUrl)
    ? `${prompt}\n\n${ANSWER_IN_BROWSER}: ${answerUrl}`
    : prompt;
}

/** The control a callback stands for; Done submits the toggles selected on the posted keyboard. */
export function callbackToAction(
  decoded: DecodedCallback,
  keyboard: InlineKeyboard | undefined,
): ControlAction | undefined {
  switch (decoded.kind) {
    case "o":
      return { type: "option", questionIndex: decoded.sub, optionIndex: decoded.option };
    case "t0":
    case "t1":
      return { type: "toggle", questionIndex: decoded.sub, optionIndex: decoded.option };
    case "x":
      return { type: "other", questionIndex: decoded.sub };
    case "s":
      return { type: "skip" };
    case "d":
      return {
        type: "choose",
        questionIndex: decoded.sub,
        optionIndexes: [...selectedToggles(keyboard)].sort((a, b) => a - b),
      };
  }
  return undefined;
}
