/**
 * What a question looks like in WhatsApp, from the shared prompt view (../prompt-view.ts). WhatsApp cannot
 * edit a sent message, so each step of a stepper is a message of its own, and nothing is redrawn in place:
 * - a single-select step is an interactive list: its body the step's prompt text (the numbered options in
 *   full, and how to answer by typing), its rows the options, then Other…, Back (from the second step), the
 *   "Answer in browser" control on a copy that is not its reader's own, and Skip;
 * - a multi-select step is typed: WhatsApp has no control that picks several (a list sends one row; reply
 *   buttons are at most 3 and can't show what is ticked, since the message can't be edited), and the prompt
 *   already asks for comma-separated numbers ("1, 3"). Its reply buttons are Back, the browser control and
 *   Skip.
 * On the answerer's own copy the link to the answer page is a line of the body (WhatsApp shows it as a link).
 * Every row's and button's id is the shared control codec (../control-codec.ts); every label is the reply
 * catalog's. Payloads fit WhatsApp's limits (../platform-limits.ts): the body by ../fit.ts, a row title cut
 * with its whole label in the description.
 */
import type { QuestionRecord } from "../../questions/question-record.ts";
import { cutText } from "../../questions/text.ts";
import { type BrowserEntry, NO_BROWSER_ENTRY } from "../answer-in-browser.ts";
import { encodeControl } from "../control-codec.ts";
import { fitToLimit } from "../fit.ts";
import { PLATFORM_LIMITS } from "../platform-limits.ts";
import { type ChoiceView, promptView, type StepControl, stepPromptText } from "../prompt-view.ts";
import { answerLinkLine, replies, type TextFits } from "../replies.ts";

const LIMITS = PLATFORM_LIMITS.whatsapp;

/** A message as the messages endpoint takes it, less its recipient and context (./whatsapp-api.ts). */
export type WhatsappMessage = Record<string, unknown>;

/** Whether a text message's body is within WhatsApp's limit. */
export const fitsText: TextFits = (text) => text.length <= LIMITS.text;
const fitsBody: TextFits = (text) => text.length <= LIMITS.body;

/** The controls of a step WhatsApp draws, in the view's order: those it has no way for are left out. */
const DRAWN = new Set<StepControl["kind"]>(["other", "back", "browser", "skip"]);

/** A plain text message (no link preview: the link to the answer page is its reader's alone). */
export function textMessage(body: string): WhatsappMessage {
  return { type: "text", text: { body: cutText(body, LIMITS.text), preview_url: false } };
}

/**
 * Step `questionIndex` of the prompt, as posted: a list (single-select) or reply buttons (multi-select).
 * `browser`: the answerer's own link on their own copy, the control on anyone else's, or none.
 */
export function renderStep(
  record: QuestionRecord,
  questionIndex: number,
  browser: BrowserEntry = NO_BROWSER_ENTRY,
): WhatsappMessage {
  const view = promptView(record, { step: questionIndex, browser });
  const step = view.step;
  const body = {
    text: fitToLimit(
      record,
      (shown) => withLink(stepPromptText(promptView(shown, { step: questionIndex })), browser),
      fitsBody,
    ),
  };
  const controls = (step?.controls ?? []).filter(
    (c): c is StepControl => c.kind !== "link" && DRAWN.has(c.kind),
  );
  if (!step || step.multiSelect) {
    const buttons = controls
      .filter((c) => c.kind !== "other")
      .slice(-LIMITS.replyButtons)
      .map((c) => ({
        type: "reply",
        reply: { id: encodeControl(c.control), title: cutText(c.label, LIMITS.buttonTitle) },
      }));
    return { type: "interactive", interactive: { type: "button", body, action: { buttons } } };
  }
  const rows = [
    ...step.choices.map(choiceRow),
    ...controls.map((c) => ({ id: encodeControl(c.control), title: cutText(c.label, LIMITS.rowTitle) })),
  ].slice(0, LIMITS.listRows);
  return {
    type: "interactive",
    interactive: {
      type: "list",
      body,
      action: { button: cutText(replies.chooseInList, LIMITS.listButton), sections: [{ rows }] },
    },
  };
}

/** An option's row: its label as the title, and when the title cannot hold it, the whole label below. */
function choiceRow(choice: ChoiceView) {
  const cut = choice.label.length > LIMITS.rowTitle;
  const below = cut
    ? [choice.label, choice.description].filter(Boolean).join(" — ")
    : (choice.description ?? "");
  return {
    id: encodeControl(choice.control),
    title: cutText(choice.label, LIMITS.rowTitle),
    ...(below !== "" && { description: cutText(below, LIMITS.rowDescription) }),
  };
}

function withLink(prompt: string, browser: BrowserEntry): string {
  return browser.kind === "link" ? `${prompt}\n\n${answerLinkLine(browser.url)}` : prompt;
}

/**
 * The message template sent in place of the question when WhatsApp's 24-hour window is closed: its body's
 * two parameters are the first question's header and the answerer's own link.
 */
export function renderTemplate(
  record: QuestionRecord,
  template: { name: string; language: string },
  url: string,
): WhatsappMessage {
  const header = record.questions[0]?.header ?? "";
  return {
    type: "template",
    template: {
      name: template.name,
      language: { code: template.language },
      components: [
        {
          type: "body",
          parameters: [
            { type: "text", text: header },
            { type: "text", text: url },
          ],
        },
      ],
    },
  };
}
