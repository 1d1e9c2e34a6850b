/**
 * The one way every channel makes a question's payload fit its platform (./platform-limits.ts): render it
 * from the record as it is, and when that is too large, render it again with the parts that matter least cut
 * shorter — never by cutting the finished payload, which would lose its end (the options of a prompt, the
 * outcome of an ended copy) and could split an escape or a link.
 */
import type { Answers, Question } from "../questions/schema.ts";
import { cutText } from "../questions/text.ts";

/** What a rendering is made from: a question record, or the parts of one a sentence shows. */
export interface Fittable {
  readonly questions: readonly Question[];
  readonly context?: string;
  readonly answers?: Answers;
  readonly draft?: Answers;
}

export interface FitOptions {
  /**
   * An ended copy, which must show its outcome and each question's header and answer but no longer needs the
   * options it offered: they may give way before the answers are cut.
   */
  ended?: boolean;
}

/** What a question text or the context keeps at least before anything of the person's is cut. */
const KEPT_TEXT_UNITS = 40;
/** What anything keeps at the very least: one character and "…". */
const LAST_UNITS = 2;

/** One kind of text that gives way: how long its longest is, and the value with all of it held to `max`. */
interface Stage<R> {
  longest(value: R): number;
  hold(value: R, max: number): R;
  floor: number;
}

const longestOf = (texts: Iterable<string>) => Math.max(0, ...[...texts].map((text) => text.length));
const valuesOf = (answers: Answers | undefined) => Object.values(answers ?? {}).flat();
const cutAnswers = (answers: Answers, max: number): Answers =>
  Object.fromEntries(Object.entries(answers).map(([id, values]) => [id, values.map((v) => cutText(v, max))]));

function descriptions<R extends Fittable>(): Stage<R> {
  return {
    floor: 0,
    longest: (value) =>
      longestOf(value.questions.flatMap((q) => q.options.map((option) => option.description ?? ""))),
    hold: (value, max) => ({
      ...value,
      questions: value.questions.map((question) => ({
        ...question,
        options: question.options.map(({ description, ...option }) => {
          const kept = description === undefined ? "" : cutText(description, max);
          return kept === "" ? option : { ...option, description: kept };
        }),
      })),
    }),
  };
}

function texts<R extends Fittable>(floor: number): Stage<R> {
  return {
    floor,
    longest: (value) => longestOf([value.context ?? "", ...value.questions.map((q) => q.question)]),
    hold: (value, max) => ({
      ...value,
      questions: value.questions.map((question) => ({
        ...question,
        question: cutText(question.question, max),
      })),
      ...(value.context !== undefined && { context: cutText(value.context, max) }),
    }),
  };
}

function optionLists<R extends Fittable>(): Stage<R> {
  return {
    floor: 0,
    longest: (value) => (value.questions.some((q) => q.options.length > 0) ? 1 : 0),
    hold: (value, max) =>
      max > 0 ? value : { ...value, questions: value.questions.map((q) => ({ ...q, options: [] })) },
  };
}

function answers<R extends Fittable>(): Stage<R> {
  return {
    floor: LAST_UNITS,
    longest: (value) => longestOf([...valuesOf(value.answers), ...valuesOf(value.draft)]),
    hold: (value, max) => ({
      ...value,
      ...(value.answers !== undefined && { answers: cutAnswers(value.answers, max) }),
      ...(value.draft !== undefined && { draft: cutAnswers(value.draft, max) }),
    }),
  };
}

/**
 * The rendering of `value` that `fits`: `render(value)` when that fits; else rendered again with what matters
 * least cut shorter, in this order, each step only as far as needed:
 * 1. option descriptions, down to none;
 * 2. question texts and the context, down to 40 characters;
 * 3. on an ended copy, the option lists;
 * 4. answers (and the values a stepper's draft holds), down to one character and "…";
 * 5. question texts and the context, down to one character and "…".
 * Within a step every text of its kind is held to one length, the longest that fits, so the longest texts
 * give way first. Headers, option labels and the product's own sentences are never cut. When nothing fits,
 * the smallest rendering (a test per platform shows the largest question the contract allows fits).
 *
 * @example
 * fitToLimit(record, (r) => renderText(r), (text) => text.length <= 4096, { ended: true })
 */
export function fitToLimit<R extends Fittable, T>(
  value: R,
  render: (value: R) => T,
  fits: (rendered: T) => boolean,
  options: FitOptions = {},
): T {
  let current = value;
  let rendered = render(current);
  if (fits(rendered)) return rendered;
  const stages: Stage<R>[] = [
    descriptions(),
    texts(KEPT_TEXT_UNITS),
    ...(options.ended ? [optionLists<R>()] : []),
    answers(),
    texts(LAST_UNITS),
  ];
  for (const stage of stages) {
    const longest = stage.longest(current);
    if (longest <= stage.floor) continue;
    const atFloor = stage.hold(current, stage.floor);
    const smallest = render(atFloor);
    if (!fits(smallest)) {
      current = atFloor;
      rendered = smallest;
      continue;
    }
    // The longest length that fits, between the floor (fits) and the longest (did not).
    let [low, high, best] = [stage.floor, longest - 1, smallest];
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      const attempt = render(stage.hold(current, middle));
      if (fits(attempt)) [low, best] = [middle, attempt];
      else high = middle - 1;
    }
    return best;
  }
  return rendered;
}
