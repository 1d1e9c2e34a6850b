import { describe, expect, it } from "vitest";
import { normalizeAskUserArgs } from "#lib/questions/index.ts";
import { readAnswerForm } from "#lib/web/answer-form.ts";

const { questions } = normalizeAskUserArgs({
  questions: [
    {
      id: "target",
      header: "Deploy to",
      question: "Where?",
      options: [{ label: "Staging" }, { label: "Prod" }],
    },
    {
      id: "checks",
      header: "Checks",
      question: "Which?",
      multiSelect: true,
      options: [{ label: "Unit" }, { label: "E2E" }, { label: "Lint" }],
    },
  ],
});

const read = (fields: Record<string, string | string[]>) => {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    for (const v of [value].flat()) params.append(name, v);
  }
  return readAnswerForm(questions, params);
};

describe("the answer page's form", () => {
  it("reads options by index, the own answer, and several ticked options of a multi-select question", () => {
    expect(read({ "a.target": "1", "a.checks": ["0", "2"], "t.checks": "  smoke  " })).toMatchObject({
      kind: "answers",
      answers: { target: ["Prod"], checks: ["Unit", "Lint", "smoke"] },
    });
    expect(read({ "a.target": "other", "t.target": "Canary", "t.checks": "none of them" })).toMatchObject({
      kind: "answers",
      answers: { target: ["Canary"], checks: ["none of them"] },
    });
    // Without the script nothing chooses "Other" when typing: the text alone is the answer.
    expect(read({ "t.target": "Canary", "a.checks": "1" })).toMatchObject({
      kind: "answers",
      answers: { target: ["Canary"], checks: ["E2E"] },
    });
  });

  it("names each question's problem and keeps what was sent", () => {
    const reading = read({ "a.target": "0", "t.target": "Canary", "a.checks": "other" });
    expect(reading).toMatchObject({
      kind: "problems",
      problems: { target: "both", checks: "other_empty" },
      state: { picked: { target: ["0"], checks: ["other"] }, text: { target: "Canary", checks: "" } },
    });
    expect(read({})).toMatchObject({ kind: "problems", problems: { target: "missing", checks: "missing" } });
    expect(read({ "a.target": "other", "a.checks": "0" })).toMatchObject({
      problems: { target: "other_empty" },
    });
    // A tampered form: two radios' values at once.
    expect(read({ "a.target": ["0", "1"], "a.checks": "0" })).toMatchObject({
      problems: { target: "too_many" },
    });
  });

  it("ignores option indexes that do not exist and fields of other questions", () => {
    expect(read({ "a.target": ["9", "1"], "a.nope": "0", "a.checks": ["0", "0", "x"] })).toMatchObject({
      kind: "answers",
      answers: { target: ["Prod"], checks: ["Unit"] },
    });
  });
});
