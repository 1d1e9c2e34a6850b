/** Telegram's drawing of a prompt: the stepper's keyboards and the control codec in callback_data. */
import { describe, expect, it } from "vitest";
import { decodeControl } from "#lib/channels/control-codec.ts";
import { type InlineButton, renderPrompt, selectedToggles } from "#lib/channels/telegram/telegram-render.ts";
import type { Question } from "#lib/questions/index.ts";
import { firstOpenStep, type QuestionRecord } from "#lib/questions/question-record.ts";

const single: Question = {
  id: "deploy_target",
  header: "Deploy to",
  question: "Where?",
  options: [{ label: "Staging" }, { label: "Production" }],
  allowOther: true,
};
const multi: Question = {
  id: "checks",
  header: "Checks",
  question: "Which?",
  multiSelect: true,
  options: [{ label: "Unit" }, { label: "E2E" }, { label: "Lint" }, { label: "Perf" }],
  allowOther: true,
};
/** The longest id a record may have (RECORD_ID_PATTERN): the worst case for callback_data's 64 bytes. */
const LONGEST_ID = "q".repeat(48);
const record = (questions: Question[], draft?: QuestionRecord["draft"]): QuestionRecord => ({
  id: LONGEST_ID,
  status: "pending",
  questions,
  owner: "telegram:42",
  deliveries: [],
  createdAtMs: 0,
  expiresAtMs: 1,
  ...(draft !== undefined && { draft }),
});
/** The callback buttons of a step as a shared copy draws it: "Answer in browser" is one of them. */
const callbacks = (questions: Question[], step: number, draft?: QuestionRecord["draft"]) =>
  renderPrompt(record(questions, draft), step, { kind: "control" })
    .reply_markup.inline_keyboard.flat()
    .filter((b): b is InlineButton => "callback_data" in b);

describe("Telegram prompt drawing", () => {
  it("every button of every step carries a control of this question and step in at most 64 bytes", () => {
    const questions = [single, multi, single];
    for (const step of [0, 1, 2]) {
      for (const b of callbacks(questions, step)) {
        expect(Buffer.byteLength(b.callback_data)).toBeLessThanOrEqual(64);
        const control = decodeControl(b.callback_data);
        expect(control).toMatchObject({ questionId: LONGEST_ID });
        if (control?.kind !== "skip") expect(control?.questionIndex).toBe(step);
      }
    }
  });

  it("Back from the second step on, never on the first or on a single question", () => {
    const kinds = (questions: Question[], step: number) =>
      callbacks(questions, step).map((b) => decodeControl(b.callback_data)?.kind);
    expect(kinds([single], 0)).not.toContain("back");
    expect(kinds([single, multi], 0)).not.toContain("back");
    expect(kinds([single, multi], 1)).toEqual([
      "toggle",
      "toggle",
      "toggle",
      "toggle",
      "done",
      "other",
      "back",
      "browser",
      "skip",
    ]);
  });

  it("the draft's choice is drawn chosen: ✅ on a single-select option, toggles on for a multi-select", () => {
    const draft = { deploy_target: ["Production"], checks: ["E2E", "Perf", "not an option"] };
    expect(callbacks([single, multi], 0, draft).map((b) => b.text)).toContain("✅ Production");
    const keyboard = renderPrompt(record([single, multi], draft), 1).reply_markup.inline_keyboard;
    expect([...selectedToggles(keyboard)]).toEqual([1, 3]);
  });

  it("a step's text has its header with the progress, its question and numbered options, and no other question", () => {
    const { text } = renderPrompt(record([single, multi]), 1);
    expect(text).toContain("Checks (2 of 2)\nWhich?\n1. Unit\n2. E2E\n3. Lint\n4. Perf");
    expect(text).toContain("Reply with comma-separated numbers or text");
    expect(text).not.toContain("Where?");
  });

  it("posted (again), the prompt starts at the first question the draft has no value for", () => {
    expect(firstOpenStep(record([single, multi, single]))).toBe(0);
    expect(firstOpenStep(record([single, multi, single], { deploy_target: ["Staging"] }))).toBe(1);
  });
});
