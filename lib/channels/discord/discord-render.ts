/**
 * What a question looks like in Discord: markdown-escaped text (nothing the model, the caller or a user wrote
 * is read as formatting or pings anyone), the question's context (who is asking and why) above the questions
 * in every drawing, with message components, and the modal behind "Other…". A prompt of several
 * questions is shown one step at a time (the stepper of lib/app/handle-inbound.ts). Every custom_id — a
 * button's, the select's, the modal's — is a control of lib/channels/control-codec.ts (≤ 57 of Discord's 100
 * characters; the short question id, never a token).
 */
import { parseTextReply, renderPromptText } from "../../questions/index.ts";
import type { QuestionRecord } from "../../questions/question-record.ts";
import { type Answers, MAX_ANSWER_VALUE_UNITS, type Question } from "../../questions/schema.ts";
import { ANSWER_IN_BROWSER, type BrowserEntry, NO_BROWSER_ENTRY } from "../answer-in-browser.ts";
import { encodeControl } from "../control-codec.ts";
import { fitToLimit } from "../fit.ts";
import { stepAnswers } from "../inbound.ts";
import { PLATFORM_LIMITS } from "../platform-limits.ts";
import { controlOf, promptView, type StepView } from "../prompt-view.ts";
import { replies, type TextFits } from "../replies.ts";

const LIMITS = PLATFORM_LIMITS.discord;

/** Message `content` limit. */
export const MAX_CONTENT = LIMITS.content;

/** Whether a sentence, markdown-escaped, fits a message's content (a notice or a reply). */
export const fitsContent: TextFits = (text) => escapeMarkdown(text).length <= MAX_CONTENT;
/** No mention in a posted question or reply notifies anyone (`@everyone`, `<@id>` in model or user text). */
export const NO_MENTIONS = { parse: [] as string[] };

const ACTION_ROW = 1;
const BUTTON = 2;
const STRING_SELECT = 3;
const TEXT_INPUT = 4;
const LABEL = 18;
const PRIMARY = 1;
const SECONDARY = 2;
/** The option the stepper's draft holds for the step shown. */
const SUCCESS = 3;
const DANGER = 4;
/** A button that opens a URL; Discord sends no interaction for it. */
const LINK = 5;
const PARAGRAPH = 2;

/** The text input of the "Other…" modal. */
export const OTHER_INPUT_ID = "answer";

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

// ── message content ─────────────────────────────────────────────────────────────────────────────────────

/**
 * The plain-text prompt (`renderPromptText`, the context above the questions) of every question, or of step
 * `step` alone with its progress ("2 of 3"), without its last line: that line says how to answer by typing a
 * reply, and Discord does not deliver plain messages to an interactions endpoint (only to a Gateway
 * connection). The Discord guidance line replaces it.
 */
function promptBody(record: QuestionRecord, step?: number): string {
  const view = promptView(record, { step: step ?? 0 });
  const shown = view.step;
  // The step's question is led by where it stands.
  const questions =
    step !== undefined && shown?.progress !== undefined
      ? [{ ...shown.question, header: `${shown.progress} · ${shown.question.header}` }]
      : view.questions;
  const text = renderPromptText(questions, view.context);
  return escapeMarkdown(text.slice(0, text.lastIndexOf("\n\n")));
}

const withinContent = (content: string) => content.length <= MAX_CONTENT;

/**
 * The `content` of a pending question at step `step` (0 for a single question), shortened to fit
 * (lib/channels/fit.ts): descriptions first, then the question's text; never its options or the guidance.
 */
export function promptContent(record: QuestionRecord, step = 0): string {
  const tail = `\n\n${promptView(record, { step }).step?.multiSelect ? replies.discordHowToPick : replies.discordHowToTap}`;
  const content = fitToLimit(record, (shown) => `${promptBody(shown, step)}${tail}`, withinContent);
  return withinContent(content)
    ? content
    : `${clip(promptBody(record, step), MAX_CONTENT - tail.length)}${tail}`;
}

/**
 * A retired copy's `content`: every question, then how it ended (its controls are removed with it), shortened
 * to fit without ever losing the outcome line or a question's header and answer in it.
 */
export function retiredContent(record: QuestionRecord, voter?: string): string {
  return fitToLimit(
    record,
    (shown) => `${promptBody(shown)}\n\n${escapeMarkdown(promptView(shown, { voter }).outcome)}`,
    withinContent,
    { ended: true },
  );
}

// ── components ──────────────────────────────────────────────────────────────────────────────────────────

type Component = Record<string, unknown>;

const button = (label: string, customId: string, style = SECONDARY): Component => ({
  type: BUTTON,
  style,
  label: clip(label, LIMITS.buttonLabel),
  custom_id: customId,
});

/** "Answer in browser" as a link button: Discord opens the URL and sends Handraise nothing. */
const linkButton = (url: string): Component => ({ type: BUTTON, style: LINK, label: ANSWER_IN_BROWSER, url });

/**
 * Step `step` of the prompt (a single question is step 0 of 1). A single-select step: a button per option
 * (≤ 4), the one the draft holds green. A multi-select step: a string select (`min_values: 1, max_values: n`;
 * it submits once, so nothing toggles), the draft's options selected. Then Other…, Back from the second step
 * on, "Answer in browser" when the answer page is on, and Skip. "Answer in browser" (`browser`,
 * lib/channels/answer-in-browser.ts) is a link button with its answerer's own link in a DM with that person,
 * and anywhere else a button whose tap hands the tapper their own link in a reply only they see.
 */
export function renderComponents(
  record: QuestionRecord,
  browser: BrowserEntry = NO_BROWSER_ENTRY,
  step = 0,
): Component[] {
  return componentsOf(promptView(record, { step, browser }).step);
}

/** The view's step as Discord's two rows: the choices (buttons or one select), then the step's controls. */
function componentsOf(shown: StepView | undefined): Component[] {
  if (!shown) return [];
  const choose = controlOf(shown, "choose");
  const firstRow: Component[] = choose
    ? [
        {
          type: STRING_SELECT,
          custom_id: encodeControl(choose.control),
          placeholder: choose.label,
          min_values: 1,
          max_values: shown.choices.length,
          options: shown.choices.map((choice) => ({
            label: clip(choice.label, LIMITS.selectOptionText),
            value: String(choice.index),
            ...(choice.description !== undefined && {
              description: clip(choice.description, LIMITS.selectOptionText),
            }),
            ...(choice.chosen && { default: true }),
          })),
        },
      ]
    : shown.choices.map((choice) =>
        button(choice.label, encodeControl(choice.control), choice.chosen ? SUCCESS : PRIMARY),
      );
  // The select submits once, so there is nothing to toggle and no Done; the form is Slack's.
  const secondRow = shown.controls.flatMap((c): Component[] => {
    if (c.kind === "link") return [linkButton(c.url)];
    if (c.kind === "other" || c.kind === "back" || c.kind === "browser")
      return [button(c.label, encodeControl(c.control))];
    return c.kind === "skip" ? [button(c.label, encodeControl(c.control), DANGER)] : [];
  });
  return [
    { type: ACTION_ROW, components: firstRow },
    { type: ACTION_ROW, components: secondRow },
  ];
}

/** A pending question's message at step `step`: posted as step 0, redrawn in place as the person steps. */
export function promptMessage(record: QuestionRecord, step: number, browser: BrowserEntry) {
  return {
    content: promptContent(record, step),
    components: renderComponents(record, browser, step),
    allowed_mentions: NO_MENTIONS,
  };
}

/** The reply (the webhook makes it ephemeral) that hands a tapper of "Answer in browser" their own link. */
export function ownLinkMessage(url: string) {
  return {
    content: escapeMarkdown(replies.yourOwnLink),
    components: [{ type: ACTION_ROW, components: [linkButton(url)] }],
    allowed_mentions: NO_MENTIONS,
  };
}

// ── the "Other…" modal (interaction response type 9) ────────────────────────────────────────────────────

/**
 * One text input for sub-question `sub`'s own answer. Its custom_id is the Other… control it was opened by,
 * so the submission names the question and the step to move on from.
 */
export function otherModal(record: QuestionRecord, sub: number): Component {
  const question = record.questions[sub];
  return {
    custom_id: encodeControl({ kind: "other", questionId: record.id, questionIndex: sub, optionIndex: 0 }),
    title: clip(`${replies.yourAnswer}: ${question?.header ?? ""}`, LIMITS.modalTitle),
    components: [
      {
        type: LABEL,
        label: clip(question?.header ?? replies.yourAnswer, LIMITS.labelText),
        description: clip(question?.question ?? "", LIMITS.labelDescription),
        component: {
          type: TEXT_INPUT,
          custom_id: OTHER_INPUT_ID,
          style: PARAGRAPH,
          required: true,
          // As much as an own answer may be (lib/questions/schema.ts), where Discord allows it.
          max_length: Math.min(MAX_ANSWER_VALUE_UNITS, LIMITS.textInputMaxLength),
        },
      },
    ],
  };
}

/** A typed value for one sub-question, read like a typed reply (number, label, list, free text). */
export function typedValue(question: Question, text: string | undefined): string[] | undefined {
  const trimmed = text?.trim() ?? "";
  if (trimmed === "") return undefined;
  const reply = parseTextReply([question], trimmed);
  // "skip" or "/cancel" typed into the field is taken literally: the Skip button and /cancel do those.
  return reply.kind === "answer" ? reply.answers[question.id] : [trimmed];
}

/** The answer a submitted Other… modal carries for sub-question `sub`; none when left blank. */
export function otherAnswer(
  record: QuestionRecord,
  sub: number,
  fields: ReadonlyMap<string, string>,
): Answers {
  return stepAnswers(record, sub, (question) => typedValue(question, fields.get(OTHER_INPUT_ID)));
}
