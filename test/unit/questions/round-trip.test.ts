/**
 * The contract's end-to-end round trip, through the pure domain: three questions and a 60 s
 * timeout; the user answers Production / Unit + E2E / "night-shift"; the model reads the result and can state
 * `deploy=Production | checks=Unit (Recommended),E2E | note=night-shift`.
 */
import { describe, expect, it } from "vitest";
import {
  type Answers,
  formatToolResult,
  normalizeAskUserArgs,
  parseTextReply,
  renderPromptText,
  validateAnswers,
} from "#lib/questions/index.ts";

const modelArgs = {
  questions: [
    {
      id: "deploy_target",
      header: "Deploy",
      question: "Where should this release go?",
      options: [{ label: "Staging (Recommended)" }, { label: "Production" }],
    },
    {
      id: "checks",
      header: "Checks",
      question: "Which checks must pass first?",
      options: [{ label: "Unit (Recommended)" }, { label: "E2E" }, { label: "Lint" }],
      multiSelect: true,
    },
    {
      id: "release_note",
      header: "Release note",
      question: "What kind of release note?",
      options: [{ label: "Routine (Recommended)" }, { label: "Urgent" }],
    },
  ],
  timeoutSeconds: 60,
};

const expectedAnswers: Answers = {
  deploy_target: ["Production"],
  checks: ["Unit (Recommended)", "E2E"],
  release_note: ["night-shift"],
};

/** The final reply the contract says the model can give. */
function finalReply(answers: Answers): string {
  return `deploy=${answers.deploy_target?.join(",")} | checks=${answers.checks?.join(",")} | note=${answers.release_note?.join(",")}`;
}

describe("the round trip of the demo", () => {
  it("stores 3 questions, the second multi-select, all allowing free text, with the 60 s timeout", () => {
    const request = normalizeAskUserArgs(modelArgs);

    expect(request.timeoutSeconds).toBe(60);
    expect(request.questions.map((q) => [q.id, q.multiSelect === true, q.allowOther])).toEqual([
      ["deploy_target", false, true],
      ["checks", true, true],
      ["release_note", false, true],
    ]);
  });

  it("renders a prompt that names every question by number and id", () => {
    const { questions } = normalizeAskUserArgs(modelArgs);

    const prompt = renderPromptText(questions);

    expect(prompt.split("\n")[0]).toBe("Question for you:");
    expect(prompt).toContain("1. Deploy [deploy_target]");
    expect(prompt).toContain("2. Checks [checks]");
    expect(prompt).toContain("3. Release note [release_note]");
  });

  it.each([
    ["by position and option numbers", "2\n1, 2\nnight-shift"],
    [
      "by keyed lines with labels",
      "deploy_target: production\nchecks: unit (recommended), e2e\nrelease_note: night-shift",
    ],
    ["by question numbers", "3: night-shift\n1: 2\n2: 1; 2"],
  ])("reads the typed reply %s as Production / Unit + E2E / night-shift", (_form, text) => {
    const { questions } = normalizeAskUserArgs(modelArgs);

    const reply = parseTextReply(questions, text);

    expect(reply).toEqual({ kind: "answer", answers: expectedAnswers });
  });

  it("accepts the same answers as an answer envelope (buttons or the API)", () => {
    const { questions } = normalizeAskUserArgs(modelArgs);

    const answers = validateAnswers(questions, {
      checks: ["unit (recommended)", " E2E "],
      release_note: [" night-shift "],
      deploy_target: ["PRODUCTION"],
    });

    expect(answers).toEqual(expectedAnswers);
    expect(Object.keys(answers)).toEqual(["deploy_target", "checks", "release_note"]);
  });

  it("gives the model the summary lines and the JSON from which it states the final reply", () => {
    const { questions } = normalizeAskUserArgs(modelArgs);
    const reply = parseTextReply(questions, "2\n1, 2\nnight-shift");
    const answers = validateAnswers(questions, reply.kind === "answer" ? reply.answers : {});

    const result = formatToolResult({ status: "answered", answers }, questions);

    expect(result.text.split("\n")).toEqual([
      "Deploy: Production",
      "Checks: Unit (Recommended), E2E",
      "Release note: night-shift",
      '{"status":"answered","answers":{"deploy_target":["Production"],"checks":["Unit (Recommended)","E2E"],"release_note":["night-shift"]}}',
    ]);
    expect(result.details).toEqual({ status: "answered", answers: expectedAnswers });
    expect(finalReply(JSON.parse(result.text.split("\n")[3] ?? "").answers)).toBe(
      "deploy=Production | checks=Unit (Recommended),E2E | note=night-shift",
    );
  });
});
