/**
 * The answer page's HTML: the form (every question at once — the page's script turns it into a stepper),
 * the outcome of an ended question, and the few message pages (an invalid link, …). Every sentence the page
 * shows is written here, once. Pure: records in, HTML out.
 *
 * Everything from a question (its context, header, text, labels, descriptions, answers) is escaped: it was
 * written by a model, a caller or a person, and is shown as text, never as markup.
 *
 * Above the questions, on the form and on the outcome alike, the page says who is asking and why: the
 * question's context, and the name of the API key it was asked with ("Asked by ops-bot") — a name the
 * operator chose, never the key itself. The `default` key's name says nothing about who asked, and a run
 * (`askedBy: "run"`) has no name, so neither is shown.
 */

import { DEFAULT_API_KEY_NAME } from "../auth/api-keys.ts";
import { replies } from "../channels/replies.ts";
import { type QuestionRecord, votersOf } from "../questions/question-record.ts";
import { MAX_ANSWER_VALUE_UNITS, type Question } from "../questions/schema.ts";
import { tally } from "../questions/votes.ts";
import { type FieldProblem, type FormState, OTHER_VALUE, pickField, textField } from "./answer-form.ts";
import { PAGE_SCRIPT, PAGE_STYLE } from "./answer-page-assets.ts";
import { escapeHtml } from "./html.ts";

export const PAGE_TEXT = {
  back: "Back",
  next: "Next",
  submit: "Submit",
  skip: "Skip",
  /** The stepper reads "1 of 3". */
  of: "of",
  other: "Other",
  ownAnswer: "Your own answer",
  ownAnswerMulti: "Other (your own answer)",
  chooseOne: "Choose one.",
  chooseMany: "Choose one or more.",
  timeLeft: "Time left:",
  /** Followed by the name of the API key the question was asked with. */
  askedBy: "Asked by",
  timeUp: "Time is up.",
  checkAnswers: "Some answers need your attention.",
  tooLongTogether: "Your answers are too long together. Shorten your own answers, then submit again.",
  notSent: "Your answer was not sent: this question had already ended.",
  /** This person's answer or skip closed the question, but the run that asked had stopped: as in a chat. */
  notWaiting: replies.recordedNotWaiting,
  /** Shown (by the script) when Skip is pressed after some questions were answered; a second Skip skips. */
  skipConfirm:
    "Skip the whole prompt? The answers you chose here will not be sent. Press Skip again to skip.",
} as const;

/**
 * 4000 → "4,000". Not `toLocaleString`: its first call loads ICU's number formatting, some 10 ms of CPU that
 * every cold start of the answer page would pay for this one sentence.
 */
const withThousands = (n: number) => String(n).replace(/\B(?=(\d{3})+$)/g, ",");

const PROBLEM_TEXT: Record<FieldProblem, string> = {
  missing: "Choose an option or write your own answer.",
  other_empty: "Write your own answer, or choose one of the options.",
  both: "Choose an option or write your own answer, not both.",
  too_many: "Choose only one option.",
  too_long: `Your answer is too long: at most ${withThousands(MAX_ANSWER_VALUE_UNITS)} characters.`,
};

const NOT_ACCEPTED = "This answer was not accepted";

/** The pages that say one thing: a bad link, the page switched off, a refused or failed request. */
export const MESSAGE_PAGES = {
  invalidLink: {
    title: "This link is not valid",
    text: "Open the link exactly as it was sent to you. A changed or shortened link does not open anything.",
  },
  crossSite: {
    title: NOT_ACCEPTED,
    text: "Answers are accepted only from the answer page itself. Open the link from your message and answer there.",
  },
  off: { title: "Not found", text: "There is no answer page here." },
  notYours: { title: NOT_ACCEPTED, text: "This question is not yours to answer." },
  /** The link's person is the one the question was asked for (requestedBy), who may never answer it. */
  requester: { title: "Someone else must answer", text: "You asked for this; someone else must answer." },
  /** With a quorum: the link's person has answered (or skipped) already; a second answer changes nothing. */
  alreadyAnswered: { title: "Already answered", text: "You have already answered." },
  /** One of several people whose Skip is kept as their abstention, while the question waits for the others. */
  abstained: { title: "Skipped", text: "You skipped this question; the others can still answer." },
  /** With a quorum: so many votes landed at once that this one was not counted (503, retryable). */
  busy: {
    title: "Try again",
    text: "Many answers are arriving at once, so yours was not counted. Go back and send it again in a moment.",
  },
  /** With a quorum: the question's votes are at their size budget; this one was not counted (413). */
  full: {
    title: "No room for your answer",
    text: "This question holds as many answers as it can, so yours was not counted. A shorter answer may still fit.",
  },
  /** A request the page refuses (too large, not its form): the text is the error's own message. */
  refused: { title: NOT_ACCEPTED, text: "" },
  failed: {
    title: "Something went wrong",
    text: "Your answer may not have been saved. Open the link again to see whether the question is still waiting.",
  },
} as const;

export interface MessagePage {
  title: string;
  text: string;
}

/** To a person whose vote is kept on a question that waits for `more` agreeing answers. */
export function voteRecordedPage(more: number): MessagePage {
  return { title: "Answer recorded", text: `Your answer is recorded — waiting for ${more} more.` };
}

function document(title: string, body: string, withScript: boolean): string {
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="robots" content="noindex, nofollow">',
    `<title>${escapeHtml(title)} · Handraise</title>`,
    `<style>${PAGE_STYLE}</style>`,
    "</head>",
    "<body>",
    `<main>${body}</main>`,
    withScript ? `<script>${PAGE_SCRIPT}</script>` : "",
    "</body>",
    "</html>",
  ].join("\n");
}

/** A page that says one thing (never anything about a question). */
export function renderMessagePage(page: MessagePage): string {
  return document(page.title, `<h1>${escapeHtml(page.title)}</h1>\n<p>${escapeHtml(page.text)}</p>`, false);
}

/** "14 min", "2 h 5 min", "less than a minute": the time left as the page first shows it. */
export function timeLeftText(remainingMs: number): string {
  const minutes = Math.floor(remainingMs / 60_000);
  if (minutes < 1) return "less than a minute";
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** The name of the API key a question was asked with, when that name says who asked. */
export function askingKeyName(record: Pick<QuestionRecord, "askedBy">): string | undefined {
  const name = record.askedBy?.startsWith("api:") ? record.askedBy.slice("api:".length) : undefined;
  return name === DEFAULT_API_KEY_NAME || name === "" ? undefined : name;
}

/** Who is asking and why, as the page shows it above the questions: nothing when the record says neither. */
function askedAbove(record: QuestionRecord): string {
  const key = askingKeyName(record);
  return [
    key === undefined ? "" : `<p class="meta" id="asked-by">${escapeHtml(`${PAGE_TEXT.askedBy} ${key}`)}</p>`,
    record.context === undefined ? "" : `<p class="context" id="context">${escapeHtml(record.context)}</p>`,
  ]
    .filter(Boolean)
    .join("\n");
}

export interface FormView {
  record: QuestionRecord;
  /** The link's signature: the form posts it back (the capability, and the form's CSRF check). */
  sig: string;
  remainingMs: number;
  /** What was sent last, to show the form again as it was. */
  state?: FormState | undefined;
  /** Per question id, why its answer was not taken. */
  problems?: Readonly<Record<string, FieldProblem>> | undefined;
  /** A problem of the answers as a whole. */
  formProblem?: string | undefined;
}

/** The form: every question, its options, an own answer, Submit and Skip (Back / Next for the script). */
export function renderFormPage(view: FormView): string {
  const { record } = view;
  const count = record.questions.length;
  const title = count === 1 ? "A question for you" : `${count} questions for you`;
  const problems = view.problems ?? {};
  const hasProblems = Object.keys(problems).length > 0 || view.formProblem !== undefined;
  const body = [
    `<h1>${escapeHtml(title)}</h1>`,
    askedAbove(record),
    votesSoFar(record),
    `<p class="meta" id="time-left" data-remaining-ms="${Math.max(0, Math.floor(view.remainingMs))}" ` +
      `data-left="${escapeHtml(PAGE_TEXT.timeLeft)}" data-up="${escapeHtml(PAGE_TEXT.timeUp)}">` +
      `${escapeHtml(PAGE_TEXT.timeLeft)} ${escapeHtml(timeLeftText(view.remainingMs))}</p>`,
    hasProblems
      ? `<p class="alert" role="alert">${escapeHtml(view.formProblem ?? PAGE_TEXT.checkAnswers)}</p>`
      : "",
    // No action: the form posts to the page's own URL, signature included, wherever the API is mounted.
    `<form method="post" id="answer-form" novalidate data-missing="${escapeHtml(PROBLEM_TEXT.missing)}" ` +
      `data-of="${escapeHtml(PAGE_TEXT.of)}" data-skip-confirm="${escapeHtml(PAGE_TEXT.skipConfirm)}">`,
    `<input type="hidden" name="sig" value="${escapeHtml(view.sig)}">`,
    '<p class="stepper" id="stepper" aria-live="polite" hidden></p>',
    ...record.questions.map((question, index) =>
      renderQuestion(question, index, view, problems[question.id]),
    ),
    '<div class="actions">',
    `<button type="button" id="back" hidden>${PAGE_TEXT.back}</button>`,
    `<button type="button" id="next" class="primary" hidden>${PAGE_TEXT.next}</button>`,
    // Submit comes before Skip: Enter in a field submits with the form's first submit button, never skips.
    `<button type="submit" id="submit" class="primary" name="action" value="submit">${PAGE_TEXT.submit}</button>`,
    `<button type="submit" id="skip" class="skip" name="action" value="skip" formnovalidate>${PAGE_TEXT.skip}</button>`,
    "</div>",
    '<p class="alert" id="skip-note" role="alert" hidden></p>',
    "</form>",
  ].join("\n");
  return document(title, body, true);
}

/**
 * With a quorum, once someone has voted: how far the best-supported answer is from closing the question
 * ("1 of 2 answers so far"), for the people who have not voted yet.
 */
function votesSoFar(record: QuestionRecord): string {
  const votes = record.votes ?? [];
  const quorum = record.quorum ?? 1;
  if (votes.length === 0) return "";
  const decided = tally(votes, quorum, votersOf(record), record.questions);
  const agreeing = decided.kind === "waiting" ? quorum - decided.more : quorum;
  return `<p class="meta" id="votes">${escapeHtml(votesSoFarText(agreeing, quorum))}</p>`;
}

/** The page's line on a question with a quorum that some have answered. */
export function votesSoFarText(agreeing: number, quorum: number): string {
  return `${agreeing} of ${quorum} answers so far`;
}

function renderQuestion(
  question: Question,
  index: number,
  view: FormView,
  problem: FieldProblem | undefined,
): string {
  const multi = question.multiSelect === true;
  const picked = new Set(view.state?.picked[question.id] ?? []);
  const typed = view.state?.text[question.id] ?? "";
  const name = escapeHtml(pickField(question.id));
  const errorId = `error-${index}`;
  const choice = (value: string, inner: string) =>
    `<label class="option"><input type="${multi ? "checkbox" : "radio"}" name="${name}" value="${value}"` +
    `${picked.has(value) ? " checked" : ""} aria-describedby="${errorId}">` +
    `<span>${inner}</span></label>`;
  const options = question.options.map((option, optionIndex) =>
    choice(
      String(optionIndex),
      `<span class="label">${escapeHtml(option.label)}</span>` +
        (option.description ? `<span class="desc">${escapeHtml(option.description)}</span>` : ""),
    ),
  );
  if (!multi) options.push(choice(OTHER_VALUE, `<span class="label">${PAGE_TEXT.other}</span>`));
  const textId = `text-${index}`;
  return [
    `<fieldset id="question-${index}" data-kind="${multi ? "multi" : "single"}"${problem ? ' class="invalid"' : ""}>`,
    `<legend><span class="header">${escapeHtml(question.header)}</span>` +
      `<span class="question">${escapeHtml(question.question)}</span></legend>`,
    `<p class="hint">${multi ? PAGE_TEXT.chooseMany : PAGE_TEXT.chooseOne}</p>`,
    `<p class="error" id="${errorId}"${problem ? "" : " hidden"}>${problem ? escapeHtml(PROBLEM_TEXT[problem]) : ""}</p>`,
    ...options,
    `<label class="own" for="${textId}">${multi ? PAGE_TEXT.ownAnswerMulti : PAGE_TEXT.ownAnswer}</label>`,
    `<input type="text" id="${textId}" name="${escapeHtml(textField(question.id))}" value="${escapeHtml(typed)}" ` +
      `maxlength="${MAX_ANSWER_VALUE_UNITS}" autocomplete="off" aria-describedby="${errorId}">`,
    "</fieldset>",
  ].join("\n");
}

/** How a question ended, as the page's heading and first line. */
export function outcomeOf(record: QuestionRecord): MessagePage {
  switch (record.status) {
    case "answered":
      return record.resolvedBy?.startsWith("web:")
        ? { title: "Answered", text: "Your answers were sent. You can close this page." }
        : {
            title: "Answered elsewhere",
            text: "This question was answered in another place. These are the answers that count.",
          };
    case "cancelled":
      return record.reason === "skipped"
        ? { title: "Skipped", text: "This question was skipped: the agent goes on without an answer." }
        : { title: "Cancelled", text: "This question was cancelled: it needs no answer any more." };
    case "expired":
      return { title: "Expired", text: "The time to answer this question has run out." };
    case "delivery_failed":
      return { title: "Ended", text: "This question could not be delivered, and has ended." };
    case "no_quorum":
      return {
        title: "No agreement",
        text: "Not enough of the people asked could agree on one answer: the agent goes on without one.",
      };
    case "pending":
      return { title: "Waiting for an answer", text: "This question is still waiting for an answer." };
  }
}

/**
 * An ended question: how it ended and, when answered, each question with its answers. `notSent`: this
 * request's own answer or skip came too late; `notWaiting`: it closed the question, but the run that asked no
 * longer waited for it.
 */
export function renderOutcomePage(
  record: QuestionRecord,
  options: { notSent?: boolean; notWaiting?: boolean } = {},
): string {
  const outcome = outcomeOf(record);
  const answers = record.status === "answered" ? (record.answers ?? {}) : undefined;
  const summary = answers
    ? [
        "<dl>",
        ...record.questions.flatMap((question) => [
          `<dt><span class="header">${escapeHtml(question.header)}</span>` +
            `<span class="question">${escapeHtml(question.question)}</span></dt>`,
          ...(answers[question.id] ?? []).map((value) => `<dd class="answer">${escapeHtml(value)}</dd>`),
        ]),
        "</dl>",
      ].join("\n")
    : "";
  const body = [
    options.notSent ? `<p class="alert" role="alert">${escapeHtml(PAGE_TEXT.notSent)}</p>` : "",
    options.notWaiting ? `<p class="alert" role="status">${escapeHtml(PAGE_TEXT.notWaiting)}</p>` : "",
    `<h1>${escapeHtml(outcome.title)}</h1>`,
    `<p>${escapeHtml(outcome.text)}</p>`,
    askedAbove(record),
    summary,
  ].join("\n");
  return document(outcome.title, body, false);
}

/** The sentence for a question's problem. */
export function problemText(problem: FieldProblem): string {
  return PROBLEM_TEXT[problem];
}
