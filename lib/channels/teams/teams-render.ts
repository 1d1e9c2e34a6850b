/**
 * What a question looks like in Microsoft Teams: one Adaptive Card. Taps are `Action.Submit`, which Teams
 * delivers as an ordinary message activity whose `value` is the action's data merged with the card's inputs
 * (teams-activity.ts reads it back). `Action.Submit` rather than Universal Actions (`Action.Execute`): every
 * Teams client renders it, and its taps take the same path as everything else the webhook handles — answer
 * 200, then talk through the Bot Connector — instead of an invoke whose HTTP response must carry the card.
 * The data names the question; which option it is, is an index into the record, never a label.
 */

import type { QuestionRecord } from "../../questions/question-record.ts";
import type { Question } from "../../questions/schema.ts";
import { ANSWER_IN_BROWSER } from "../answer-in-browser.ts";
import { outcomeText } from "../replies.ts";
import type { TeamsActivity } from "./teams-api.ts";

export const ADAPTIVE_CARD = "application/vnd.microsoft.card.adaptive";
/** 1.5: the version every current Teams client (desktop, web, mobile) renders. */
const CARD_VERSION = "1.5";

/** What a tap sends back (`value`), besides the card's inputs. `handraise: 1` tells it from other cards. */
export type CardData =
  | { handraise: 1; questionId: string; action: "option"; option: number }
  | { handraise: 1; questionId: string; action: "submit" }
  | { handraise: 1; questionId: string; action: "skip" };

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

const choiceTitle = (option: Question["options"][number]) =>
  option.description ? `${option.label} — ${option.description}` : option.label;

/** A question's heading and text, numbered when the card holds several. */
function questionText(question: Question, index: number, several: boolean): CardElement[] {
  return [
    textBlock(several ? `${index + 1}. ${question.header}` : question.header, {
      weight: "Bolder",
      ...(index > 0 && { spacing: "Large", separator: true }),
    }),
    textBlock(question.question),
  ];
}

/**
 * One single-select question: a button per option (one tap answers), then an own-answer box with Send, and
 * Skip. Anything else — a multi-select question, or several questions — is a form: a choice set per
 * question (`isMultiSelect` for multi-select), an own-answer box each, Submit and Skip. A Submit with nothing
 * chosen for a question is told what is still needed.
 */
export function renderQuestionCard(record: QuestionRecord, answerUrl?: string): CardElement {
  const data = (rest: { action: "submit" | "skip" } | { action: "option"; option: number }): CardData => ({
    handraise: 1,
    questionId: record.id,
    ...rest,
  });
  const several = record.questions.length > 1;
  const [only] = record.questions;
  const buttons = !several && only !== undefined && !only.multiSelect;
  const body: CardElement[] = record.questions.flatMap((question, index) => [
    ...questionText(question, index, several),
    ...(buttons
      ? [
          {
            type: "ActionSet",
            actions: question.options.map((option, optionIndex) => ({
              type: "Action.Submit",
              title: option.label,
              data: data({ action: "option", option: optionIndex }),
            })),
          },
          ...question.options
            .filter((option) => option.description)
            .map((option) => textBlock(choiceTitle(option), { isSubtle: true, spacing: "Small" })),
        ]
      : [
          {
            type: "Input.ChoiceSet",
            id: choiceInputId(index),
            style: "expanded",
            isMultiSelect: question.multiSelect === true,
            choices: question.options.map((option, optionIndex) => ({
              title: choiceTitle(option),
              value: String(optionIndex),
            })),
          },
        ]),
    {
      type: "Input.Text",
      id: otherInputId(index),
      placeholder: question.multiSelect ? "Your own answer (optional)" : "Or type your own answer",
      maxLength: 1000,
    },
  ]);
  return {
    type: "AdaptiveCard",
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    version: CARD_VERSION,
    body,
    actions: [
      { type: "Action.Submit", title: buttons ? "Send" : "Submit", data: data({ action: "submit" }) },
      // Skip ignores whatever was typed or ticked.
      { type: "Action.Submit", title: "Skip", data: data({ action: "skip" }), associatedInputs: "none" },
      ...(answerUrl === undefined
        ? []
        : [{ type: "Action.OpenUrl", title: ANSWER_IN_BROWSER, url: answerUrl }]),
    ],
  };
}

/** A posted card once the question has ended: the questions and the outcome, no inputs, no actions. */
export function renderRetiredCard(record: QuestionRecord): CardElement {
  const several = record.questions.length > 1;
  return {
    type: "AdaptiveCard",
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    version: CARD_VERSION,
    body: [
      ...record.questions.flatMap((question, index) => questionText(question, index, several)),
      textBlock(outcomeText(record), { weight: "Bolder", spacing: "Medium", separator: true }),
    ],
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
