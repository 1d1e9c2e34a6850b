/**
 * What a question looks like in Slack (Block Kit): the plain prompt of every channel as an mrkdwn section —
 * escaped, so nothing the model or a user wrote becomes a mention, a link or a channel ping — and the
 * controls that fit its shape:
 * - one single-select question: a button per option, "Other…" (a modal with a text box) and "Skip";
 * - one multi-select question: checkboxes, "Submit" (reads the ticked boxes from `state.values`), "Other…",
 *   "Skip";
 * - several questions: "Answer in a form" (a modal with a select or checkboxes and a text box per question)
 *   and "Skip";
 * - with the answer page on, every shape also has "Answer in browser", a link button (Slack still reports
 *   the tap, as an action Handraise ignores).
 * A typed reply works for every shape, as the prompt says (in the question's thread, or in the conversation).
 */
import { renderPromptText } from "../../questions/index.ts";
import type { QuestionRecord } from "../../questions/question-record.ts";
import type { Question } from "../../questions/schema.ts";
import { ANSWER_IN_BROWSER } from "../answer-in-browser.ts";
import type { ControlAction } from "../inbound.ts";
import { outcomeText } from "../replies.ts";

/** The slash command of infra/slack/manifest.yml: `/handraise cancel`, `/handraise question`. */
export const SLASH_COMMAND = "/handraise";

export type SlackBlock = Record<string, unknown>;

/** Block Kit's limit on a section's text (and what Slack recommends for a message's `text`). */
const TEXT_LIMIT = 3000;
/** Block Kit's limits on an input's label and a checkbox option's description. */
const LABEL_LIMIT = 2000;
const DESCRIPTION_LIMIT = 75;

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

/** Escapes the three characters Slack's mrkdwn (and a message's `text`) treats as markup. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/[&<>]/g, (c) => ESCAPES[c] ?? c);
}

/**
 * `raw` escaped for mrkdwn (unless `asMrkdwn` is false) and cut so that it is at most `max` characters, never
 * in the middle of an entity or a surrogate pair; a cut text ends with "…".
 */
export function fitMrkdwn(raw: string, max: number, asMrkdwn = true): string {
  const pieces = [...raw].map((char) => (asMrkdwn ? (ESCAPES[char] ?? char) : char));
  const whole = pieces.join("");
  if (whole.length <= max) return whole;
  let out = "";
  for (const piece of pieces) {
    if (out.length + piece.length > max - 1) break;
    out += piece;
  }
  return `${out}…`;
}

const plain = (text: string) => ({ type: "plain_text", text });
const section = (text: string) => ({ type: "section", text: { type: "mrkdwn", text } });

// ── Control codec ──────────────────────────────────────────────────────────────────────────────────────
// action_id `hr|<kind>|<sub>|<option>` (kinds: o option, c checkboxes, d submit, x other, f form, s skip),
// value = the question id. Slack returns both with every tap; nothing else about the question rides along.

export type ControlKind = "o" | "c" | "d" | "x" | "f" | "s";

export function actionId(kind: ControlKind, sub = 0, option = 0): string {
  return `hr|${kind}|${sub}|${option}`;
}

export interface DecodedAction {
  kind: ControlKind;
  sub: number;
  option: number;
}

export function decodeActionId(id: string): DecodedAction | undefined {
  const match = /^hr\|([ocdxfs])\|(\d)\|(\d)$/.exec(id);
  if (!match?.[1]) return undefined;
  return { kind: match[1] as ControlKind, sub: Number(match[2]), option: Number(match[3]) };
}

/**
 * The control a tap stands for. Submit takes the option indexes ticked in that sub-question's checkboxes;
 * "Answer in a form" is an "other" (the owner wants to type) that the webhook answers with the whole form.
 * Undefined for a checkbox tick, which only changes the message's own state until Submit.
 */
export function tapToAction(decoded: DecodedAction, ticked: readonly number[]): ControlAction | undefined {
  switch (decoded.kind) {
    case "o":
      return { type: "option", questionIndex: decoded.sub, optionIndex: decoded.option };
    case "d":
      return { type: "choose", questionIndex: decoded.sub, optionIndexes: [...ticked].sort((a, b) => a - b) };
    case "x":
      return { type: "other", questionIndex: decoded.sub };
    case "f":
      return { type: "other", questionIndex: 0 };
    case "s":
      return { type: "skip" };
    case "c":
      return undefined;
  }
}

// ── Messages ───────────────────────────────────────────────────────────────────────────────────────────

const button = (text: string, id: string, questionId: string, style?: "primary") => ({
  type: "button",
  action_id: id,
  text: plain(text),
  value: questionId,
  ...(style && { style }),
});

/** Option labels are at most 64 characters (Block Kit allows 75); descriptions are cut to fit. */
const checkboxOptions = (question: Question, value: (label: string, index: number) => string) =>
  question.options.map((option, index) => ({
    text: plain(option.label),
    value: value(option.label, index),
    ...(option.description && {
      description: plain(fitMrkdwn(option.description, DESCRIPTION_LIMIT, false)),
    }),
  }));

/** The action id of the "Answer in browser" link button: not one of the `hr|…` controls, so taps are ignored. */
export const LINK_ACTION_ID = "hr_link";

function controls(record: QuestionRecord, answerUrl: string | undefined): SlackBlock {
  const [only, ...more] = record.questions;
  const elements: SlackBlock[] = [];
  if (!only || more.length > 0) {
    elements.push(button("Answer in a form", actionId("f"), record.id, "primary"));
  } else {
    if (only.multiSelect) {
      elements.push({
        type: "checkboxes",
        action_id: actionId("c"),
        options: checkboxOptions(only, (_, i) => `${i}`),
      });
      elements.push(button("Submit", actionId("d"), record.id, "primary"));
    } else {
      only.options.forEach((option, index) => {
        elements.push(button(option.label, actionId("o", 0, index), record.id));
      });
    }
    elements.push(button("Other…", actionId("x"), record.id));
  }
  if (answerUrl !== undefined) {
    elements.push({
      type: "button",
      action_id: LINK_ACTION_ID,
      text: plain(ANSWER_IN_BROWSER),
      url: answerUrl,
    });
  }
  elements.push(button("Skip", actionId("s"), record.id));
  return { type: "actions", elements };
}

/**
 * The message's `text` and section: the plain prompt (notifications, and how to answer by typing) with
 * Slack's own way to cancel, escaped and cut to fit.
 */
export function renderText(record: QuestionRecord): string {
  const prompt = renderPromptText(record.questions).replace(
    /\/cancel to cancel\.$/,
    `${SLASH_COMMAND} cancel to cancel.`,
  );
  return fitMrkdwn(prompt, TEXT_LIMIT);
}

/** The blocks of a pending question: the prompt, then its controls (and the answer page's link, if on). */
export function renderBlocks(record: QuestionRecord, answerUrl?: string): SlackBlock[] {
  return [section(renderText(record)), controls(record, answerUrl)];
}

/** An ended question's `text` and only block: the prompt and the outcome — no controls. */
export function renderRetiredText(record: QuestionRecord): string {
  return fitMrkdwn(`${renderPromptText(record.questions)}\n\n${outcomeText(record)}`, TEXT_LIMIT);
}

export function renderRetiredBlocks(record: QuestionRecord): SlackBlock[] {
  return [section(renderRetiredText(record))];
}

// ── Modals ─────────────────────────────────────────────────────────────────────────────────────────────
// Input blocks are named `c|<question id>` (a select or checkboxes, action `choice`, values = option
// labels) and `t|<question id>` (a text box, action `text`). private_metadata carries the question id and
// the channel, which a view_submission does not include.

export const MODAL_CALLBACK_ID = "hr_answer";

/**
 * "Other…" (`questionIndex` given): one required text box for that sub-question. "Answer in a form": per
 * sub-question a select (checkboxes when multi-select) and a text box for an own answer, both optional —
 * the webhook reports a question left without either.
 */
export function renderModal(record: QuestionRecord, chatId: string, questionIndex?: number): SlackBlock {
  const other = questionIndex === undefined ? undefined : record.questions[questionIndex];
  const blocks = (other ? [other] : record.questions).flatMap((question, index): SlackBlock[] => {
    const title = fitMrkdwn(
      `${other ? "" : `${index + 1}. `}${question.header}: ${question.question}`,
      LABEL_LIMIT,
      false,
    );
    const text = {
      type: "input",
      block_id: `t|${question.id}`,
      optional: !other,
      label: plain(other ? title : "Or your own answer"),
      element: { type: "plain_text_input", action_id: "text", multiline: true, max_length: 2000 },
    };
    if (other) return [text];
    const options = checkboxOptions(question, (label) => label);
    return [
      {
        type: "input",
        block_id: `c|${question.id}`,
        optional: true,
        label: plain(title),
        element: question.multiSelect
          ? { type: "checkboxes", action_id: "choice", options }
          : // Option descriptions exist for checkboxes and radio buttons only.
            {
              type: "static_select",
              action_id: "choice",
              options: options.map(({ text, value }) => ({ text, value })),
            },
      },
      text,
    ];
  });
  return {
    type: "modal",
    callback_id: MODAL_CALLBACK_ID,
    private_metadata: JSON.stringify({ q: record.id, c: chatId }),
    title: plain("Your answer"),
    submit: plain("Submit"),
    close: plain("Cancel"),
    blocks,
  };
}
