/**
 * What a question looks like in Discord: markdown-escaped text (nothing the model or a user wrote is read as
 * formatting or pings anyone) with message components, the modals behind "Other…" and "Answer in a form",
 * and the custom_id codec (≤ 100 characters; they carry only the short question id, never a token).
 */
import { parseTextReply, renderPromptText } from "../../questions/index.ts";
import type { QuestionRecord } from "../../questions/question-record.ts";
import type { Answers, Question } from "../../questions/schema.ts";
import { ANSWER_IN_BROWSER } from "../answer-in-browser.ts";
import { outcomeText } from "../replies.ts";

/** Message `content` limit. */
export const MAX_CONTENT = 2000;
/** No mention in a posted question or reply notifies anyone (`@everyone`, `<@id>` in model or user text). */
export const NO_MENTIONS = { parse: [] as string[] };

const ACTION_ROW = 1;
const BUTTON = 2;
const STRING_SELECT = 3;
const TEXT_INPUT = 4;
const LABEL = 18;
const PRIMARY = 1;
const SECONDARY = 2;
const DANGER = 4;
/** A button that opens a URL; Discord sends no interaction for it. */
const LINK = 5;
const SHORT = 1;
const PARAGRAPH = 2;

/** The text input of the "Other…" modal; the form's inputs are `q0`, `q1`, … by sub-question position. */
export const OTHER_INPUT_ID = "answer";
export const formInputId = (index: number) => `q${index}`;

/**
 * Escapes Discord markdown in plain text: `\ * _ ~ ` | > [ ]` anywhere (bold, italics, strike, code,
 * spoilers, quotes, masked links), and `#` / `-` that start a line (headings, subtext, lists).
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\*_~`|>[\]]/g, "\\$&").replace(/^([ \t]*)([#-])/gm, "$1\\$2");
}

/** Cuts text to `max` UTF-16 units with "…", never splitting a surrogate pair. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

// ── custom_id codec ─────────────────────────────────────────────────────────────────────────────────────
// Buttons:  a|<qid>|<sub>|<n>  option n · a|<qid>|<sub>|o  Other… · a|<qid>|0|s  Skip · a|<qid>|0|f  form
// Select:   m|<qid>|<sub>      (option values are the option indexes)
// Modals:   o|<qid>|<sub>      Other… text · f|<qid>  the form of every sub-question

export type DecodedComponent =
  | { kind: "option"; questionId: string; sub: number; option: number }
  | { kind: "other" | "select"; questionId: string; sub: number }
  | { kind: "skip" | "form"; questionId: string };

export type DecodedModal =
  | { kind: "other"; questionId: string; sub: number }
  | { kind: "form"; questionId: string };

const QID = "([A-Za-z0-9_-]{1,48})";
const BUTTON_ID = new RegExp(`^a\\|${QID}\\|(\\d)\\|(\\d|o|s|f)$`);
const SELECT_ID = new RegExp(`^m\\|${QID}\\|(\\d)$`);
const OTHER_MODAL_ID = new RegExp(`^o\\|${QID}\\|(\\d)$`);
const FORM_MODAL_ID = new RegExp(`^f\\|${QID}$`);

export const buttonId = (questionId: string, sub: number, option: number | "o" | "s" | "f") =>
  `a|${questionId}|${sub}|${option}`;
export const selectId = (questionId: string, sub: number) => `m|${questionId}|${sub}`;
export const otherModalId = (questionId: string, sub: number) => `o|${questionId}|${sub}`;
export const formModalId = (questionId: string) => `f|${questionId}`;

export function decodeComponentId(customId: string): DecodedComponent | undefined {
  const button = BUTTON_ID.exec(customId);
  if (button?.[1] && button[2] && button[3]) {
    const [, questionId, sub, what] = button;
    if (what === "o") return { kind: "other", questionId, sub: Number(sub) };
    if (what === "s") return { kind: "skip", questionId };
    if (what === "f") return { kind: "form", questionId };
    return { kind: "option", questionId, sub: Number(sub), option: Number(what) };
  }
  const select = SELECT_ID.exec(customId);
  if (select?.[1] && select[2]) return { kind: "select", questionId: select[1], sub: Number(select[2]) };
  return undefined;
}

export function decodeModalId(customId: string): DecodedModal | undefined {
  const other = OTHER_MODAL_ID.exec(customId);
  if (other?.[1] && other[2]) return { kind: "other", questionId: other[1], sub: Number(other[2]) };
  const form = FORM_MODAL_ID.exec(customId);
  if (form?.[1]) return { kind: "form", questionId: form[1] };
  return undefined;
}

// ── message content ─────────────────────────────────────────────────────────────────────────────────────

/**
 * The plain-text prompt (`renderPromptText`) without its last line: that line says how to answer by
 * typing a reply, and Discord does not deliver plain messages to an interactions endpoint (only to a
 * Gateway connection). The Discord guidance line replaces it.
 */
function promptBody(record: QuestionRecord): string {
  const text = renderPromptText(record.questions);
  const cut = text.lastIndexOf("\n\n");
  return escapeMarkdown(cut > 0 ? text.slice(0, cut) : text);
}

function guidance(record: QuestionRecord): string {
  const [only] = record.questions;
  if (record.questions.length > 1 || !only)
    return "Tap Answer in a form to answer every question at once. /cancel cancels the question.";
  const how = only.multiSelect ? "Pick one or more in the menu" : "Tap an option";
  return `${how}, or Other… to write your own answer (or /question answer: …). /cancel cancels the question.`;
}

/** The posted question's `content`. */
export function promptContent(record: QuestionRecord): string {
  const tail = `\n\n${guidance(record)}`;
  return `${clip(promptBody(record), MAX_CONTENT - tail.length)}${tail}`;
}

/** A retired copy's `content`: the question, then how it ended (its controls are removed with it). */
export function retiredContent(record: QuestionRecord): string {
  const tail = `\n\n${clip(escapeMarkdown(outcomeText(record)), 500)}`;
  return `${clip(promptBody(record), MAX_CONTENT - tail.length)}${tail}`;
}

// ── components ──────────────────────────────────────────────────────────────────────────────────────────

type Component = Record<string, unknown>;

const button = (label: string, customId: string, style = SECONDARY): Component => ({
  type: BUTTON,
  style,
  label: clip(label, 80),
  custom_id: customId,
});

/**
 * One single-select question: a button per option (≤ 4) then Other… and Skip. One multi-select question: a
 * string select (`min_values: 1, max_values: n`; it submits once, so nothing toggles) then Other… and Skip.
 * Several questions: "Answer in a form" (a modal with one text input per sub-question) and Skip. With the
 * answer page on, "Answer in browser" (a link button) comes before Skip.
 */
export function renderComponents(record: QuestionRecord, answerUrl?: string): Component[] {
  const { id } = record;
  const [only] = record.questions;
  const skip = button("Skip", buttonId(id, 0, "s"), DANGER);
  const last = (...first: Component[]): Component[] => [
    ...first,
    ...(answerUrl === undefined
      ? []
      : [{ type: BUTTON, style: LINK, label: ANSWER_IN_BROWSER, url: answerUrl }]),
    skip,
  ];
  if (record.questions.length !== 1 || !only) {
    return [
      { type: ACTION_ROW, components: last(button("Answer in a form", buttonId(id, 0, "f"), PRIMARY)) },
    ];
  }
  const other = button("Other…", buttonId(id, 0, "o"));
  if (only.multiSelect) {
    return [
      {
        type: ACTION_ROW,
        components: [
          {
            type: STRING_SELECT,
            custom_id: selectId(id, 0),
            placeholder: "Choose one or more…",
            min_values: 1,
            max_values: only.options.length,
            options: only.options.map((option, index) => ({
              label: clip(option.label, 100),
              value: String(index),
              ...(option.description !== undefined && { description: clip(option.description, 100) }),
            })),
          },
        ],
      },
      { type: ACTION_ROW, components: last(other) },
    ];
  }
  return [
    {
      type: ACTION_ROW,
      components: only.options.map((option, index) => button(option.label, buttonId(id, 0, index), PRIMARY)),
    },
    { type: ACTION_ROW, components: last(other) },
  ];
}

// ── modals (interaction response type 9) ────────────────────────────────────────────────────────────────

const labelled = (label: string, description: string, input: Component): Component => ({
  type: LABEL,
  label: clip(label, 45),
  description: clip(description, 100),
  component: { type: TEXT_INPUT, required: true, max_length: 1000, ...input },
});

/** "Other…": one text input for the sub-question's own answer. */
export function otherModal(record: QuestionRecord, sub: number): Component {
  const question = record.questions[sub];
  return {
    custom_id: otherModalId(record.id, sub),
    title: clip(`Your answer: ${question?.header ?? "the question"}`, 45),
    components: [
      labelled(question?.header ?? "Answer", question?.question ?? "", {
        custom_id: OTHER_INPUT_ID,
        style: PARAGRAPH,
        placeholder: "Type your answer",
      }),
    ],
  };
}

/** Every sub-question (at most 3; a modal takes 5) as a text input: an option number, its text, or your own. */
export function formModal(record: QuestionRecord): Component {
  return {
    custom_id: formModalId(record.id),
    title: "Answer the question",
    components: record.questions.map((question, index) =>
      labelled(`${index + 1}. ${question.header}`, question.question, {
        custom_id: formInputId(index),
        style: SHORT,
        placeholder: clip(optionsHint(question), 100),
      }),
    ),
  };
}

function optionsHint(question: Question): string {
  const options = question.options.map((option, index) => `${index + 1} ${option.label}`).join(" · ");
  return question.multiSelect ? `One or more, e.g. 1, 3 — ${options}` : `${options} — or your own`;
}

/** A typed field's value for one sub-question, read like a typed reply (number, label, list, free text). */
export function typedValue(question: Question, text: string | undefined): string[] | undefined {
  const trimmed = text?.trim() ?? "";
  if (trimmed === "") return undefined;
  const reply = parseTextReply([question], trimmed);
  // "skip" or "/cancel" typed into a field is taken literally: the Skip button and /cancel do those.
  return reply.kind === "answer" ? reply.answers[question.id] : [trimmed];
}

/** The answers a submitted modal carries; sub-questions left blank are left out (and reported missing). */
export function modalAnswers(
  record: QuestionRecord,
  modal: DecodedModal,
  fields: ReadonlyMap<string, string>,
): Answers {
  const answers: Answers = {};
  const put = (question: Question | undefined, text: string | undefined) => {
    const values = question && typedValue(question, text);
    if (question && values) answers[question.id] = values;
  };
  if (modal.kind === "other") put(record.questions[modal.sub], fields.get(OTHER_INPUT_ID));
  else {
    for (const [index, question] of record.questions.entries()) put(question, fields.get(formInputId(index)));
  }
  return answers;
}
