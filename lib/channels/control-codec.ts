/**
 * The one codec for the controls Handraise puts on a posted question, on every platform: a button's
 * callback_data (Telegram, ≤ 64 bytes), action_id / value (Slack), custom_id (Discord, ≤ 100), an action's
 * context (Mattermost) or an Action.Submit's data (Teams) all carry the same short string. It names the
 * question and the control — never a token or an answer — and is read back into the `ControlAction` the
 * shared pipeline (lib/app/handle-inbound.ts) takes.
 *
 * @example
 * encodeControl({ kind: "option", questionId: "ask_1", questionIndex: 1, optionIndex: 0 }) // "o|1|0|ask_1"
 * decodeControl("b|2|0|ask_1") // → { kind: "back", questionId: "ask_1", questionIndex: 2, optionIndex: 0 }
 */
import type { Answers } from "../questions/schema.ts";
import type { ControlAction, Inbound, InboundBase } from "./inbound.ts";

export type ControlKind =
  /** A single-select option: answers its sub-question (a step of a stepper). */
  | "option"
  /** A multi-select option's toggle, drawn unselected (`t0`) or selected (`t1`): not submitted yet. */
  | "toggle"
  /** Done under toggles: submits the ones selected (the platform says which). */
  | "done"
  /** A select or a checkbox group whose chosen values come with the event. */
  | "choose"
  /** Other…: the person wants to type this sub-question's answer. */
  | "other"
  /** Answer in a form: every question at once in a modal. */
  | "form"
  /** The stepper's Back. */
  | "back"
  | "skip"
  /** "Answer in browser" in a shared conversation: the tapper is handed their own link privately. */
  | "browser";

export interface Control {
  kind: ControlKind;
  questionId: string;
  /**
   * Position of the sub-question in the record: the step the control was drawn on, for the whole prompt's
   * controls (Skip, Answer in a form, Answer in browser) too (lib/channels/prompt-view.ts).
   */
  questionIndex: number;
  /** Position of the option (0 where the kind names none). */
  optionIndex: number;
  /** A toggle: whether it is drawn selected. */
  selected?: boolean;
}

const CODE: Record<ControlKind, string> = {
  option: "o",
  toggle: "t",
  done: "d",
  choose: "c",
  other: "x",
  form: "f",
  back: "b",
  skip: "s",
  browser: "w",
};
const KIND_OF = new Map<string, ControlKind>(
  Object.entries(CODE).map(([kind, code]) => [code, kind as ControlKind]),
);

/** `<kind>|<sub-question>|<option>|<question id>`; a toggle's kind carries its state (`t0` / `t1`). */
const CONTROL = /^([odcxfbsw]|t[01])\|(\d{1,2})\|(\d{1,2})\|([A-Za-z0-9_-]{1,48})$/;

/** At most 57 characters: the question id is at most 48 (RECORD_ID_PATTERN). */
export function encodeControl(control: Control): string {
  const code = control.kind === "toggle" ? `${CODE.toggle}${control.selected ? 1 : 0}` : CODE[control.kind];
  return `${code}|${control.questionIndex}|${control.optionIndex}|${control.questionId}`;
}

/** The control a string names, or undefined when it is not one of ours (or not any more). */
export function decodeControl(data: string): Control | undefined {
  const match = CONTROL.exec(data);
  const code = match?.[1];
  const questionId = match?.[4];
  if (!code || !questionId) return undefined;
  const kind = KIND_OF.get(code.charAt(0));
  if (!kind) return undefined;
  return {
    kind,
    questionId,
    questionIndex: Number(match[2]),
    optionIndex: Number(match[3]),
    ...(kind === "toggle" && { selected: code === "t1" }),
  };
}

/**
 * The action a control stands for. `chosen`: the option positions the platform reports with the event for
 * Done and a select or checkbox group (Telegram: the toggles drawn selected; Slack: the ticked boxes;
 * Discord: the select's values). A form asks for text like Other… does; the adapter opens the whole form.
 */
export function controlAction(control: Control, chosen: readonly number[] = []): ControlAction {
  const questionIndex = control.questionIndex;
  switch (control.kind) {
    case "option":
      return { type: "option", questionIndex, optionIndex: control.optionIndex };
    case "toggle":
      return { type: "toggle", questionIndex, optionIndex: control.optionIndex };
    case "done":
    case "choose":
      return { type: "choose", questionIndex, optionIndexes: [...chosen] };
    case "other":
    case "form":
      return { type: "other", questionIndex };
    case "back":
      return { type: "back", questionIndex };
    case "skip":
      return { type: "skip" };
    case "browser":
      return { type: "browser" };
  }
}

/** The taps on a card that send its inputs with them: a step's Done and Send (the own-answer box). */
const SENDS_INPUTS: ReadonlySet<ControlKind> = new Set(["done", "other"]);

/**
 * A tap on a card with inputs (Teams', Google Chat's) before its question is read: one that sends the inputs
 * is a `form` with no answers yet, which `inputsInbound` fills once the record is known; any other is the
 * control itself.
 */
export function cardTapInbound(base: InboundBase, control: Control): Inbound {
  const { questionId } = control;
  return SENDS_INPUTS.has(control.kind)
    ? { ...base, kind: "form", questionId, answers: {} }
    : { ...base, kind: "control", questionId, action: controlAction(control) };
}

/**
 * A tap that sent a card's inputs with it (Teams' and Google Chat's Done and Send), once the answers they give
 * the tapped step are read against the record: those answers, moving the stepper on from that step when the
 * prompt has several questions — or, when nothing was ticked or typed, the control itself, so the shared
 * pipeline still checks who tapped before the person is told what is needed.
 */
export function inputsInbound(
  inbound: Extract<Inbound, { kind: "form" }>,
  control: Control,
  answers: Answers,
  several: boolean,
): Inbound {
  if (Object.keys(answers).length === 0) {
    const { platform, actor, chatId, dedupeKey, questionId } = inbound;
    return {
      platform,
      actor,
      chatId,
      dedupeKey,
      questionId,
      kind: "control",
      action: controlAction(control),
    };
  }
  return { ...inbound, answers, ...(several && { step: control.questionIndex }) };
}
