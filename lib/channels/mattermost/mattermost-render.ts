/**
 * What a question looks like in Mattermost: the plain-text prompt as the post's Markdown message (escaped:
 * the model, the caller and the user wrote it, not us) — the question's context (who is asking and why)
 * above the questions in every drawing — with interactive-message buttons whose private context is a signed
 * control, one step of the stepper at a time for several questions, and the interactive dialogs behind
 * Other… and Choose….
 */
import { renderPromptText } from "../../questions/index.ts";
import type { QuestionRecord } from "../../questions/question-record.ts";
import { MAX_ANSWER_VALUE_UNITS, type Question } from "../../questions/schema.ts";
import { ANSWER_IN_BROWSER, type BrowserEntry, NO_BROWSER_ENTRY } from "../answer-in-browser.ts";
import type { Control } from "../control-codec.ts";
import { fitToLimit } from "../fit.ts";
import { codePoints, PLATFORM_LIMITS } from "../platform-limits.ts";
import { promptView, type StepView } from "../prompt-view.ts";
import { replies, type TextFits, withCancelCommand } from "../replies.ts";
import type { Dialog, DialogElement, PostAction, PostContent } from "./mattermost-api.ts";
import { type DialogState, signControl, signDialogState } from "./mattermost-signature.ts";

/** Where Mattermost sends taps and dialog submissions, and the key their contexts are signed with. */
export interface ActionTarget {
  url: string;
  secret: string;
}

/** The webhook route on the public HTTP API base URL (HANDRAISE_PUBLIC_URL). */
export function mattermostWebhookUrl(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, "")}/webhooks/mattermost`;
}

/**
 * Makes text display literally in Mattermost Markdown: ASCII punctuation that Markdown (or Mattermost's
 * tables, strikethrough, LaTeX) gives a meaning is backslash-escaped, and `@` gets a zero-width space so
 * `@channel` or `@someone` in a label or an answer notifies nobody.
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|~<>=&$]/g, "\\$&").replace(/@/g, "@\u200b");
}

const LIMITS = PLATFORM_LIMITS.mattermost;

/** Whether a post's message is within Mattermost's limit (runes: code points). */
const withinPost = (message: string) => codePoints(message) <= LIMITS.postRunes;

/** Whether a sentence, escaped, fits a post (an ephemeral reply, a command's reply, a comment). */
export const fitsPost: TextFits = (text) => withinPost(escapeMarkdown(text));

/** Cuts to at most `maxBytes` UTF-8 bytes on a code point boundary (Mattermost measures dialog fields in bytes). */
export function cutBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let out = "";
  for (const char of text) {
    if (Buffer.byteLength(out + char) > maxBytes - 3) break;
    out += char;
  }
  return `${out}…`;
}

/**
 * The prompt under `context`, with the slash command Mattermost users have in its last line (`/cancel` would
 * be an unknown command there); what the model or the caller wrote is left as written.
 */
export function promptText(questions: readonly Question[], context?: string): string {
  return withCancelCommand(renderPromptText(questions, context), "/handraise");
}

export function renderMessage(record: QuestionRecord): string {
  return escapeMarkdown(promptText(record.questions, record.context));
}

/**
 * What a pending question's post says at a step: one question, its prompt; several, the stepper's progress
 * ("2 of 3") over the prompt of the question at that step (a typed plain line answers the question on screen,
 * lib/app/handle-inbound.ts).
 */
export function stepMessage(record: QuestionRecord, step: number): string {
  const shown = promptView(record, { step }).step;
  if (shown?.progress === undefined) return renderMessage(record);
  return `**${escapeMarkdown(shown.progress)}**\n\n${escapeMarkdown(promptText([shown.question], record.context))}`;
}

/**
 * The buttons of the view's step, each carrying its signed control: a single-select question's options (the
 * chosen one drawn `primary`) and Other… (a dialog; `primary` when the draft holds an own answer); a
 * multi-select question's Choose… (attachments have no multi-select: it opens a dialog with one, and a field
 * for an own answer); Back from the second step on; on a shared copy "Answer in browser", whose tap hands the
 * tapper their own link in an ephemeral reply (a private copy's link is in the message); Skip always.
 */
export function renderActions(step: StepView, target: ActionTarget): PostAction[] {
  const button = (id: string, name: string, control: Control, marked = false): PostAction => ({
    id,
    type: "button",
    name,
    ...(marked && { style: "primary" }),
    integration: { url: target.url, context: { ...signControl(target.secret, control) } },
  });
  const typed = step.typed.length > 0;
  const actions = step.choices.flatMap((choice) =>
    step.multiSelect ? [] : [button(`option${choice.index}`, choice.label, choice.control, choice.chosen)],
  );
  for (const c of step.controls) {
    if (c.kind === "choose") {
      const marked = typed || step.choices.some((choice) => choice.chosen);
      actions.push(button(c.kind, c.label, c.control, marked));
    } else if (c.kind === "other" && !step.multiSelect) {
      actions.push(button(c.kind, c.label, c.control, typed));
    } else if (c.kind === "back" || c.kind === "browser" || c.kind === "skip") {
      actions.push(button(c.kind, c.label, c.control));
    }
  }
  return actions;
}

/**
 * The answer page's link as a Markdown link (attachments have no link buttons). The URL is Handraise's own;
 * parentheses and spaces, which would end a Markdown link early, are percent-encoded.
 */
export function answerLinkMarkdown(answerUrl: string): string {
  const url = answerUrl.replace(
    /[()\s]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`,
  );
  return `[${ANSWER_IN_BROWSER}](${url})`;
}

/**
 * A pending question's post at a step (the first when it is posted; a later one as the stepper moves): the
 * step's message, and the step's buttons. With the answer page on, a direct channel's copy carries its
 * answerer's link under the message, any other copy an "Answer in browser" button instead
 * (lib/channels/answer-in-browser.ts).
 */
export function renderPost(
  record: QuestionRecord,
  target: ActionTarget,
  browser: BrowserEntry = NO_BROWSER_ENTRY,
  step = 0,
): PostContent {
  const withLink = (message: string) =>
    browser.kind === "link" ? `${message}\n\n${answerLinkMarkdown(browser.url)}` : message;
  const shown = promptView(record, { step, browser }).step;
  const actions = shown ? renderActions(shown, target) : [];
  return {
    // Shortened to fit (lib/channels/fit.ts): descriptions first, then the question's text.
    message: fitToLimit(record, (shown) => withLink(stepMessage(shown, step)), withinPost),
    props: {
      // The plain-text fallback (notifications, old clients) is the question itself, its @ defused like the
      // message's, so no client that reads it for mentions can be made to notify a channel.
      attachments: [{ fallback: (shown?.question.question ?? "").replace(/@/g, "@\u200b"), actions }],
    },
  };
}

/**
 * A posted copy once the question has ended: the prompt and the outcome, no buttons — shortened to fit a
 * post, never losing the outcome line or a question's header and answer in it.
 */
export function retiredPost(record: QuestionRecord, voter?: string): PostContent {
  const message = fitToLimit(
    record,
    (shown) => `${renderMessage(shown)}\n\n**${escapeMarkdown(promptView(shown, { voter }).outcome)}**`,
    withinPost,
    { ended: true },
  );
  return { message, props: { attachments: [] } };
}

/** The name of the free-text element of a question (`:` cannot occur in a question id). */
export const otherElementName = (questionId: string) => `${questionId}:other`;

/**
 * The dialog Other… or Choose… opens for the question its control names. Choose…: a select named after the
 * question id, offering its labels as values, and an optional own-answer field; Other…: the own-answer field
 * alone, `<id>:other`. The state is signed with the control, the post it was opened from and the tap that
 * opened it, so a submission is verified like a tap, only by its tapper, and the stepper can redraw that post.
 */
export function renderDialog(record: QuestionRecord, opened: DialogState, target: ActionTarget): Dialog {
  const question = record.questions[opened.control.questionIndex] ?? record.questions[0];
  if (!question) throw new Error(`question ${record.id} has no questions`);
  const elements: DialogElement[] =
    opened.control.kind === "choose"
      ? [select(question), freeText(question, true)]
      : [freeText(question, false)];
  return {
    callback_id: "handraise",
    title: cutBytes(question.header, LIMITS.dialogTitleBytes),
    introduction_text: escapeMarkdown(question.question),
    elements,
    submit_label: replies.done,
    notify_on_cancel: false,
    state: signDialogState(target.secret, opened),
  };
}

function select(question: Question): DialogElement {
  return {
    display_name: cutBytes(question.header, LIMITS.displayNameBytes),
    name: question.id,
    type: "select",
    // Optional: the own-answer field may be used instead; the submission is checked as a whole.
    optional: true,
    ...(question.multiSelect && { multiselect: true }),
    options: question.options.map((option) => ({ text: option.label, value: option.label })),
  };
}

/**
 * The own-answer field: a `textarea`, the element that takes more than a `text` element's 150 characters — as
 * much as Mattermost lets one take, short of an own answer's limit (lib/questions/schema.ts).
 */
function freeText(question: Question, optional: boolean): DialogElement {
  return {
    display_name: cutBytes(optional ? replies.other : replies.yourAnswer, LIMITS.displayNameBytes),
    name: otherElementName(question.id),
    type: "textarea",
    optional,
    max_length: Math.min(MAX_ANSWER_VALUE_UNITS, LIMITS.textareaMaxLength),
  };
}
