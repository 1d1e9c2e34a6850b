/**
 * The prompt view (lib/channels/prompt-view.ts): what every renderer maps — the stepper's step and progress,
 * the choices and which are chosen, the controls a copy carries, the outcome — decided once for all.
 */
import { describe, expect, it } from "vitest";
import { ANSWER_IN_BROWSER } from "#lib/channels/answer-in-browser.ts";
import { decodeControl, encodeControl } from "#lib/channels/control-codec.ts";
import { controlOf, linkOf, promptView, type StepView } from "#lib/channels/prompt-view.ts";
import { replies } from "#lib/channels/replies.ts";
import { questionRecord } from "../../support/records.ts";
import { deployTarget } from "../questions/fixtures.ts";

/** The example prompt: Deploy (single), Checks (multi), Release note (single). */
const three = questionRecord();
const one = questionRecord({ questions: [deployTarget] });

const kinds = (step: StepView | undefined) => step?.controls.map((c) => c.kind);
const chosen = (step: StepView | undefined) => step?.choices.filter((c) => c.chosen).map((c) => c.label);

describe("the stepper", () => {
  it("shows each step with its progress; Back from the second on; the form while there are several", () => {
    const steps = [0, 1, 2].map((step) => promptView(three, { step }).step);
    expect(steps.map((s) => [s?.index, s?.count, s?.progress, s?.question.id])).toEqual([
      [0, 3, "1 of 3", "deploy_target"],
      [1, 3, "2 of 3", "checks"],
      [2, 3, "3 of 3", "release_note"],
    ]);
    expect(steps.map(kinds)).toEqual([
      ["other", "form", "skip"],
      ["choose", "done", "other", "back", "form", "skip"],
      ["other", "back", "form", "skip"],
    ]);
  });

  it("a single question is step 0 of 1: no progress, no Back, no form", () => {
    const step = promptView(one).step;
    expect(step).toMatchObject({ index: 0, count: 1, progress: undefined, multiSelect: false });
    expect(kinds(step)).toEqual(["other", "skip"]);
  });

  it("every control names the question and the step it was drawn on, and survives the codec", () => {
    const step = promptView(three, { step: 1, browser: { kind: "control" } }).step as StepView;
    const controls = [
      ...step.choices.map((c) => c.control),
      ...step.controls.flatMap((c) => ("control" in c ? [c.control] : [])),
    ];
    expect(controls.length).toBe(10);
    for (const control of controls) {
      expect(control).toMatchObject({ questionId: three.id, questionIndex: 1 });
      expect(decodeControl(encodeControl(control))).toEqual(control);
    }
  });

  it("a step the record does not have shows the first", () => {
    expect(promptView(three, { step: 7 }).step?.index).toBe(0);
  });

  it("labels every control with the reply catalog's words", () => {
    const step = promptView(three, { step: 1, browser: { kind: "control" } }).step as StepView;
    expect(step.controls.map((c) => c.label)).toEqual([
      replies.chooseOneOrMore,
      replies.done,
      replies.other,
      replies.back,
      replies.answerInForm,
      ANSWER_IN_BROWSER,
      replies.skip,
    ]);
  });
});

describe("what is chosen", () => {
  it("a single-select step: the option the draft holds (Back to a step answered before)", () => {
    const record = questionRecord({ draft: { deploy_target: ["Production"] } });
    const step = promptView(record, { step: 0 }).step;
    expect(chosen(step)).toEqual(["Production"]);
    expect(step?.choices.map((c) => c.control.kind)).toEqual(["option", "option"]);
    expect(step?.typed).toEqual([]);
  });

  it("an own answer the draft holds is typed, not a choice", () => {
    const step = promptView(questionRecord({ draft: { deploy_target: ["Canary"] } })).step;
    expect(chosen(step)).toEqual([]);
    expect(step?.typed).toEqual(["Canary"]);
  });

  it("a multi-select step: toggles drawn in their state, from the draft", () => {
    const record = questionRecord({ draft: { checks: ["Unit", "Lint"] } });
    const step = promptView(record, { step: 1 }).step;
    expect(step?.multiSelect).toBe(true);
    expect(step?.choices.map((c) => [c.label, c.chosen, c.control.kind, c.control.selected])).toEqual([
      ["Unit", true, "toggle", true],
      ["E2E", false, "toggle", false],
      ["Lint", true, "toggle", true],
    ]);
  });

  it("a multi-select step: the toggles the copy holds (a tap on one) win over the draft", () => {
    const record = questionRecord({ draft: { checks: ["Unit"] } });
    const step = promptView(record, { step: 1, chosen: new Set([1, 2]) }).step;
    expect(chosen(step)).toEqual(["E2E", "Lint"]);
    expect(step?.choices.map((c) => c.control.selected)).toEqual([false, true, true]);
  });

  it("another step's draft is not chosen here", () => {
    const step = promptView(questionRecord({ draft: { deploy_target: ["Production"] } }), { step: 2 }).step;
    expect(chosen(step)).toEqual([]);
  });
});

describe("a private and a shared copy", () => {
  const url = "https://handraise.example/answer/ask_1?t=x";

  it("a private copy carries its answerer's link, before Skip, and no browser control", () => {
    const step = promptView(one, { browser: { kind: "link", url } }).step as StepView;
    expect(kinds(step)).toEqual(["other", "link", "skip"]);
    expect(linkOf(step)).toEqual({ kind: "link", label: ANSWER_IN_BROWSER, url });
    expect(controlOf(step, "browser")).toBeUndefined();
  });

  it("a shared copy carries the control that hands each tapper their own link, and no link", () => {
    const step = promptView(one, { browser: { kind: "control" } }).step as StepView;
    expect(kinds(step)).toEqual(["other", "browser", "skip"]);
    expect(linkOf(step)).toBeUndefined();
    expect(controlOf(step, "browser")?.control).toMatchObject({ kind: "browser", questionId: one.id });
  });

  it("with the answer page off, neither", () => {
    expect(kinds(promptView(one, { browser: { kind: "none" } }).step)).toEqual(["other", "skip"]);
  });
});

describe("the outcome", () => {
  it("a waiting question has not ended", () => {
    expect(promptView(three)).toMatchObject({ ended: false, outcome: "Waiting for an answer." });
  });

  it.each([
    [
      "answered",
      questionRecord({
        status: "answered",
        answers: { deploy_target: ["Production"], checks: ["Unit", "Lint"], release_note: ["Urgent"] },
      }),
      "Answered — Deploy: Production; Checks: Unit, Lint; Release note: Urgent",
    ],
    ["skipped", questionRecord({ status: "cancelled", reason: "skipped" }), "Skipped."],
    ["cancelled", questionRecord({ status: "cancelled", reason: "cancelled" }), "Cancelled."],
    ["expired", questionRecord({ status: "expired" }), "Expired: no answer in time."],
  ])("%s: ended, with its outcome line", (_, record, outcome) => {
    const view = promptView(record);
    expect(view).toMatchObject({ ended: true, outcome, questionId: record.id });
    expect(view.questions).toBe(record.questions);
  });

  it("holds the context every drawing shows above the questions", () => {
    expect(promptView(questionRecord({ context: "Release 1.2 for the web team" })).context).toBe(
      "Release 1.2 for the web team",
    );
  });
});
