/**
 * renderPromptText: the plain-text prompt of the reply rules (first line, per-question
 * header, question, numbered options with " - description", free-text line, one guidance line per shape).
 */
import { describe, expect, it } from "vitest";
import { renderPromptText } from "#lib/questions/index.ts";
import { checks, deployTarget, releaseNote } from "./fixtures.ts";

/** The prompt's non-empty lines (blank lines only separate blocks). */
function linesOf(text: string): string[] {
  return text.split("\n").filter((line) => line.trim() !== "");
}

const FREE_TEXT_LINE = expect.stringMatching(/own answer/i);

describe("renderPromptText: one single-select question", () => {
  it("shows the header, the question, numbered options with descriptions, the free-text line and the guidance", () => {
    const text = renderPromptText([deployTarget]);

    expect(linesOf(text)).toEqual([
      "Question for you:",
      "Deploy",
      "Where should this release go?",
      "1. Staging (Recommended) - safe to try",
      "2. Production",
      FREE_TEXT_LINE,
      expect.stringContaining("the number, the option text, or your own answer"),
    ]);
  });

  it('starts with the line "Question for you:"', () => {
    const text = renderPromptText([deployTarget]);

    expect(text.split("\n")[0]).toBe("Question for you:");
  });

  it("neither numbers the header nor shows the id when there is one question", () => {
    const text = renderPromptText([deployTarget]);

    expect(text).not.toContain("[deploy_target]");
    expect(text).not.toMatch(/^1\. Deploy/m);
  });

  it("ends with the guidance line", () => {
    const text = renderPromptText([releaseNote]);

    expect(text.split("\n").at(-1)).toContain("Reply with the number, the option text, or your own answer");
  });
});

describe("renderPromptText: one multi-select question", () => {
  it("numbers the options, says free text is welcome and asks for comma-separated numbers or text", () => {
    const text = renderPromptText([checks]);

    expect(linesOf(text)).toEqual([
      "Question for you:",
      "Checks",
      "Which checks must pass first?",
      "1. Unit",
      "2. E2E",
      "3. Lint",
      FREE_TEXT_LINE,
      expect.stringContaining("comma-separated numbers or text"),
    ]);
  });
});

describe("renderPromptText: several questions", () => {
  const text = renderPromptText([deployTarget, checks, releaseNote]);

  it("numbers each header and shows its id in brackets", () => {
    const headers = linesOf(text).filter((line) => /^\d+\. .+ \[[a-z_]+\]$/.test(line));

    expect(headers).toEqual([
      "1. Deploy [deploy_target]",
      "2. Checks [checks]",
      "3. Release note [release_note]",
    ]);
  });

  it("shows every question with its question text, its own numbered options and a free-text line", () => {
    const lines = linesOf(text).map((line) => line.trim());

    expect(lines).toEqual([
      "Question for you:",
      "1. Deploy [deploy_target]",
      "Where should this release go?",
      "1. Staging (Recommended) - safe to try",
      "2. Production",
      FREE_TEXT_LINE,
      "2. Checks [checks]",
      "Which checks must pass first?",
      "1. Unit",
      "2. E2E",
      "3. Lint",
      FREE_TEXT_LINE,
      "3. Release note [release_note]",
      "What kind of release note?",
      "1. Routine (Recommended)",
      "2. Urgent",
      FREE_TEXT_LINE,
      expect.stringMatching(/number or id/),
    ]);
  });

  it("ends with one guidance line telling to reply by question number or id", () => {
    const guidance = linesOf(text).filter((line) => line.startsWith("Reply"));

    expect(guidance).toEqual([expect.stringMatching(/question number or id/)]);
    expect(text.split("\n").at(-1)).toBe(guidance[0]);
  });

  it("uses the several-questions guidance even when one of them is multi-select", () => {
    const twoText = renderPromptText([checks, deployTarget]);

    expect(twoText.split("\n").at(-1)).toMatch(/question number or id/);
    expect(twoText).not.toContain("comma-separated numbers or text");
  });
});

describe("renderPromptText: option descriptions", () => {
  it('appends " - description" only to options that have one', () => {
    const question = {
      ...deployTarget,
      options: [{ label: "Blue" }, { label: "Green", description: "the new fleet" }, { label: "Red" }],
    };

    const optionLines = linesOf(renderPromptText([question])).filter((line) => /^\d+\. /.test(line));

    expect(optionLines).toEqual(["1. Blue", "2. Green - the new fleet", "3. Red"]);
  });
});

describe("renderPromptText: the context (who is asking and why)", () => {
  it("stands between the first line and the questions, as written, line breaks kept", () => {
    const context = "Release agent for alice:\nv1.4 passed CI.";

    const text = renderPromptText([deployTarget, checks], context);

    expect(text.startsWith(`Question for you:\n\n${context}\n\n1. Deploy [deploy_target]`)).toBe(true);
  });

  it("is left out when there is none", () => {
    expect(renderPromptText([deployTarget], undefined)).toBe(renderPromptText([deployTarget]));
    expect(renderPromptText([deployTarget], "")).toBe(renderPromptText([deployTarget]));
  });
});
