/**
 * Every sentence a chat or a mail shows a person, in one place (ready for translation): the outcome of a
 * question, what a tap or a typed reply is told, the labels of the controls and the stepper, a mail's own
 * words. A channel's own sentences live here too, named for it. Platform adapters render these; none writes
 * its own. (The answer page's are in lib/web/answer-page-html.ts.)
 */

import type { InboundOutcome, InvalidReason } from "../app/inbound-outcome.ts";
import { type QuestionRecord, votersOf } from "../questions/question-record.ts";
import type { Answers, Question } from "../questions/schema.ts";
import { cutText } from "../questions/text.ts";
import { tally, voteOf } from "../questions/votes.ts";
import { ANSWER_IN_BROWSER } from "./answer-in-browser.ts";
import type { Reminder } from "./chat-channel.ts";
import { fitToLimit } from "./fit.ts";

/** The fixed sentences and labels. */
export const replies = {
  notYours: "This question is not yours to answer.",
  /** Handed privately with the tapper's own answer link (never posted in a shared conversation). */
  yourOwnLink: "Your own link to answer in a browser. It works for you alone: do not share it.",
  /**
   * A step tapped on a shared copy of a prompt several people answer, where the platform has no reply only the
   * tapper sees: no link can be handed over there, so the person is told where to answer instead.
   */
  answerOnYourOwn:
    "Several people answer this question, each on their own: answer it in your own chat with me or through your own link, not on this shared message.",
  /**
   * "Answer in browser" tapped on a shared copy where the platform has no reply only the tapper sees: the link
   * would show to everyone there, so none is handed over (see `noPrivateLinkText`).
   */
  answerOnThisMessage:
    "A link here would be seen by everyone in this conversation, so none is handed over: answer on this message.",
  /**
   * A request for one's own link that hands nothing over (a used, expired or unknown token, or someone else's):
   * the same words in every case, so they say nothing about any question.
   */
  noLinkHere: `This link is used up or no longer valid. Tap “${ANSWER_IN_BROWSER}” on the question again for a new one.`,
  /** To the person a question was asked on behalf of (`requestedBy`), who may never answer it. */
  requesterCannotAnswer: "You asked for this; someone else must answer.",
  /** A second answer (or skip) from a person whose vote a question with a quorum already holds. */
  alreadyAnswered: "You have already answered.",
  /**
   * A Skip from one of several people, kept as their abstention while the question waits for the others (in
   * the reply, and on the person's own copies once they lose their controls).
   */
  abstained: "You skipped this question; the others can still answer.",
  /** A /cancel from an answerer other than the owner, with several answerers: only the owner cancels it. */
  onlyOwnerCancels: "Only the question's owner can cancel it; you can skip it instead.",
  /** With a quorum: so many votes landed at once that this one was not counted (nothing changed). */
  tryAgain: "Many answers are arriving at once, so yours was not counted. Send it again in a moment.",
  /** A vote or stepper step that would take the question past its size budget: not kept, nothing changed. */
  full: "This question holds as many answers as it can, so yours was not recorded. A shorter answer may still fit.",
  gone: "This question no longer exists.",
  nothingWaiting: "No question is waiting for you here.",
  gotIt: "Got it.",
  /**
   * An answer, vote, skip or cancel that closed the question, when the run that asked said it no longer
   * waits (stopped, timed out): kept, but nothing acts on it — also the answer page's done page.
   */
  recordedNotWaiting: "Recorded, but the run that asked no longer waits for it.",
  skipped: "Skipped.",
  cancelled: "Cancelled.",
  controlNoLongerValid: "This control is no longer valid.",
  formNoLongerValid: "This form is no longer valid.",
  controlDoesNotFit: "That control does not fit this question.",
  chooseAtLeastOne: "Choose at least one option, then tap Done.",
  chooseOrType: "Choose an option or type your own answer.",
  pickOrTypeNotBoth: "Pick an option or type your own answer, not both.",
  stillNeededShort: "Still needed.",
  postedAgain: "Posted the question again.",
  /** A re-post of a question that has been posted as often as it can be (MAX_COPIES): nothing posted. */
  copiesFull:
    "This question has been posted as often as it can be, so not here: answer it where it was posted.",
  /** A re-post into a chat that already holds the question as often as a re-post may (MAX_REPOSTS_IN_CHAT). */
  copiesFullHere: "This question is already posted here: answer it above.",
  unconfirmedActor: "Handraise could not confirm who you are in this channel, so nothing changed. Try again.",
  formCouldNotOpen: "The form could not be opened. Reply in the question's thread instead.",
  /** Control labels. */
  other: "Other…",
  done: "Done",
  back: "Back",
  skip: "Skip",
  chooseOneOrMore: "Choose one or more…",
  answerInForm: "Answer in a form",
  yourAnswer: "Your answer",
  /** Discord: a string select submitted with nothing chosen. */
  chooseAtLeastOneInMenu: "Choose at least one option.",
  /** Discord: a repeated command or modal, where there is no message to leave as it is. */
  alreadyHandled: "Already handled.",
  /** Discord: an interaction type Handraise does not take (autocomplete, …) or a command it does not know. */
  notHandledHere: "Handraise does not handle this here.",
  /** Discord: under a single-select question or step (plain messages never reach the bot: typing is a command). */
  discordHowToTap:
    "Tap an option, or Other… to write your own answer (or /question answer: …). /cancel cancels the question.",
  /** Discord: under a multi-select question or step. */
  discordHowToPick:
    "Pick one or more in the menu, or Other… to write your own answer (or /question answer: …). /cancel cancels the question.",
  /** Slack's form modal: the label of the text box beside each question's choices. */
  orYourOwnAnswer: "Or your own answer",
  /** Slack's modals: the submit button. */
  submitForm: "Submit",
  /** Slack's modals: the close button. */
  closeForm: "Cancel",
  /** The bot's command menus (Telegram's setMyCommands, Discord's application commands): `/question`. */
  questionCommandAbout: "Show the question waiting for you here again",
  /** Discord's `/question`, which also takes a typed answer (plain messages never reach its bot). */
  questionOrAnswerCommandAbout: "Show the question waiting for you here again, or answer it",
  /** Discord's `/question answer:` option. */
  answerOptionAbout: "Your answer: an option number, an option, or your own words",
  /** The command menus' `/cancel`. */
  cancelCommandAbout: "Cancel the question waiting for you here",
  /** Slack's and Mattermost's `/handraise` without a subcommand it knows. */
  handraiseCommandHelp:
    "/handraise cancel — cancel your waiting question here. /handraise question — post it again here.",
  /** Slack's `/handraise question` where the app may not post (not invited to the conversation, …). */
  couldNotPostHere: "Handraise could not post here. Invite the app to this conversation, then try again.",
  /** Teams and Google Chat: the button that sends a card's own-answer box. */
  send: "Send",
  /** WhatsApp: the button that opens a list message's options. */
  chooseInList: "Choose…",
  /** Google Chat: the greeting when the app is added to a space or a direct message. */
  addedToChat:
    "Handraise will post an agent's questions for you here. Tap an option, or type your answer (in a space, mention the app).",
} as const;

/**
 * The words only an e-mail says (lib/channels/email/email-render.ts; its reminder sentence is
 * `reminderText`, its hints the catalog's above). A subject's header arrives as written: the renderer makes
 * the whole subject one header-safe line.
 */
export const mailText = {
  subject: (header: string) => `Question for you: ${header}`,
  reminderSubject: (header: string) => `Reminder: ${header}`,
  answerHere: "Answer on this page:",
  chooseHere: "Or choose one here (the page opens with it chosen; press Submit to send it):",
  answerButton: "Answer",
  ownLink: "This link is yours alone: it answers as you. Do not forward this mail.",
  answerBy: (deadline: string) => `Please answer by ${deadline}.`,
  severalQuestions: (count: number) => `${count} questions for you`,
} as const;

/**
 * What an "Answer in browser" tap on a shared copy is told where the platform has no reply only the tapper
 * sees (Teams): where to answer instead of a link. On the message itself, unless it is a prompt of several
 * questions that several people answer, whose steps a shared copy does not take (each answers on their own).
 */
export function noPrivateLinkText(record: Pick<QuestionRecord, "drafts" | "questions">): string {
  return record.drafts !== undefined && record.questions.length > 1
    ? replies.answerOnYourOwn
    : replies.answerOnThisMessage;
}

/** The stepper's progress: "2 of 3". */
export function stepProgressText(questionIndex: number, count: number): string {
  return `${questionIndex + 1} of ${count}`;
}

/**
 * A prompt's typed-reply hint (lib/questions/prompt-text.ts) with the platform's own slash command for
 * cancelling where `/cancel` is not one (Slack's and Mattermost's `/handraise cancel`); the rest as written.
 *
 * @example
 * withCancelCommand("… Reply skip to skip, /cancel to cancel.", "/handraise") // "… /handraise cancel to cancel."
 */
export function withCancelCommand(prompt: string, command: string): string {
  return prompt.replace(/\/cancel to cancel\.$/, `${command} cancel to cancel.`);
}

/** The answer page's link as a line of text, where a platform has no link button for it (or the terminal). */
export function answerLinkLine(url: string): string {
  return `${ANSWER_IN_BROWSER}: ${url}`;
}

/** What "Other…" asks for on platforms that take the text as a reply (Telegram's forced reply). */
export function typeYourAnswerText(question: Pick<Question, "header"> | undefined): string {
  return `Type your answer to “${question?.header ?? "the question"}” as a reply to this message.`;
}

/**
 * One line saying how a question ended, shown where its prompt was posted. See `fittedOutcomeText` for one
 * held to a platform's limit. `voter`: the person whose own copy it is (`privateTo`), whose vote a pending
 * question's copy speaks of.
 */
export function outcomeText(record: QuestionRecord, voter?: string): string {
  switch (record.status) {
    case "answered": {
      const parts = record.questions.map((q) => `${q.header}: ${(record.answers?.[q.id] ?? []).join(", ")}`);
      // Every copy — the owner's too — says when the person the question was escalated to answered it.
      const by =
        record.escalate !== undefined && record.resolvedBy === record.escalate.owner
          ? ` by ${record.resolvedBy}`
          : "";
      return `Answered${by} — ${parts.join("; ")}`;
    }
    case "cancelled":
      return record.reason === "skipped" ? replies.skipped : replies.cancelled;
    case "expired":
      return "Expired: no answer in time.";
    case "delivery_failed":
      return "Could not be delivered.";
    case "no_quorum":
      return "No agreement: not enough answers could agree.";
    case "pending": {
      // A pending copy is retired only for someone whose vote is kept (the copy's voter; without one, the
      // newest vote): it says how many more are needed, or that their Skip left it to the others.
      const votes = record.votes ?? [];
      const own = voter === undefined ? votes.at(-1) : voteOf(votes, voter);
      if (own?.skipped === true) return replies.abstained;
      const decided =
        votes.length > 0 ? tally(votes, record.quorum ?? 1, votersOf(record), record.questions) : undefined;
      return decided?.kind === "waiting" ? waitingForMoreText(decided.more) : "Waiting for an answer.";
    }
  }
}

/** To a person whose vote was kept on a question that needs `more` agreeing answers to close. */
export function waitingForMoreText(more: number): string {
  return `Your answer is recorded — waiting for ${more} more.`;
}

/** The outcome line, its answers cut (with "…") until it `fits`. */
export function fittedOutcomeText(record: QuestionRecord, fits: TextFits): string {
  return fitToLimit(record, outcomeText, fits, { ended: true });
}

/** What a late tap or reply is told about a question that has already ended. */
export function endedText(record: QuestionRecord): string {
  switch (record.status) {
    case "answered":
      return "This question has already been answered.";
    case "expired":
      return "This question has expired.";
    default:
      return `This question has ended (${outcomeText(record)})`;
  }
}

/**
 * The reminder posted under a question that is still waiting at one of its reminder times: how long is left
 * until its deadline, in minutes (seconds in its last minute, hours and minutes past two hours).
 */
export function reminderText(reminder: Reminder): string {
  return `Still waiting for your answer — ${timeLeft(reminder.leftMs)} left`;
}

function timeLeft(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}

/**
 * What a reply that answers some questions but not all is told, in a chat and in the terminal alike: what it
 * recorded, by header with its values, in the prompt's order (nothing when it recorded nothing), then the
 * questions still needed, by header and id.
 *
 * @example
 * stillNeededText(questions, { deploy_target: ["Production"] }, [checks])
 * // → "Recorded: Deploy to: Production. Still needed: Checks [checks]."
 */
export function stillNeededText(
  questions: readonly Question[],
  recorded: Readonly<Answers>,
  missing: readonly Question[],
): string {
  const kept = questions
    .filter((q) => Object.hasOwn(recorded, q.id))
    .map((q) => `${q.header}: ${(recorded[q.id] ?? []).join(", ")}`);
  const stillNeeded = `Still needed: ${missing.map((q) => `${q.header} [${q.id}]`).join(", ")}.`;
  return kept.length === 0 ? stillNeeded : `Recorded: ${kept.join("; ")}. ${stillNeeded}`;
}

/**
 * What a person is told when what they sent changed nothing (lib/app returns the reason, never the words).
 *
 * @example
 * invalidText({ kind: "control_mismatch" }) // → "That control does not fit this question."
 */
export function invalidText(reason: InvalidReason): string {
  switch (reason.kind) {
    case "control_mismatch":
      return replies.controlDoesNotFit;
    case "no_such_option":
      return noOptionText(reason.question, reason.typed, reason.several);
    case "answer_refused":
      return reason.contractMessage;
  }
}

/** The one sentence for a typed option number that names no option; with several questions, says which. */
export function noOptionText(question: Question, typed: string, several: boolean): string {
  // A number as long as a message would make the sentence longer than one: its start says enough.
  const sentence = `there is no option ${cutText(typed, 24)} — type a number 1–${question.options.length} or your own answer.`;
  return several
    ? `${question.header} [${question.id}]: ${sentence}`
    : `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}`;
}

/** Whether a sentence fits where it is sent (its platform's escaping and limit, lib/channels/platform-limits.ts). */
export type TextFits = (text: string) => boolean;

const anySize: TextFits = () => true;

/**
 * Whether an outcome is told by the question's copies alone — edited to the outcome everywhere — so a
 * platform whose copies show it sends no reply: a close the run took, not one it no longer waits for.
 */
export const toldByCopies = (outcome: InboundOutcome): boolean =>
  outcome.kind === "resolved" && outcome.notWaiting !== true;

/**
 * What the person who tapped a control, submitted a form or typed a reply is told about its outcome, the
 * same on every platform; undefined where the outcome shows itself (the prompt redrawn at a step, a modal
 * opened) or was told the first time (a duplicate). `fits`: where it is sent — what it repeats of the
 * person's answers is cut (with "…") until it fits (lib/channels/fit.ts).
 */
export function outcomeReplyText(outcome: InboundOutcome, fits: TextFits = anySize): string | undefined {
  switch (outcome.kind) {
    case "ignored":
      return replies.gone;
    case "no_pending":
      return replies.nothingWaiting;
    case "not_owner":
      return replies.notYours;
    case "requester":
      return replies.requesterCannotAnswer;
    case "already_answered":
      return outcome.skipped === true ? replies.abstained : replies.alreadyAnswered;
    case "busy":
      return replies.tryAgain;
    case "full":
      return replies.full;
    case "copies_full":
      return outcome.here === true ? replies.copiesFullHere : replies.copiesFull;
    case "only_owner_cancels":
      return replies.onlyOwnerCancels;
    case "recorded_waiting":
      return waitingForMoreText(outcome.more);
    case "abstained":
      return replies.abstained;
    case "ended":
      return fitToLimit(outcome.record, endedText, fits);
    case "resolved":
      if (outcome.notWaiting === true) return replies.recordedNotWaiting;
      if (outcome.record.status === "no_quorum") return outcomeText(outcome.record);
      return outcome.record.status === "answered"
        ? replies.gotIt
        : outcome.record.reason === "skipped"
          ? replies.skipped
          : replies.cancelled;
    case "incomplete":
      return fitToLimit(
        { questions: outcome.record.questions, answers: outcome.recorded },
        ({ questions, answers }) => stillNeededText(questions, answers ?? {}, outcome.missing),
        fits,
      );
    case "invalid":
      return invalidText(outcome.reason);
    case "duplicate":
    case "shown":
    case "needs_text":
    case "toggled":
    case "step":
      return undefined;
    case "private_link":
      return replies.yourOwnLink;
  }
}
