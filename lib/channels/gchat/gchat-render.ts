/**
 * What a question looks like in Google Chat: one card (cards v2) that shows one question at a time (a prompt
 * of several is a stepper: the same message is updated at each step). A single-select question gets a
 * button per option (one tap answers it and moves on); a multi-select one a checkbox group sent with Done;
 * both an own-answer box sent with Send. Then Back (from the second step), the answer page (the answerer's
 * own link on a copy in their direct message with the app, the "Answer in browser" button on a shared one,
 * whose tap hands the tapper their own link in a private message) and Skip. Every button's action carries
 * one control-codec.ts string as its `control` parameter; Chat sends the card's inputs with every click.
 *
 * Card text is Chat's HTML subset, so every text from the question is HTML-escaped; button labels are plain.
 */
import type { QuestionRecord } from "../../questions/question-record.ts";
import type { Question } from "../../questions/schema.ts";
import { type BrowserEntry, NO_BROWSER_ENTRY } from "../answer-in-browser.ts";
import { type Control, encodeControl } from "../control-codec.ts";
import { fitToLimit } from "../fit.ts";
import { PLATFORM_LIMITS, utf8Bytes } from "../platform-limits.ts";
import { promptView, type StepView } from "../prompt-view.ts";
import { replies, type TextFits } from "../replies.ts";
import type { GchatMessage } from "./gchat-api.ts";

/** The action every button of a question card invokes (an HTTP endpoint app gets it as `invokedFunction`). */
export const CARD_FUNCTION = "handraise";
/** The action parameter that carries the control-codec.ts string. */
export const CONTROL_PARAMETER = "control";
/** The card's id in `cardsV2` (one card per message). */
const CARD_ID = "handraise";

/** The input names of a step: its checkbox group and its own-answer box, by question position. */
export const choiceInputName = (index: number) => `choice${index}`;
export const otherInputName = (index: number) => `other${index}`;

type Widget = Record<string, unknown>;

/** Text shown literally in a card's formatted text (Chat's HTML subset). */
export function escapeCardText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\n/g, "<br>");
}

/**
 * Text shown as a plain message: Chat reads `<users/all>`, `<url|label>` and `*bold*` in it. A zero-width
 * space after each `<` keeps a mention or a link written by a model or a person from acting as one.
 */
export function escapeMessageText(text: string): string {
  return text.replace(/</g, "<\u200b");
}

const paragraph = (text: string): Widget => ({ textParagraph: { text: escapeCardText(text) } });
const bold = (text: string): Widget => ({ textParagraph: { text: `<b>${escapeCardText(text)}</b>` } });

function button(label: string, control: Control, filled = false): Widget {
  return {
    text: label,
    ...(filled && { type: "FILLED" }),
    onClick: {
      action: {
        function: CARD_FUNCTION,
        parameters: [{ key: CONTROL_PARAMETER, value: encodeControl(control) }],
      },
    },
  };
}

const contextSection = (record: QuestionRecord) =>
  record.context === undefined ? [] : [{ widgets: [paragraph(record.context)] }];

const choiceText = (choice: { label: string; description?: string | undefined }) =>
  choice.description ? `${choice.label} — ${choice.description}` : choice.label;

function questionCard(record: QuestionRecord, options: { step?: number; browser?: BrowserEntry }) {
  const view = promptView(record, { step: options.step ?? 0, browser: options.browser ?? NO_BROWSER_ENTRY });
  const shown = view.step;
  if (!shown) throw new Error(`the question has no step ${options.step ?? 0}`);
  const { question, index } = shown;
  const typed = shown.typed.join(", ");
  const widgets: Widget[] = [
    bold(question.header),
    paragraph(question.question),
    ...(shown.multiSelect
      ? [
          {
            selectionInput: {
              name: choiceInputName(index),
              label: replies.chooseOneOrMore,
              type: "CHECK_BOX",
              items: shown.choices.map((choice) => ({
                text: choiceText(choice),
                value: String(choice.index),
                selected: choice.chosen,
              })),
            },
          },
        ]
      : [
          {
            buttonList: {
              buttons: shown.choices.map((choice) => button(choice.label, choice.control, choice.chosen)),
            },
          },
          ...shown.choices
            .filter((choice) => choice.description)
            .map((choice) => paragraph(choiceText(choice))),
        ]),
    {
      textInput: {
        name: otherInputName(index),
        label: replies.other,
        type: "SINGLE_LINE",
        ...(typed !== "" && { value: typed }),
      },
    },
    { buttonList: { buttons: stepButtons(shown) } },
  ];
  return {
    ...(shown.progress !== undefined && { header: { title: shown.progress } }),
    sections: [...contextSection(record), { widgets }],
  };
}

/**
 * The step's buttons: Done (a multi-select) or Send (the own-answer box, Other…'s control), Back, the answer
 * page (the link, or the shared button), Skip. The card is a form already: no "Answer in a form".
 */
function stepButtons(step: StepView): Widget[] {
  return step.controls.flatMap((c): Widget[] => {
    if (c.kind === "done" || c.kind === "back" || c.kind === "skip" || c.kind === "browser") {
      return [button(c.label, c.control)];
    }
    if (c.kind === "other" && !step.multiSelect) return [button(replies.send, c.control)];
    if (c.kind === "link") return [{ text: c.label, onClick: { openLink: { url: c.url } } }];
    return [];
  });
}

function retiredCard(record: QuestionRecord, voter: string | undefined) {
  const several = record.questions.length > 1;
  const questionWidgets = (question: Question, index: number) => [
    bold(several ? `${index + 1}. ${question.header}` : question.header),
    paragraph(question.question),
  ];
  return {
    sections: [
      ...contextSection(record),
      { widgets: record.questions.flatMap(questionWidgets) },
      { widgets: [bold(promptView(record, { voter }).outcome)] },
    ],
  };
}

const cardMessage = (card: Record<string, unknown>): GchatMessage => ({
  cardsV2: [{ cardId: CARD_ID, card }],
});

/** Whether a message fits one Chat message: its text, and the whole message as Chat measures it. */
export function fitsMessage(message: GchatMessage): boolean {
  const limits = PLATFORM_LIMITS.gchat;
  return (
    (message.text ?? "").length <= limits.text && utf8Bytes(JSON.stringify(message)) <= limits.messageBytes
  );
}

/** The question at one step (step 0 for a prompt of one question), shortened to fit one message. */
export function renderQuestionMessage(
  record: QuestionRecord,
  options: { step?: number; browser?: BrowserEntry } = {},
): GchatMessage {
  return fitToLimit(record, (shown) => cardMessage(questionCard(shown, options)), fitsMessage);
}

/**
 * A copy once its question has ended (or its `voter` has voted): the questions and the outcome, no inputs,
 * no buttons.
 */
export function renderRetiredMessage(record: QuestionRecord, voter?: string): GchatMessage {
  return fitToLimit(record, (shown) => cardMessage(retiredCard(shown, voter)), fitsMessage, { ended: true });
}

/** A plain message (a notice, a reminder), escaped. */
export const textMessage = (text: string): GchatMessage => ({ text: escapeMessageText(text) });

/** Whether a notice, escaped, fits one message. */
export const fitsText: TextFits = (text) => fitsMessage(textMessage(text));
