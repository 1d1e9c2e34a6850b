/**
 * validateAnswers: the answer envelope, its validation and canonicalization, and InvalidAnswerError.
 */
import { describe, expect, it } from "vitest";
import { InvalidAnswerError, validateAnswers } from "#lib/questions/index.ts";
import { checks, deployTarget, releaseNote } from "./fixtures.ts";

const all = [deployTarget, checks, releaseNote];

/** The InvalidAnswerError thrown for `answers`; fails the test if nothing (or something else) is thrown. */
function rejectionOf(questions: Parameters<typeof validateAnswers>[0], answers: unknown): InvalidAnswerError {
  try {
    validateAnswers(questions, answers);
  } catch (error) {
    if (error instanceof InvalidAnswerError) return error;
    throw error;
  }
  throw new Error("expected validateAnswers to throw an InvalidAnswerError");
}

describe("validateAnswers: valid envelopes", () => {
  it("returns a canonical single-select answer as an array", () => {
    const answers = { deploy_target: ["Production"] };

    const canonical = validateAnswers([deployTarget], answers);

    expect(canonical).toEqual({ deploy_target: ["Production"] });
  });

  it.each([
    [" production ", "Production"],
    ["PRODUCTION", "Production"],
    ["staging (recommended)", "Staging (Recommended)"],
    ["\tStaging (Recommended)\n", "Staging (Recommended)"],
  ])("canonicalizes %j to the label %j (trimmed, case-insensitive)", (value, label) => {
    const canonical = validateAnswers([deployTarget], { deploy_target: [value] });

    expect(canonical).toEqual({ deploy_target: [label] });
  });

  it("keeps an answer that is no label as trimmed free text", () => {
    const canonical = validateAnswers([deployTarget], { deploy_target: ["  night-shift  "] });

    expect(canonical).toEqual({ deploy_target: ["night-shift"] });
  });

  it("reads a label without its (Recommended) suffix as that label; a partial label stays free text", () => {
    expect(validateAnswers([deployTarget], { deploy_target: ["Staging"] })).toEqual({
      deploy_target: ["Staging (Recommended)"],
    });
    expect(validateAnswers([deployTarget], { deploy_target: ["Stag"] })).toEqual({ deploy_target: ["Stag"] });
  });

  it("takes values, not option numbers: 2 stays the text 2", () => {
    const canonical = validateAnswers([deployTarget], { deploy_target: ["2"] });

    expect(canonical).toEqual({ deploy_target: ["2"] });
  });

  it("accepts several values for a multi-select question, canonicalized, in the order given", () => {
    const canonical = validateAnswers([checks], { checks: ["lint", " Unit ", "smoke tests"] });

    expect(canonical).toEqual({ checks: ["Lint", "Unit", "smoke tests"] });
  });

  it("drops repeated multi-select values after canonicalization, keeping the first", () => {
    const canonical = validateAnswers([checks], {
      checks: ["unit", "E2E", "UNIT", " Unit", "custom", "custom  ", "e2e"],
    });

    expect(canonical).toEqual({ checks: ["Unit", "E2E", "custom"] });
  });

  it("returns the keys in question order, whatever the envelope's order", () => {
    const answers = { release_note: ["Urgent"], checks: ["Unit"], deploy_target: ["Staging (Recommended)"] };

    const canonical = validateAnswers(all, answers);

    expect(Object.keys(canonical)).toEqual(["deploy_target", "checks", "release_note"]);
    expect(canonical).toEqual({
      deploy_target: ["Staging (Recommended)"],
      checks: ["Unit"],
      release_note: ["Urgent"],
    });
  });

  it("does not modify the envelope it was given", () => {
    const answers = { checks: [" unit ", "Unit"] };

    validateAnswers([checks], answers);

    expect(answers).toEqual({ checks: [" unit ", "Unit"] });
  });
});

describe("validateAnswers: InvalidAnswerError reasons", () => {
  it.each([
    ["null", null],
    ["an array", [["Production"]]],
    ["a string", "Production"],
    ["a number", 2],
    ["undefined", undefined],
    ["an object with a string value", { deploy_target: "Production" }],
    ["an object with a number in the array", { deploy_target: [2] }],
    ["an object with null in the array", { deploy_target: [null] }],
    ["an object with a null value", { deploy_target: null }],
  ])("rejects %s as not_an_object, without a questionId", (_name, answers) => {
    const error = rejectionOf([deployTarget], answers);

    expect(error.reason).toBe("not_an_object");
    expect(error.questionId).toBeUndefined();
  });

  it("rejects a key that is not a question id as unknown_question, naming that key", () => {
    const answers = { deploy_target: ["Production"], deploy_region: ["eu-west-1"] };

    const error = rejectionOf([deployTarget], answers);

    expect(error.reason).toBe("unknown_question");
    expect(error.questionId).toBe("deploy_region");
  });

  it("rejects a question without an answer as missing, naming the question", () => {
    const answers = { deploy_target: ["Production"], release_note: ["Urgent"] };

    const error = rejectionOf(all, answers);

    expect(error.reason).toBe("missing");
    expect(error.questionId).toBe("checks");
  });

  it("rejects an empty envelope as missing the first question", () => {
    const error = rejectionOf(all, {});

    expect(error.reason).toBe("missing");
    expect(error.questionId).toBe("deploy_target");
  });

  it("rejects an empty array as missing", () => {
    const error = rejectionOf([checks], { checks: [] });

    expect(error.reason).toBe("missing");
    expect(error.questionId).toBe("checks");
  });

  it.each([
    ["an empty value", [deployTarget], { deploy_target: [""] }, "deploy_target"],
    ["a blank value", [deployTarget], { deploy_target: ["  \n"] }, "deploy_target"],
    ["a blank value among good ones", [checks], { checks: ["Unit", " "] }, "checks"],
  ])("rejects %s as empty_value", (_name, questions, answers, questionId) => {
    const error = rejectionOf(questions, answers);

    expect(error.reason).toBe("empty_value");
    expect(error.questionId).toBe(questionId);
  });

  it("rejects two values for a single-select question as too_many_values", () => {
    const error = rejectionOf([deployTarget], { deploy_target: ["Staging (Recommended)", "Production"] });

    expect(error.reason).toBe("too_many_values");
    expect(error.questionId).toBe("deploy_target");
  });

  it('is an Error named "InvalidAnswerError" with a message naming the question', () => {
    const error = rejectionOf([deployTarget], { deploy_target: [] });

    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("InvalidAnswerError");
    expect(error.message).toContain('"deploy_target"');
  });

  it("is thrown by validateAnswers", () => {
    expect(() => validateAnswers([deployTarget], null)).toThrow(InvalidAnswerError);
  });
});
