/**
 * The one inbound type every chat platform's webhook is turned into, after its signature was verified.
 * Adapters parse; the `handle-inbound` use case routes, checks the owner and resolves.
 */
import type { QuestionRecord } from "../questions/question-record.ts";
import type { Answers, Question } from "../questions/schema.ts";
import type { ChannelName } from "./channel-specs.ts";

/** A channel that receives (lib/channels/channel-specs.ts). */
export type Platform = ChannelName;

export interface InboundBase {
  platform: Platform;
  /** The platform-qualified user who sent it (`telegram:42`, `slack:T1:U1`, `teams:<aad id>`, …): compared to the owner. */
  actor: string;
  chatId: string;
  /** The platform's id for this delivery (update_id, event_id, interaction id): duplicates are ignored. */
  dedupeKey?: string | undefined;
}

/** A tap on a control of a posted question. Indexes are positions in `record.questions` / `options`. */
export type ControlAction =
  /** A single-select option: answers that sub-question (and the whole question when it is the only one). */
  | { type: "option"; questionIndex: number; optionIndex: number }
  /** Several options of one multi-select sub-question (Slack checkboxes, Discord select, Telegram Done). */
  | { type: "choose"; questionIndex: number; optionIndexes: number[] }
  /** "Other…": the user wants to type; the adapter opens a modal or a forced reply. */
  | { type: "other"; questionIndex: number }
  /** A toggle of a multi-select option that is not submitted yet (Telegram re-renders its buttons). */
  | { type: "toggle"; questionIndex: number; optionIndex: number }
  /** The stepper's Back on sub-question `questionIndex`: show the one before it again, its choice kept. */
  | { type: "back"; questionIndex: number }
  | { type: "skip" }
  /** "Answer in browser" on a shared copy: the tapper, if they may answer, gets their own link privately. */
  | { type: "browser" };

export type Inbound =
  | (InboundBase & {
      kind: "text";
      text: string;
      /** The message this one replies to (Telegram reply_to_message), or the thread root (Slack thread_ts). */
      replyToMessageId?: string | undefined;
      /**
       * Whether the person spoke to the bot: a direct conversation with it, a mention of it, a reply to one of
       * its messages, a slash command's option. In a group, text that is none of these and replies to no
       * question is conversation among people ("brb"), never an answer; `handle-inbound` enforces that.
       * Adapters that cannot tell say false: the text then counts only as a reply to a question.
       */
      addressed: boolean;
    })
  | (InboundBase & { kind: "control"; questionId: string; action: ControlAction })
  /** A modal / dialog submission: free text or chosen values per sub-question id. */
  | (InboundBase & {
      kind: "form";
      questionId: string;
      answers: Answers;
      /** The stepper's step the form was opened from (an Other… modal on step 2 of 3): it moves on from there. */
      step?: number | undefined;
    })
  | (InboundBase & {
      kind: "command";
      command: "cancel" | "question";
      replyToMessageId?: string | undefined;
    });

/**
 * What a submitted form gives sub-question `questionIndex` of `record`: the values `read` takes from it for
 * that question, under its id — nothing when the record has no such question or nothing was given, so the
 * shared pipeline tells what is still needed.
 *
 * @example
 * stepAnswers(record, 1, (question) => ["Unit"]) // → { checks: ["Unit"] }
 */
export function stepAnswers(
  record: QuestionRecord,
  questionIndex: number,
  read: (question: Question) => readonly string[] | undefined,
): Answers {
  const question = record.questions[questionIndex];
  const values = question && read(question);
  return question && values && values.length > 0 ? { [question.id]: [...values] } : {};
}

/**
 * What a card's step gives a question (Teams' and Google Chat's cards send their inputs with Done and Send):
 * the options ticked, as option positions in any order (each taken once, in the options' order; a position
 * the question lacks is left out), and the own answer typed. A multi-select question takes both; a
 * single-select one takes one or the other, the typed text first, since typing is the deliberate act.
 *
 * @example
 * cardValues(checks, ["2", "0"], "fuzz") // → ["Unit", "Lint", "fuzz"]
 */
export function cardValues(question: Question, ticked: readonly string[], typed: string): string[] {
  const positions = ticked.filter((part) => /^\d$/.test(part.trim())).map(Number);
  const chosen = [...new Set(positions)]
    .sort((a, b) => a - b)
    .flatMap((index) => question.options[index]?.label ?? []);
  const own = typed.trim();
  if (question.multiSelect) return [...chosen, ...(own === "" ? [] : [own])];
  return own !== "" ? [own] : chosen.slice(0, 1);
}
