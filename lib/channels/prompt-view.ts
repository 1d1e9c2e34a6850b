/**
 * One prompt view: everything a posted question shows, decided once, in one place — the context, the step of
 * the stepper and its progress ("2 of 3"), the step's question with its choices and which are chosen, the
 * controls that apply (Choose…, Done, Other…, Back, Answer in a form, Answer in browser, Skip) with their
 * labels from the reply catalog and their codec controls (./control-codec.ts), and how an ended question
 * ended. Every platform's renderer maps this value to its own controls (inline keyboards, Block Kit,
 * components, attachments, Adaptive Cards) and decides nothing of its own: which step, what is chosen, which
 * controls a copy carries, and every word, are the view's.
 *
 * Pure: the record and what the copy offers for the answer page in, the view out. A renderer that fits a
 * payload to its platform (./fit.ts) redraws from the record as shortened, so the view is made again from it.
 */
import { renderPromptText } from "../questions/prompt-text.ts";
import type { QuestionRecord } from "../questions/question-record.ts";
import type { Question } from "../questions/schema.ts";
import { ANSWER_IN_BROWSER, type BrowserEntry, NO_BROWSER_ENTRY } from "./answer-in-browser.ts";
import type { Control, ControlKind } from "./control-codec.ts";
import { outcomeText, replies, stepProgressText } from "./replies.ts";

/** One option of the step shown. */
export interface ChoiceView {
  /** Its position in the question's options (what its control names; never its label). */
  readonly index: number;
  readonly label: string;
  readonly description: string | undefined;
  /** Drawn chosen: the draft holds it (the step was answered before, then Back), or its toggle is on. */
  readonly chosen: boolean;
  /** What tapping it sends: a single-select's option, or a multi-select's toggle in its drawn state. */
  readonly control: Control;
}

/** The kinds of control a step carries besides its choices, in the order they are drawn. */
export type StepControlKind = Extract<
  ControlKind,
  "choose" | "done" | "other" | "back" | "form" | "browser" | "skip"
>;

/** A control of the step shown: its label (the reply catalog's) and what it sends. */
export interface StepControl {
  readonly kind: StepControlKind;
  readonly label: string;
  readonly control: Control;
}

/** "Answer in browser" on a private copy: its answerer's own link, opened, never sent to Handraise. */
export interface LinkControl {
  readonly kind: "link";
  readonly label: string;
  readonly url: string;
}

export type ControlView = StepControl | LinkControl;

/** Where the stepper stands, and what the step shows. */
export interface StepView {
  /** The question shown: its position in the record (0 for a prompt of one question). */
  readonly index: number;
  /** How many questions the prompt holds. */
  readonly count: number;
  /** "2 of 3" when the prompt holds several questions; undefined for one. */
  readonly progress: string | undefined;
  readonly question: Question;
  readonly multiSelect: boolean;
  readonly choices: readonly ChoiceView[];
  /** What the draft holds for this question that is no option's label: an own answer given before. */
  readonly typed: readonly string[];
  /**
   * The controls that apply, in order: Choose… and Done (a multi-select), Other…, Back (from the second step
   * on), Answer in a form (several questions), the answer page (its answerer's link on a private copy, the
   * control on a shared one, nothing when the page is off), Skip. A platform leaves out the ones it has its
   * own way for (`controlOf` finds one).
   */
  readonly controls: readonly ControlView[];
}

export interface PromptView {
  /** The question id every control names. */
  readonly questionId: string;
  /** Who is asking and why: above the questions in every drawing. */
  readonly context: string | undefined;
  /** Every question of the prompt, in order: what an ended copy and a typed reply's hint show. */
  readonly questions: readonly Question[];
  /** The step shown (undefined only when the record has no such question). */
  readonly step: StepView | undefined;
  /** Whether the question has ended (answered, skipped, cancelled, expired, undeliverable). */
  readonly ended: boolean;
  /** Its outcome line: how it ended ("Answered — Deploy: Staging"), or that it is still waiting. */
  readonly outcome: string;
}

export interface PromptViewOptions {
  /** The step of the stepper to show (0 for one question); an index the record lacks shows the first. */
  step?: number;
  /** What this copy offers for the answer page: its answerer's link (private), the control (shared), none. */
  browser?: BrowserEntry;
  /**
   * The options drawn chosen, where the copy itself holds them (Telegram's toggles, read back from the tapped
   * keyboard); by default the ones the draft holds for the step.
   */
  chosen?: ReadonlySet<number>;
  /** The person whose own copy this is (`privateTo`): a pending question's outcome line speaks of their vote. */
  voter?: string | undefined;
}

/**
 * The view of `record` at a step, for one copy.
 *
 * @example
 * const view = promptView(record, { step: 1, browser: { kind: "control" } });
 * view.step?.progress // "2 of 3"
 * view.step?.controls.map((c) => c.kind) // ["choose", "done", "other", "back", "form", "browser", "skip"]
 */
export function promptView(record: QuestionRecord, options: PromptViewOptions = {}): PromptView {
  return {
    questionId: record.id,
    context: record.context,
    questions: record.questions,
    step: stepView(record, options),
    ended: record.status !== "pending",
    outcome: outcomeText(record, options.voter),
  };
}

function stepView(record: QuestionRecord, options: PromptViewOptions): StepView | undefined {
  const requested = options.step ?? 0;
  const index = record.questions[requested] === undefined ? 0 : requested;
  const question = record.questions[index];
  if (!question) return undefined;
  const count = record.questions.length;
  const multiSelect = question.multiSelect === true;
  const control = (kind: ControlKind, optionIndex = 0): Control => ({
    kind,
    questionId: record.id,
    questionIndex: index,
    optionIndex,
  });
  const drafted = record.draft?.[question.id] ?? [];
  const labels = question.options.map((option) => option.label);
  const choices = question.options.map((option, optionIndex): ChoiceView => {
    const chosen = options.chosen?.has(optionIndex) ?? drafted.includes(option.label);
    return {
      index: optionIndex,
      label: option.label,
      description: option.description,
      chosen,
      control: multiSelect
        ? { ...control("toggle", optionIndex), selected: chosen }
        : control("option", optionIndex),
    };
  });
  // Every control names the step it was drawn on, the whole prompt's too (Skip, the form, the page).
  const step = (kind: StepControlKind, label: string): StepControl => ({
    kind,
    label,
    control: control(kind),
  });
  const browser = options.browser ?? NO_BROWSER_ENTRY;
  const controls: ControlView[] = [
    ...(multiSelect ? [step("choose", replies.chooseOneOrMore), step("done", replies.done)] : []),
    step("other", replies.other),
    ...(index > 0 ? [step("back", replies.back)] : []),
    ...(count > 1 ? [step("form", replies.answerInForm)] : []),
    ...(browser.kind === "link"
      ? [{ kind: "link" as const, label: ANSWER_IN_BROWSER, url: browser.url }]
      : []),
    ...(browser.kind === "control" ? [step("browser", ANSWER_IN_BROWSER)] : []),
    step("skip", replies.skip),
  ];
  return {
    index,
    count,
    progress: count > 1 ? stepProgressText(index, count) : undefined,
    question,
    multiSelect,
    choices,
    typed: drafted.filter((value) => !labels.includes(value)),
    controls,
  };
}

/** The step's control of `kind`, if it carries one. */
export function controlOf(step: StepView, kind: StepControlKind): StepControl | undefined {
  return step.controls.find((c): c is StepControl => c.kind === kind);
}

/** The answerer's own link, if the step carries it (a private copy with the page on). */
export function linkOf(step: StepView): LinkControl | undefined {
  return step.controls.find((c): c is LinkControl => c.kind === "link");
}

/**
 * The view as plain prompt text, where a platform shows one step at a time in a message's text: one question
 * whole; of several, the step's question with its progress in its header ("Deploy to (1 of 3)").
 */
export function stepPromptText(view: PromptView): string {
  const step = view.step;
  if (!step?.progress) return renderPromptText(view.questions, view.context);
  return renderPromptText(
    [{ ...step.question, header: `${step.question.header} (${step.progress})` }],
    view.context,
  );
}
