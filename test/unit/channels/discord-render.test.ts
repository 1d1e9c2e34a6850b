import { describe, expect, it } from "vitest";
import { decodeControl } from "#lib/channels/control-codec.ts";
import {
  escapeMarkdown,
  MAX_CONTENT,
  otherAnswer,
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
  it("are controls of the shared codec that fit Discord's 100 characters with the longest question id", () => {
    const three = record([single, multi, { ...single, id: "third" }]);
    const ids = [
      ...flat(renderComponents(record([single]))),
      ...flat(renderComponents(record([multi]))),
      ...[0, 1, 2].flatMap((step) => flat(renderComponents(three, undefined, step))),
      otherModal(three, 2),
    ].map((c) => c.custom_id as string);
    for (const id of ids) {
      expect(id.length).toBeLessThanOrEqual(100);
      expect(decodeControl(id)?.questionId).toBe(LONG_ID);
    }
    // Each names the step it was drawn for: an option of step 3, the select of step 2, the modal of step 3.
    const [staging] = flat(renderComponents(three, undefined, 2));
    expect(decodeControl(staging?.custom_id)).toMatchObject({
      kind: "option",
      questionIndex: 2,
      optionIndex: 0,
    });
    const [select] = flat(renderComponents(three, undefined, 1));
    expect(decodeControl(select?.custom_id)).toMatchObject({ kind: "choose", questionIndex: 1 });
    expect(decodeControl(String(otherModal(three, 2).custom_id))).toMatchObject({
      kind: "other",
      questionIndex: 2,
    });
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
  });

  it("shows a prompt of several questions one step at a time, with its progress", () => {
    const two = record([single, multi]);
    const first = promptContent(two, 0);
    expect(first).toContain("1 of 2 · Deploy to\nWhere should it go?");
    expect(first).not.toContain("Which checks?");
    expect(first).toMatch(/^Tap an option/m);
    const second = promptContent(two, 1);
    expect(second).toContain("2 of 2 · Checks\nWhich checks?");
    expect(second).not.toContain("Where should it go?");
    expect(second).toMatch(/^Pick one or more in the menu/m);
    // A single question shows no progress.
    expect(promptContent(record([single]))).not.toContain("1 of 1");
  });

  it("escapes answers shown in the outcome", () => {
    const answered = record([single], { status: "answered", answers: { deploy_target: ["**bold** @here"] } });
    expect(retiredContent(answered)).toContain("Deploy to: \\*\\*bold\\*\\* @here");
  });
});

describe("components", () => {
  it("single-select: primary option buttons, then Other… and Skip", () => {
    const rows = renderComponents(record([single]));
    expect(rows.map((row) => (row.components as Component[]).map((c) => [c.type, c.style, c.label]))).toEqual(
      [
        [
          [2, 1, "Staging (Recommended)"],
          [2, 1, "Production"],
        ],
        [
          [2, 2, "Other…"],
          [2, 4, "Skip"],
        ],
      ],
    );
  });

  it("multi-select: a string select (min 1, max n, descriptions kept), then Other… and Skip", () => {
    const [select] = flat(
      renderComponents(
        record([
          { ...multi, options: [...multi.options.slice(0, 2), { label: "Lint", description: "fast" }] },
        ]),
      ),
    );
    expect(select).toMatchObject({
      type: 3,
      min_values: 1,
      max_values: 3,
      placeholder: "Choose one or more…",
    });
    expect(select?.options[2]).toEqual({ label: "Lint", value: "2", description: "fast" });
  });

  it("a later step has Back, and shows what the draft holds for it as chosen", () => {
    const drafted = record([single, multi], {
      draft: { deploy_target: ["Production"], checks: ["Unit", "Lint"] },
    });
    const first = flat(renderComponents(drafted, undefined, 0));
    expect(first.map((c) => [c.label, c.style])).toEqual([
      ["Staging (Recommended)", 1],
      ["Production", 3],
      ["Other…", 2],
      ["Skip", 4],
    ]);
    const [select, ...buttons] = flat(renderComponents(drafted, undefined, 1));
    expect(select?.options.map((o: Component) => o.default ?? false)).toEqual([true, false, true]);
    expect(buttons.map((c) => c.label)).toEqual(["Other…", "Back", "Skip"]);
    expect(decodeControl(buttons[1]?.custom_id)).toMatchObject({ kind: "back", questionIndex: 1 });
  });
});

describe("the Other… modal", () => {
  it("has one required text input within Discord's limits", () => {
    const modal: Component = otherModal(record([single, { ...multi, header: "A twelve chr" }]), 1);
    expect(modal.title.length).toBeLessThanOrEqual(45);
    expect(modal.components).toHaveLength(1);
    const [label] = modal.components as Component[];
    expect(label).toMatchObject({ type: 18, label: "A twelve chr", description: "Which checks?" });
    expect(label?.component).toMatchObject({ type: 4, required: true, custom_id: "answer" });
  });

  it("reads the field like a typed reply: numbers and labels become options, lists split, the rest is free text", () => {
    const r = record([single, multi]);
    expect(otherAnswer(r, 0, new Map([["answer", " 2 "]]))).toEqual({ deploy_target: ["Production"] });
    expect(otherAnswer(r, 1, new Map([["answer", "1; lint, custom"]]))).toEqual({
      checks: ["Unit", "Lint", "custom"],
    });
    // "skip" typed in the field is text (the Skip button skips); a blank field answers nothing.
    expect(otherAnswer(r, 0, new Map([["answer", "skip"]]))).toEqual({ deploy_target: ["skip"] });
    expect(otherAnswer(r, 1, new Map([["answer", "  "]]))).toEqual({});
  });
});
