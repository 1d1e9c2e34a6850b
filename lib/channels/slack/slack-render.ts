/**
 * What a question looks like in Slack (Block Kit): the plain prompt of every channel as an mrkdwn section —
 * escaped, so nothing the model, the caller or a user wrote becomes a mention, a link or a channel ping —
 * with the question's context (who is asking and why) above the questions in every drawing, and the
 * controls that fit its shape:
 * - one single-select question: a button per option, "Other…" (a modal with a text box) and "Skip";
 * - one multi-select question: checkboxes, "Done" (reads the ticked boxes from `state.values`), "Other…",
 *   "Skip";
 * - several questions: a stepper, one question at a time — its header and question, "1 of 3", that
 *   question's controls as above, "Back" from the second on, "Answer in a form" (a modal with every question)
 *   and "Skip"; each step's answer is kept as the record's draft and shown chosen when the step is drawn again;
 * - with the answer page on, every shape also has "Answer in browser" (lib/channels/answer-in-browser.ts): in
 *   the app's DM with the person it was posted for, a link button with their own link (Slack still reports the
 *   tap, as an action Handraise ignores); anywhere else a control button, whose tap hands the tapper their own
 *   link in an ephemeral message (`renderOwnLink`) — never a link in a message others can read.
 * Every action_id is a control of lib/channels/control-codec.ts (its value is the same string); no two
 * controls of a message share one. A typed reply works for every shape, as the message's `text` says.
 */
import { renderPromptText } from "../../questions/index.ts";
import type { QuestionRecord } from "../../questions/question-record.ts";
import { MAX_ANSWER_VALUE_UNITS, type Question } from "../../questions/schema.ts";
import { ANSWER_IN_BROWSER, type BrowserEntry, NO_BROWSER_ENTRY } from "../answer-in-browser.ts";
import { encodeControl } from "../control-codec.ts";
import { fitToLimit } from "../fit.ts";
import { PLATFORM_LIMITS } from "../platform-limits.ts";
import { controlOf, promptView, type StepView } from "../prompt-view.ts";
import { replies, type TextFits, withCancelCommand } from "../replies.ts";

/** The slash command of infra/slack/manifest.yml: `/handraise cancel`, `/handraise question`. */
export const SLASH_COMMAND = "/handraise";

export type SlackBlock = Record<string, unknown>;

/** Block Kit's limit on a section's text (and what Slack recommends for a message's `text`). */
const TEXT_LIMIT = PLATFORM_LIMITS.slack.sectionText;
/** Block Kit's limits on an input's label and a checkbox option's description. */
const LABEL_LIMIT = PLATFORM_LIMITS.slack.inputLabel;
const DESCRIPTION_LIMIT = PLATFORM_LIMITS.slack.optionDescription;

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

// ── Messages ───────────────────────────────────────────────────────────────────────────────────────────

const button = (text: string, id: string, style?: "primary") => ({
  type: "button",
  action_id: id,
  text: plain(text),
  value: id,
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

/** The action id of the "Answer in browser" link button: not a control of the codec, so taps are ignored. */
export const LINK_ACTION_ID = "hr_link";

const linkButton = (url: string) => ({
  type: "button",
  action_id: LINK_ACTION_ID,
  text: plain(ANSWER_IN_BROWSER),
  url,
});

/** The mark on the option a step's draft holds (not a sentence: a sign beside the label). */
const CHOSEN_MARK = "✓ ";

/**
 * The actions block of the view's step (step 0 for a single question): a button per option (the chosen one
 * marked and primary), or checkboxes (the chosen ones ticked) and Done; then the step's other controls in the
 * view's order — Other…, Back, Answer in a form, Answer in browser (its answerer's link, or the control), Skip.
 */
function actions(step: StepView): SlackBlock {
  const chosen = step.choices.filter((choice) => choice.chosen).map((choice) => choice.index);
  const elements: SlackBlock[] = [];
  const choose = controlOf(step, "choose");
  if (choose) {
    const options = checkboxOptions(step.question, (_, i) => `${i}`);
    const ticked = options.filter((_, i) => chosen.includes(i));
    elements.push({
      type: "checkboxes",
      action_id: encodeControl(choose.control),
      options,
      ...(ticked.length > 0 && { initial_options: ticked }),
    });
  } else {
    for (const choice of step.choices) {
      const label = choice.chosen ? `${CHOSEN_MARK}${choice.label}` : choice.label;
      elements.push(button(label, encodeControl(choice.control), choice.chosen ? "primary" : undefined));
    }
  }
  for (const c of step.controls) {
    if (c.kind === "link") elements.push(linkButton(c.url));
    else if (c.kind !== "choose")
      elements.push(button(c.label, encodeControl(c.control), c.kind === "done" ? "primary" : undefined));
  }
  // Slack keeps a message's input state per block_id: a step drawn with other ticks needs a fresh one.
  return { type: "actions", block_id: `q|${step.index}|${chosen.join(".")}`, elements };
}

/** Whether escaped text fits one section (what a notice, a section and a message's `text` are held to). */
export const fitsSection: TextFits = (text) => escapeMrkdwn(text).length <= TEXT_LIMIT;

/** The plain prompt with Slack's own way to cancel. */
const promptWithCommand = (record: QuestionRecord) =>
  withCancelCommand(renderPromptText(record.questions, record.context), SLASH_COMMAND);

/**
 * The message's `text` and section: the plain prompt (notifications, and how to answer by typing) with
 * Slack's own way to cancel, escaped and shortened to fit (lib/channels/fit.ts).
 */
export function renderText(record: QuestionRecord): string {
  return fitMrkdwn(fitToLimit(record, promptWithCommand, fitsSection), TEXT_LIMIT);
}

/**
 * The blocks of a pending question: one question — the prompt and its controls; several — step `step` of
 * the stepper (the context, its header and question, "2 of 3", its controls with the draft's choice
 * marked). `browser` is what the copy offers for the answer page: its answerer's link, the control, or
 * nothing.
 */
export function renderBlocks(
  record: QuestionRecord,
  browser: BrowserEntry = NO_BROWSER_ENTRY,
  step = 0,
): SlackBlock[] {
  const shown = promptView(record, { step, browser }).step;
  if (!shown) return [section(renderText(record))];
  if (shown.progress === undefined) return [section(renderText(record)), actions(shown)];
  return [
    ...stepSections(record, shown.index),
    { type: "context", elements: [plain(shown.progress)] },
    actions(shown),
  ];
}

/**
 * A step's text: the context, the question under its header (the progress follows it). A context is at most 500
 * characters (an entity each: 2,500) and a header 12 (60): the question's text gives way first if need be.
 */
function stepSections(record: QuestionRecord, step: number): SlackBlock[] {
  const sections = (record: QuestionRecord) => {
    const shown = promptView(record, { step });
    const question = shown.step?.question as Question;
    return [
      ...(shown.context === undefined ? [] : [escapeMrkdwn(shown.context)]),
      `*${escapeMrkdwn(question.header)}*\n${escapeMrkdwn(question.question)}`,
    ];
  };
  const texts = fitToLimit(record, sections, (all) => all.every((text) => text.length <= TEXT_LIMIT));
  return texts.map((text) => section(text.length <= TEXT_LIMIT ? text : fitMrkdwn(text, TEXT_LIMIT, false)));
}

/**
 * The ephemeral message that hands a tapper of "Answer in browser" their own link: the sentence, and the link
 * as a button (its `url` is sent as it is, where mrkdwn would need the link's `&` escaped).
 */
export function renderOwnLink(url: string): { text: string; blocks: SlackBlock[] } {
  const text = escapeMrkdwn(replies.yourOwnLink);
  return { text, blocks: [section(text), { type: "actions", elements: [linkButton(url)] }] };
}

/**
 * An ended question's `text` and only block: the prompt and the outcome — no controls — shortened to fit one
 * section, never losing the outcome (lib/channels/fit.ts).
 */
export function renderRetiredText(record: QuestionRecord, voter?: string): string {
  const text = fitToLimit(
    record,
    (shown) =>
      `${renderPromptText(shown.questions, shown.context)}\n\n${promptView(shown, { voter }).outcome}`,
    fitsSection,
    { ended: true },
  );
  return fitMrkdwn(text, TEXT_LIMIT);
}

export function renderRetiredBlocks(record: QuestionRecord, voter?: string): SlackBlock[] {
  return [section(renderRetiredText(record, voter))];
}

// ── Modals ─────────────────────────────────────────────────────────────────────────────────────────────
// Input blocks are named `c|<question id>` (a select or checkboxes, action `choice`, values = option
// labels) and `t|<question id>` (a text box, action `text`). private_metadata carries what a
// view_submission does not include: the question id, the channel and, for an Other… opened on a step of the
// stepper, that step and the message to redraw.

export const MODAL_CALLBACK_ID = "hr_answer";

/** What a modal remembers of where it was opened (its private_metadata). */
export interface ModalOrigin {
  /** The question id. */
  q: string;
  /** The channel. */
  c: string;
  /** The stepper's step an Other… was opened on. */
  s?: number;
  /** That step's message `ts`. */
  m?: string;
}

/**
 * "Other…" (`questionIndex` given): one required text box for that sub-question. "Answer in a form": per
 * sub-question a select (checkboxes when multi-select) and a text box for an own answer, both optional —
 * the webhook reports a question left without either.
 */
export function renderModal(
  record: QuestionRecord,
  origin: Omit<ModalOrigin, "q">,
  questionIndex?: number,
): SlackBlock {
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
      label: plain(other ? title : replies.orYourOwnAnswer),
      element: {
        type: "plain_text_input",
        action_id: "text",
        multiline: true,
        // As much as an own answer may be (lib/questions/schema.ts), where Slack allows it.
        max_length: Math.min(MAX_ANSWER_VALUE_UNITS, PLATFORM_LIMITS.slack.textInputMaxLength),
      },
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
  const metadata: ModalOrigin = { q: record.id, ...origin };
  return {
    type: "modal",
    callback_id: MODAL_CALLBACK_ID,
    private_metadata: JSON.stringify(metadata),
    title: plain(replies.yourAnswer),
    submit: plain(replies.submitForm),
    close: plain(replies.closeForm),
    blocks,
  };
}

/** The modal's origin (ours: set when it was opened); undefined if it is not one. */
export function readModalOrigin(raw: string | undefined): ModalOrigin | undefined {
  try {
    const { q, c, s, m } = JSON.parse(raw ?? "") as Record<string, unknown>;
    if (typeof q !== "string" || typeof c !== "string") return undefined;
    return {
      q,
      c,
      ...(Number.isInteger(s) && { s: s as number }),
      ...(typeof m === "string" && { m }),
    };
  } catch {
    return undefined;
  }
}
