/**
 * The largest question the ask_user contract allows, in the characters that cost each platform most: three
 * questions of four options, 64-character labels, 200-character descriptions, 1,000-character question texts,
 * 64-character ids, a 500-character context and 4,000-character own answers — written in markup that every
 * platform escapes (one character becoming two to five), in astral characters (two UTF-16 units, four UTF-8
 * bytes each), or both. Every value is checked against the contract here, so the inputs stay the largest the
 * contract takes and never beyond it.
 */
import { normalizeAskUserArgs, type Question, validateAnswers } from "#lib/questions/index.ts";
import { contextSchema, type QuestionRecord } from "#lib/questions/question-record.ts";
import {
  MAX_ANSWER_VALUE_UNITS,
  MAX_DESCRIPTION_UNITS,
  MAX_HEADER_UNITS,
  MAX_LABEL_UNITS,
  MAX_QUESTION_ID_UNITS,
  MAX_QUESTION_UNITS,
} from "#lib/questions/schema.ts";
import { questionRecord } from "./records.ts";

/** The characters a text is written in: what each platform escapes, astral characters, or a mix. */
export const ALPHABETS = {
  /** Escaped by Slack (`&<>`), Discord's and Mattermost's Markdown, Teams' TextBlocks, and JSON (`"\`). */
  markup: `&<>*_\`~|[]()#+-.!{}=$@\\"`,
  /** Two UTF-16 units, four UTF-8 bytes each. */
  astral: "😀𝄞🚀🧪",
  mixed: `a&<*😀_\\"é部[@`,
} as const;
export type Alphabet = keyof typeof ALPHABETS;

/**
 * `units` UTF-16 code units of `alphabet` (never ending in half a surrogate pair: a lone unit left over is
 * an "x"), with `prefix` first.
 */
export function textOf(alphabet: Alphabet, units: number, prefix = ""): string {
  const characters = [...ALPHABETS[alphabet]];
  let text = prefix;
  for (let i = 0; text.length < units; i += 1) {
    const next = characters[i % characters.length] as string;
    text += text.length + next.length <= units ? next : "x";
  }
  return text;
}

/** The three ids of the largest prompt: 64 characters each, mostly `_` (escaped by the Markdown platforms). */
export const LARGEST_IDS = ["a", "b", "c"].map((first) => first + "_".repeat(MAX_QUESTION_ID_UNITS - 1));

/** The ask_user arguments of the largest prompt: single-select, multi-select, single-select. */
export function largestArgs(alphabet: Alphabet) {
  return {
    questions: LARGEST_IDS.map((id, q) => ({
      id,
      header: textOf(alphabet, MAX_HEADER_UNITS),
      question: textOf(alphabet, MAX_QUESTION_UNITS, `Q${q + 1} `),
      ...(q === 1 && { multiSelect: true }),
      options: [0, 1, 2, 3].map((o) => ({
        // Distinct labels, each of the longest: the number first.
        label: textOf(alphabet, MAX_LABEL_UNITS, `${q + 1}${o + 1}`),
        description: textOf(alphabet, MAX_DESCRIPTION_UNITS),
      })),
    })),
  };
}

/** The canonical questions of the largest prompt, as the contract stores them. */
export function largestQuestions(alphabet: Alphabet): Question[] {
  return normalizeAskUserArgs(largestArgs(alphabet)).questions;
}

/** The longest context a caller may give. */
export function largestContext(alphabet: Alphabet): string {
  return contextSchema.parse(textOf(alphabet, 500, "Context "));
}

/** The longest answers: an own answer of 4,000 characters each; the multi-select's with two options too. */
export function largestAnswers(questions: readonly Question[], alphabet: Alphabet) {
  const own = (q: number) => textOf(alphabet, MAX_ANSWER_VALUE_UNITS, `Own${q + 1} `);
  return validateAnswers(
    questions,
    Object.fromEntries(
      questions.map((question, q) => [
        question.id,
        question.multiSelect
          ? [question.options[0]?.label as string, question.options[3]?.label as string, own(q)]
          : [own(q)],
      ]),
    ),
  );
}

/** The largest record: pending, with its context, and (`overrides`) whatever a test adds. */
export function largestRecord(alphabet: Alphabet, overrides: Partial<QuestionRecord> = {}): QuestionRecord {
  return questionRecord({
    // The longest record id (RECORD_ID_PATTERN): the most a control carries.
    id: "r".repeat(48),
    questions: largestQuestions(alphabet),
    context: largestContext(alphabet),
    ...overrides,
  });
}

/** Every way a copy ends, at its largest: answered (also by the escalation owner), expired, cancelled, skipped. */
export function endedRecords(alphabet: Alphabet): [string, QuestionRecord][] {
  const pending = largestRecord(alphabet);
  const answers = largestAnswers(pending.questions, alphabet);
  const escalation = `telegram:${"9".repeat(20)}`;
  return [
    ["answered", { ...pending, status: "answered", answers, resolvedBy: "telegram:42" }],
    [
      "answered by the escalation owner",
      {
        ...pending,
        status: "answered",
        answers,
        resolvedBy: escalation,
        escalate: { afterSeconds: 60, owner: escalation, deliverTo: [{ channel: "telegram", chatId: "9" }] },
      },
    ],
    ["expired", { ...pending, status: "expired" }],
    ["cancelled", { ...pending, status: "cancelled", reason: "cancelled" }],
    ["skipped", { ...pending, status: "cancelled", reason: "skipped" }],
  ];
}

/** A pending record whose stepper holds the longest answers as its draft (a person went Back). */
export function draftedRecord(alphabet: Alphabet, step: number): QuestionRecord {
  const pending = largestRecord(alphabet);
  return { ...pending, draft: largestAnswers(pending.questions, alphabet), step };
}
