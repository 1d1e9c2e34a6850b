import { describe, expect, it } from "vitest";
import {
  decodeComponentId,
  decodeModalId,
  escapeMarkdown,
  formModal,
  MAX_CONTENT,
  modalAnswers,
  otherModal,
  promptContent,
  renderComponents,
  retiredContent,
} from "#lib/channels/discord/discord-render.ts";
import type { Question } from "#lib/questions/index.ts";
import type { QuestionRecord } from "#lib/questions/question-record.ts";

const single: Question = {
  id: "deploy_target",
  header: "Deploy to",
  question: "Where should it go?",
  options: [{ label: "Staging (Recommended)" }, { label: "Production", description: "the real thing" }],
  allowOther: true,
};
const multi: Question = {
  id: "checks",
  header: "Checks",
  question: "Which checks?",
  options: [{ label: "Unit" }, { label: "E2E" }, { label: "Lint" }],
  multiSelect: true,
  allowOther: true,
};
/** The longest question id the API accepts (48 characters). */
const LONG_ID = "q".repeat(48);
const record = (questions: Question[], overrides: Partial<QuestionRecord> = {}): QuestionRecord => ({
  id: LONG_ID,
  status: "pending",
  questions,
  owner: "discord:1",
  deliveries: [],
  createdAtMs: 0,
  expiresAtMs: 1,
  ...overrides,
});
type Component = Record<string, any>;
const flat = (components: Component[]) => components.flatMap((row) => row.components as Component[]);

describe("escapeMarkdown", () => {
  it("escapes every markdown character and line-leading headings, subtext and lists", () => {
    expect(escapeMarkdown("a*b_c~d`e|f>g\\h[i](j)")).toBe("a\\*b\\_c\\~d\\`e\\|f\\>g\\\\h\\[i\\](j)");
    expect(escapeMarkdown("# Title\n-# small\n  - item\nmid-line # stays")).toBe(
      "\\# Title\n\\-# small\n  \\- item\nmid-line # stays",
    );
  });
});

describe("custom ids", () => {
  it("fit Discord's 100 characters with the longest question id, and decode back", () => {
    const ids = [
      ...flat(renderComponents(record([single]))),
      ...flat(renderComponents(record([multi]))),
      ...flat(renderComponents(record([single, multi]))),
    ].map((c) => c.custom_id as string);
    for (const id of ids) {
      expect(id.length).toBeLessThanOrEqual(100);
      expect(decodeComponentId(id)?.questionId).toBe(LONG_ID);
    }
    expect(decodeComponentId(`a|${LONG_ID}|0|1`)).toEqual({
      kind: "option",
      questionId: LONG_ID,
      sub: 0,
      option: 1,
    });
    expect(decodeComponentId(`m|${LONG_ID}|0`)).toEqual({ kind: "select", questionId: LONG_ID, sub: 0 });
    expect(decodeModalId(String(formModal(record([single, multi])).custom_id))).toEqual({
      kind: "form",
      questionId: LONG_ID,
    });
    expect(decodeModalId(String(otherModal(record([single]), 0).custom_id))).toEqual({
      kind: "other",
      questionId: LONG_ID,
      sub: 0,
    });
    for (const bad of ["", "a|x|0|9x", "a|has space|0|1", `a|${"q".repeat(49)}|0|1`, "m|x|y", "o|x"])
      expect(decodeComponentId(bad) ?? decodeModalId(bad)).toBeUndefined();
  });
});

describe("content", () => {
  it("stays within 2000 characters however long the question, and keeps the outcome when retired", () => {
    const long = record([{ ...single, question: `${"*".repeat(3000)} end` }], {
      status: "answered",
      answers: { deploy_target: ["Production"] },
    });
    expect(promptContent(long).length).toBeLessThanOrEqual(MAX_CONTENT);
    expect(promptContent(long)).toMatch(/\/cancel cancels the question\.$/);
    const retired = retiredContent(long);
    expect(retired.length).toBeLessThanOrEqual(MAX_CONTENT);
    expect(retired).toMatch(/Answered — Deploy to: Production$/);
  });

  it("says how to answer in Discord instead of asking for a typed reply", () => {
    const text = promptContent(record([single]));
    expect(text).not.toContain("Reply with");
    expect(text).toContain("Tap an option, or Other…");
    expect(promptContent(record([single, multi]))).toContain("Tap Answer in a form");
  });

  it("escapes answers shown in the outcome", () => {
    const answered = record([single], { status: "answered", answers: { deploy_target: ["**bold** @here"] } });
    expect(retiredContent(answered)).toContain("Deploy to: \\*\\*bold\\*\\* @here");
  });
});

describe("components", () => {
  it("single-select: primary option buttons, then Other… and Skip", () => {
    const rows = renderComponents(record([single]));
    expect(rows.map((row) => (row.components as Component[]).map((c) => [c.type, c.label]))).toEqual([
      [
        [2, "Staging (Recommended)"],
        [2, "Production"],
      ],
      [
        [2, "Other…"],
        [2, "Skip"],
      ],
    ]);
  });

  it("multi-select: a string select (min 1, max n, descriptions kept), then Other… and Skip", () => {
    const [select] = flat(
      renderComponents(
        record([
          { ...multi, options: [...multi.options.slice(0, 2), { label: "Lint", description: "fast" }] },
        ]),
      ),
    );
    expect(select).toMatchObject({ type: 3, min_values: 1, max_values: 3 });
    expect(select?.options[2]).toEqual({ label: "Lint", value: "2", description: "fast" });
  });
});

describe("modals", () => {
  it("the form has one required text input per sub-question within Discord's limits", () => {
    const modal: Component = formModal(
      record([single, multi, { ...single, id: "third", header: "A twelve chr" }]),
    );
    expect(modal.title.length).toBeLessThanOrEqual(45);
    expect(modal.components).toHaveLength(3);
    for (const label of modal.components as Component[]) {
      expect(label.type).toBe(18);
      expect(label.label.length).toBeLessThanOrEqual(45);
      expect(label.description.length).toBeLessThanOrEqual(100);
      expect(label.component).toMatchObject({ type: 4, required: true });
      expect(label.component.placeholder.length).toBeLessThanOrEqual(100);
    }
  });

  it("reads fields like typed replies: numbers and labels become options, lists split, the rest is free text", () => {
    const r = record([single, multi]);
    const fields = new Map([
      ["q0", " 2 "],
      ["q1", "1; lint, custom"],
    ]);
    expect(modalAnswers(r, { kind: "form", questionId: r.id }, fields)).toEqual({
      deploy_target: ["Production"],
      checks: ["Unit", "Lint", "custom"],
    });
    // Blank fields are left out (the pipeline reports them missing); "skip" typed in a field is text.
    expect(
      modalAnswers(
        r,
        { kind: "form", questionId: r.id },
        new Map([
          ["q0", "skip"],
          ["q1", "  "],
        ]),
      ),
    ).toEqual({
      deploy_target: ["skip"],
    });
    expect(
      modalAnswers(r, { kind: "other", questionId: r.id, sub: 1 }, new Map([["answer", "all of them"]])),
    ).toEqual({
      checks: ["all of them"],
    });
  });
});
