/**
 * A question as an e-mail: a subject, a plain-text body and an HTML body saying the same. A mail cannot be
 * answered by replying (Handraise reads no mailbox): every way to answer is the person's own answer page
 * link, and — for one single-select question — one link per option that opens the page with that option
 * chosen. Opening a link never answers (mail scanners follow links); the person still presses Submit.
 */
import type { QuestionRecord } from "../../questions/question-record.ts";
import type { Question } from "../../questions/schema.ts";
import { escapeHtml } from "../../web/html.ts";
import { mailText, replies } from "../replies.ts";

export interface Mail {
  subject: string;
  text: string;
  html: string;
}

/** Control characters (a line break, a tab) and the line and paragraph separators (U+2028, U+2029). */
const LINE_BREAKING = /[\p{Cc}\u2028\u2029]+/gu;

/**
 * The invisible direction marks, embeddings, overrides and isolates (U+061C, U+200E–200F, U+202A–202E,
 * U+2066–2069): in a subject they would reorder what the inbox list shows, and spill onto what follows it.
 */
const DIRECTION_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu;

/**
 * A subject is one header line that reads as written: whatever breaks a line becomes a space, and direction
 * controls are dropped (they take no room, so nothing takes their place).
 */
export function subjectLine(text: string): string {
  return text.replace(DIRECTION_CONTROLS, "").replace(LINE_BREAKING, " ").trim();
}

/** The person's own link and, for one single-select question, the link that opens each option chosen. */
export interface MailLinks {
  url: string;
  /** Index i: the link that opens the page with option i chosen (empty when the mail has none). */
  choose: readonly string[];
}

/**
 * The per-option links of a question record, when it has them: exactly one question, single-select. The
 * page reads `choose=<n>` (n from 1) as "show option n chosen", nothing more.
 */
export function chooseLinks(record: QuestionRecord, url: string): string[] {
  const [only, ...rest] = record.questions;
  if (only === undefined || rest.length > 0 || only.multiSelect === true) return [];
  return only.options.map((_, index) => `${url}&choose=${index + 1}`);
}

/** `2026-12-03 19:40 UTC`: a deadline every reader reads the same way, whatever their mail client's zone. */
function deadlineText(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function questionLines(question: Question, number: number | undefined): string[] {
  const title = number === undefined ? question.header : `${number}. ${question.header}`;
  return [
    title,
    question.question,
    ...question.options.map(
      (option, index) =>
        `  ${index + 1}. ${option.label}${option.description ? ` - ${option.description}` : ""}`,
    ),
  ];
}

/** The mail that asks `record`'s questions of the person whose links these are. */
export function renderQuestionMail(record: QuestionRecord, links: MailLinks): Mail {
  const several = record.questions.length > 1;
  const first = record.questions[0]?.header ?? "";
  const subject = subjectLine(mailText.subject(first));
  const deadline = mailText.answerBy(deadlineText(record.expiresAtMs));
  const text = [
    ...(record.context ? [record.context, ""] : []),
    ...record.questions.flatMap((question, index) => [
      ...questionLines(question, several ? index + 1 : undefined),
      "",
    ]),
    ...(links.choose.length > 0
      ? [
          mailText.chooseHere,
          ...(record.questions[0]?.options ?? []).map(
            (option, index) => `  ${option.label}: ${links.choose[index]}`,
          ),
          "",
        ]
      : []),
    mailText.answerHere,
    links.url,
    "",
    deadline,
    mailText.ownLink,
  ].join("\n");

  const html = htmlDocument(subject, [
    record.context ? `<p style="color:#555">${escapeHtml(record.context)}</p>` : "",
    several
      ? `<h1 style="font-size:20px">${escapeHtml(mailText.severalQuestions(record.questions.length))}</h1>`
      : "",
    ...record.questions.map((question, index) =>
      htmlQuestion(question, several ? index + 1 : undefined, links.choose),
    ),
    `<p><a href="${escapeHtml(links.url)}" style="${BUTTON_STYLE}">${escapeHtml(mailText.answerButton)}</a></p>`,
    `<p>${escapeHtml(deadline)}</p>`,
    `<p style="color:#555;font-size:13px">${escapeHtml(mailText.ownLink)}</p>`,
  ]);
  return { subject, text, html };
}

/** A reminder: its sentence (the reply catalog's), and the person's link again. */
export function renderReminderMail(record: QuestionRecord, reminder: string, url: string): Mail {
  const subject = subjectLine(mailText.reminderSubject(record.questions[0]?.header ?? ""));
  const text = [reminder, "", mailText.answerHere, url, "", mailText.ownLink].join("\n");
  const html = htmlDocument(subject, [
    `<p>${escapeHtml(reminder)}</p>`,
    `<p><a href="${escapeHtml(url)}" style="${BUTTON_STYLE}">${escapeHtml(mailText.answerButton)}</a></p>`,
    `<p style="color:#555;font-size:13px">${escapeHtml(mailText.ownLink)}</p>`,
  ]);
  return { subject, text, html };
}

const BUTTON_STYLE =
  "display:inline-block;padding:10px 18px;background:#1a5fb4;color:#fff;text-decoration:none;border-radius:6px";
const OPTION_STYLE =
  "display:block;margin:6px 0;padding:10px 14px;border:1px solid #1a5fb4;border-radius:6px;color:#1a5fb4;text-decoration:none";

function htmlQuestion(question: Question, number: number | undefined, choose: readonly string[]): string {
  const title = number === undefined ? question.header : `${number}. ${question.header}`;
  const options = question.options.map((option, index) => {
    const label = `<strong>${escapeHtml(option.label)}</strong>${
      option.description ? `<br><span style="color:#555">${escapeHtml(option.description)}</span>` : ""
    }`;
    const link = choose[index];
    return link === undefined
      ? `<li style="margin:4px 0">${label}</li>`
      : `<a href="${escapeHtml(link)}" style="${OPTION_STYLE}">${label}</a>`;
  });
  const list = choose.length > 0 ? options.join("\n") : `<ol>${options.join("\n")}</ol>`;
  const hint = question.multiSelect ? replies.chooseOneOrMore : "";
  return [
    `<h2 style="font-size:18px;margin-bottom:4px">${escapeHtml(title)}</h2>`,
    `<p style="margin-top:0">${escapeHtml(question.question)}</p>`,
    hint ? `<p style="color:#555">${escapeHtml(hint)}</p>` : "",
    list,
  ].join("\n");
}

function htmlDocument(title: string, parts: readonly string[]): string {
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title></head>`,
    '<body style="font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:560px;margin:0 auto;padding:16px;color:#111">',
    ...parts.filter((part) => part !== ""),
    "</body></html>",
  ].join("\n");
}
