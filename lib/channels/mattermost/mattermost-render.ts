/**
 * What a question looks like in Mattermost: the plain-text prompt as the post's Markdown message (escaped:
 * the model and the user wrote it, not us) with interactive-message buttons whose private context is signed,
 * and the interactive dialogs behind "Other…", "Choose…" and "Answer…".
 */
import { renderPromptText } from "../../questions/index.ts";
import type { QuestionRecord } from "../../questions/question-record.ts";
import type { Question } from "../../questions/schema.ts";
import { ANSWER_IN_BROWSER } from "../answer-in-browser.ts";
import { outcomeText } from "../replies.ts";
import type { Dialog, DialogElement, PostAction, PostContent } from "./mattermost-api.ts";
import { signContext } from "./mattermost-signature.ts";

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

/** The prompt, with the slash command Mattermost users have (`/cancel` would be an unknown command there). */
export function promptText(record: QuestionRecord): string {
  return renderPromptText(record.questions).replace(/\/cancel\b/g, "/handraise cancel");
}

export function renderMessage(record: QuestionRecord): string {
  return escapeMarkdown(promptText(record));
}

/**
 * One single-select question: its options as buttons, then Other… and Skip. One multi-select question:
 * Choose… (attachments have no multi-select; it opens a dialog). Several questions: Answer… (one dialog with
 * an element per question; typed keyed lines in the thread work too). Skip always.
 */
export function renderActions(record: QuestionRecord, target: ActionTarget): PostAction[] {
  const button = (id: string, name: string, option: string): PostAction => ({
    id,
    type: "button",
    name,
    integration: {
      url: target.url,
      context: { ...signContext(target.secret, { questionId: record.id, sub: 0, option }) },
    },
  });
  const actions: PostAction[] = [];
  const [only] = record.questions;
  if (record.questions.length === 1 && only) {
    if (only.multiSelect) actions.push(button("choose", "Choose…", "choose"));
    else {
      for (const [index, option] of only.options.entries()) {
        actions.push(button(`option${index}`, option.label, String(index)));
      }
      actions.push(button("other", "Other…", "other"));
    }
  } else {
    actions.push(button("answer", "Answer…", "form"));
  }
  actions.push(button("skip", "Skip", "skip"));
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

/** A pending question's post: the prompt, the answer page's link when it is on, and the buttons. */
export function renderPost(record: QuestionRecord, target: ActionTarget, answerUrl?: string): PostContent {
  return {
    message:
      answerUrl === undefined
        ? renderMessage(record)
        : `${renderMessage(record)}\n\n${answerLinkMarkdown(answerUrl)}`,
    props: {
      attachments: [
        { fallback: "A question is waiting for your answer.", actions: renderActions(record, target) },
      ],
    },
  };
}

/** A posted copy once the question has ended: the prompt and the outcome, no buttons. */
export function retiredPost(record: QuestionRecord): PostContent {
  return {
    message: `${renderMessage(record)}\n\n**${escapeMarkdown(outcomeText(record))}**`,
    props: { attachments: [] },
  };
}

export type DialogKind = "other" | "choose" | "form";

/** The name of the free-text element of a question (`:` cannot occur in a question id). */
export const otherElementName = (questionId: string) => `${questionId}:other`;

/**
 * The dialog a button opens. Select elements are named after the question id and offer its labels as values;
 * the free-text element is `<id>:other`. The state is a signed context (`option: "dialog"`), so a
 * submission is verified like a tap.
 */
export function renderDialog(
  record: QuestionRecord,
  kind: DialogKind,
  sub: number,
  target: ActionTarget,
): Dialog {
  const picked = record.questions[sub];
  const questions = kind === "form" || !picked ? record.questions : [picked];
  const elements = questions.flatMap((question): DialogElement[] =>
    kind === "other"
      ? [freeText(question, "textarea", false)]
      : [select(question, kind === "form"), freeText(question, "text", true)],
  );
  const single = questions.length === 1 ? questions[0] : undefined;
  return {
    callback_id: "handraise",
    title: cutBytes(single ? single.header : "Your answers", 24),
    ...(single && { introduction_text: escapeMarkdown(single.question) }),
    elements,
    submit_label: "Send",
    notify_on_cancel: false,
    state: JSON.stringify(signContext(target.secret, { questionId: record.id, sub, option: "dialog" })),
  };
}

function select(question: Question, withQuestionText: boolean): DialogElement {
  return {
    display_name: cutBytes(question.header, 24),
    name: question.id,
    type: "select",
    // Optional: the own-answer field may be used instead; the submission is checked as a whole.
    optional: true,
    ...(question.multiSelect && { multiselect: true }),
    help_text: cutBytes(
      withQuestionText ? question.question : question.multiSelect ? "Choose one or more." : "Choose one.",
      150,
    ),
    options: question.options.map((option) => ({ text: option.label, value: option.label })),
  };
}

function freeText(question: Question, type: "text" | "textarea", optional: boolean): DialogElement {
  return {
    display_name: optional ? cutBytes(`${question.header}: own answer`, 24) : "Your answer",
    name: otherElementName(question.id),
    type,
    optional,
    max_length: 3000,
    placeholder: optional ? "Or type your own answer" : "Type your answer",
  };
}
