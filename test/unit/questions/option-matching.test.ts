/**
 * The one rule that matches a person's words to an option label (lib/questions/options.ts `matchLabel`),
 * as every answer path applies it: typed replies (parseTextReply) and answers given over the API, the page,
 * MCP or a durable run (validateAnswers).
 */
import { describe, expect, it } from "vitest";
import { normalizeAskUserArgs, parseTextReply, validateAnswers } from "#lib/questions/index.ts";

const { questions } = normalizeAskUserArgs({
  questions: [
    {
      id: "target",
      header: "Target",
      question: "Where?",
      options: [{ label: "Staging (Recommended)" }, { label: "Production" }, { label: "Yes." }],
    },
  ],
});
const [target] = questions;
const { questions: withBoth } = normalizeAskUserArgs({
  questions: [
    {
      id: "target",
      header: "Target",
      question: "Where?",
      options: [{ label: "Staging (Recommended)" }, { label: "Staging" }],
    },
  ],
});

/** What each path makes of one value: [typed line, API answer]. */
function bothPaths(qs: typeof questions, value: string): [string[] | undefined, string[] | undefined] {
  const typed = parseTextReply(qs, value);
  const api = validateAnswers(qs, { target: [value] });
  return [typed.kind === "answer" ? typed.answers.target : undefined, api.target];
}

describe("matching a person's words to an option", () => {
  it.each([
    ["Staging (Recommended)", "Staging (Recommended)"],
    ["staging (recommended)", "Staging (Recommended)"],
    ["staging", "Staging (Recommended)"],
    ["  STAGING  ", "Staging (Recommended)"],
    ["Staging.", "Staging (Recommended)"],
    ["staging!", "Staging (Recommended)"],
    ["ｓｔａｇｉｎｇ", "Staging (Recommended)"], // full-width letters (NFKC)
    ["production", "Production"],
    ["Production!", "Production"],
    ["yes", "Yes."],
    ["YES!", "Yes."],
    ["2", "Production"],
  ])("%j names %j, typed or given over the API", (value, label) => {
    const [typed, api] = bothPaths(questions, value);
    expect(typed).toEqual([label]);
    // A number names an option only when typed; over the API it is the person's own answer.
    expect(api).toEqual([value === "2" ? "2" : label]);
  });

  it("an exact label wins over one matched without its (Recommended) suffix", () => {
    expect(bothPaths(withBoth, "Staging")).toEqual([["Staging"], ["Staging"]]);
    expect(bothPaths(withBoth, "staging")).toEqual([["Staging"], ["Staging"]]);
    expect(bothPaths(withBoth, "Staging (Recommended)")).toEqual([
      ["Staging (Recommended)"],
      ["Staging (Recommended)"],
    ]);
  });

  it.each(["stage", "Recommended", "(Recommended)", "Staging (Recommended) please", "Production, please"])(
    "%j names no option: it is the person's own answer, kept as written",
    (value) => {
      const [typed, api] = bothPaths(questions, value);
      expect(api).toEqual([value]);
      expect(typed).toEqual([value]);
      expect(target?.options.map((o) => o.label)).not.toContain(value);
    },
  );
});
