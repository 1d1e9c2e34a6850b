/**
 * What a question looks like in Microsoft Teams: one Adaptive Card, which shows one question at a time (a
 * prompt of several is a stepper: the same card is replaced at each step). Taps are `Action.Submit`, which
 * Teams delivers as an ordinary message activity whose `value` is the action's data merged with the card's
 * inputs (teams-activity.ts reads it back). `Action.Submit` rather than Universal Actions (`Action.Execute`):
 * every Teams client renders it, and its taps take the same path as everything else the webhook handles —
 * answer 200, then talk through the Bot Connector — instead of an invoke whose HTTP response must carry the
 * card. The data is one control-codec.ts string: which question, which step, which option (an index into the
 * record, never a label). The question's context (who is asking and why) heads every card: each step, and the
 * ended card.
 */

import type { QuestionRecord } from "../../questions/question-record.ts";
import { MAX_ANSWER_VALUE_UNITS, type Question } from "../../questions/schema.ts";
import { ANSWER_IN_BROWSER, type BrowserEntry, NO_BROWSER_ENTRY } from "../answer-in-browser.ts";
import { type Control, encodeControl } from "../control-codec.ts";
import { fitToLimit } from "../fit.ts";
import { PLATFORM_LIMITS, utf16JsonBytes } from "../platform-limits.ts";
import { linkOf, promptView, type StepView } from "../prompt-view.ts";
import { replies, type TextFits } from "../replies.ts";
import type { TeamsActivity } from "./teams-api.ts";

export const ADAPTIVE_CARD = "application/vnd.microsoft.card.adaptive";
/** 1.5: the version every current Teams client (desktop, web, mobile) renders. */
const CARD_VERSION = "1.5";

/** What a tap sends back (`value`), besides the card's inputs: `handraise` tells it from other cards' data. */
export interface CardData {
  handraise: string;
}

/** The input ids of the card: a question's choice set and its own-answer box, by question position. */
export const choiceInputId = (index: number) => `choice${index}`;
export const otherInputId = (index: number) => `other${index}`;

type CardElement = Record<string, unknown>;

/**
 * Makes model- and user-written text show literally in a TextBlock, which renders a subset of Markdown
 * (emphasis, links, lists): emphasis and link brackets are backslash-escaped anywhere, list and heading
 * markers at the start of a line, so a label cannot become a link or bold text. Plain punctuation is left
 * alone, since a client that shows an escape literally would show every backslash.
 */
export function escapeCardText(text: string): string {
  return text
    .replace(/[\\`*_[\]~]/g, "\\$&")
    .replace(/^(\s*)(\d+)\./gm, "$1$2\\.")
    .replace(/^(\s*)([-+#>])/gm, "$1\\$2");
}

const textBlock = (text: string, extra: CardElement = {}): CardElement => ({
  type: "TextBlock",
  text: escapeCardText(text),
  wrap: true,
  ...extra,
});

/**
 * The question's context as the card's first block, if it has one. A TextBlock joins single line breaks (it
 * is Markdown): each of the context's lines becomes a paragraph of its own.
 */
function contextBlocks(record: QuestionRecord): CardElement[] {
  if (record.context === undefined) return [];
  const block = textBlock(record.context);
  return [{ ...block, text: String(block.text).replace(/\n/g, "\n\n") }];
}

const choiceTitle = (option: { label: string; description?: string | undefined }) =>
  option.description ? `${option.label} — ${option.description}` : option.label;

/** A question's heading and text (numbered on the retired card when it held several). */
function questionText(question: Question, index: number, numbered: boolean): CardElement[] {
  return [
    textBlock(numbered ? `${index + 1}. ${question.header}` : question.header, {
      weight: "Bolder",
      ...(index > 0 && numbered && { spacing: "Large", separator: true }),
    }),
    textBlock(question.question),
  ];
}

/** An `Action.Submit` whose data is the control; `withInputs: false` sends none of what was ticked or typed. */
function submit(title: string, control: Control, withInputs = true): CardElement {
  const data: CardData = { handraise: encodeControl(control) };
  return {
    type: "Action.Submit",
    title,
    data,
    ...(!withInputs && { associatedInputs: "none" }),
  };
}

/**
 * The card at one step of the prompt (step 0 for a prompt of one question): the question's context, its
 * progress ("2 of 3") when there are several, the question, and its controls. A single-select question gets
 * a button per option (one tap answers it and moves on) and an own-answer box with Send; a multi-select one
 * a choice set (tick one or more) and an own-answer box, both sent with Done. Then Back (from the second
 * step on), Skip, and — on a personal chat's card only — its answerer's link to the answer page (`browser`):
 * Teams has no message one member of a group alone sees, so a shared card has no way to hand anyone a link,
 * and shows no browser control at all. What the draft already holds for the question (an earlier pass, then
 * Back) is shown chosen: its button highlighted, its boxes ticked, its typed text in the box.
 */
export function renderQuestionCard(
  record: QuestionRecord,
  options: { step?: number; browser?: BrowserEntry } = {},
): CardElement {
  // Shortened to fit one activity (lib/channels/fit.ts): descriptions first, then the question's text.
  return fitToLimit(record, (shown) => questionCard(shown, options), cardFits);
}

/**
 * The room a card may take: one activity as the Bot Framework counts it, less what the Bot Connector call
 * adds to it (the activity's id, or the one it replies to).
 */
const ACTIVITY_ROOM = PLATFORM_LIMITS.teams.activityBytes - 1024;

const cardFits = (card: CardElement) => utf16JsonBytes(cardActivity(card)) <= ACTIVITY_ROOM;

/** Whether a notice, escaped, fits one activity. */
export const fitsActivity: TextFits = (text) => utf16JsonBytes(textActivity(text)) <= ACTIVITY_ROOM;

function questionCard(
  record: QuestionRecord,
  options: { step?: number; browser?: BrowserEntry },
): CardElement {
  const view = promptView(record, { step: options.step ?? 0, browser: options.browser ?? NO_BROWSER_ENTRY });
  const shown = view.step;
  if (!shown) throw new Error(`the question has no step ${options.step ?? 0}`);
  const { question, index: step } = shown;
  const chosen = shown.choices.filter((choice) => choice.chosen).map((choice) => choice.index);
  const typed = shown.typed.join(", ");
  const body: CardElement[] = [
    ...contextBlocks(record),
    ...(shown.progress !== undefined ? [textBlock(shown.progress, { isSubtle: true, size: "Small" })] : []),
    ...questionText(question, step, false),
    ...(shown.multiSelect
      ? [
          {
            type: "Input.ChoiceSet",
            id: choiceInputId(step),
            style: "expanded",
            isMultiSelect: true,
            choices: shown.choices.map((choice) => ({
              title: choiceTitle(choice),
              value: String(choice.index),
            })),
            ...(chosen.length > 0 && { value: chosen.join(",") }),
          },
        ]
      : [
          {
            type: "ActionSet",
            actions: shown.choices.map((choice) => ({
              ...submit(choice.label, choice.control, false),
              ...(choice.chosen && { style: "positive" }),
            })),
          },
          ...shown.choices
            .filter((choice) => choice.description)
            .map((choice) => textBlock(choiceTitle(choice), { isSubtle: true, spacing: "Small" })),
        ]),
    {
      type: "Input.Text",
      id: otherInputId(step),
      placeholder: replies.other,
      maxLength: MAX_ANSWER_VALUE_UNITS,
      ...(typed !== "" && { value: typed }),
    },
  ];
  return {
    type: "AdaptiveCard",
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    version: CARD_VERSION,
    body,
    actions: cardActions(shown),
  };
}

/**
 * The card's actions: Done (a multi-select) or Send (the own-answer box of a single-select, Other…'s
 * control), Back, Skip, and a private card's link. Teams has no message one member of a group alone sees,
 * so the shared control is not drawn, nor the form (the card is one already).
 */
function cardActions(step: StepView): CardElement[] {
  const actions = step.controls.flatMap((c): CardElement[] => {
    if (c.kind === "done" || c.kind === "back") return [submit(c.label, c.control, c.kind === "done")];
    if (c.kind === "other" && !step.multiSelect) return [submit(replies.send, c.control)];
    // Skip ignores whatever was typed or ticked.
    if (c.kind === "skip") return [submit(c.label, c.control, false)];
    return [];
  });
  const link = linkOf(step);
  return link ? [...actions, { type: "Action.OpenUrl", title: link.label, url: link.url }] : actions;
}

/**
 * A card once its question has ended: the context, the questions, the outcome; no inputs, no actions —
 * shortened to fit one activity, never losing the outcome line or a question's header and answer in it.
 */
export function renderRetiredCard(record: QuestionRecord, voter?: string): CardElement {
  return fitToLimit(record, (shown) => retiredCard(shown, voter), cardFits, { ended: true });
}

function retiredCard(record: QuestionRecord, voter: string | undefined): CardElement {
  const several = record.questions.length > 1;
  return {
    type: "AdaptiveCard",
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    version: CARD_VERSION,
    body: [
      ...contextBlocks(record),
      ...record.questions.flatMap((question, index) => questionText(question, index, several)),
      textBlock(promptView(record, { voter }).outcome, {
        weight: "Bolder",
        spacing: "Medium",
        separator: true,
      }),
    ],
  };
}

/**
 * A person's own answer link, handed over in their one-to-one conversation with the bot (never in a shared
 * one: everyone there would see it).
 */
export function renderOwnLinkCard(url: string): CardElement {
  return {
    type: "AdaptiveCard",
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    version: CARD_VERSION,
    body: [textBlock(replies.yourOwnLink)],
    actions: [{ type: "Action.OpenUrl", title: ANSWER_IN_BROWSER, url }],
  };
}

export const cardActivity = (content: CardElement): TeamsActivity => ({
  type: "message",
  attachments: [{ contentType: ADAPTIVE_CARD, content }],
});

/** A plain notice (not yours, already answered, still needed); Teams shows message text as Markdown. */
export const textActivity = (text: string): TeamsActivity => ({
  type: "message",
  text: escapeCardText(text),
});
