/**
 * The public module's runtime exports are exactly the table of docs/ask-user.md, "The module" (types are
 * not runtime values).
 */
import { describe, expect, it } from "vitest";
import * as questions from "#lib/questions/index.ts";

describe("#lib/questions/index.ts", () => {
  it("exports exactly the functions, constant and errors of the public table", () => {
    const names = Object.keys(questions).sort();

    expect(names).toEqual(
      [
        "normalizeAskUserArgs",
        "validateAnswers",
        "parseTextReply",
        "renderPromptText",
        "formatToolResult",
        "askUserToolDefinitions",
        "questionIdFor",
        "ToolInputError",
        "InvalidAnswerError",
      ].sort(),
    );
  });

  it("exports functions, one constant object and two Error classes", () => {
    const kinds = {
      normalizeAskUserArgs: typeof questions.normalizeAskUserArgs,
      validateAnswers: typeof questions.validateAnswers,
      parseTextReply: typeof questions.parseTextReply,
      renderPromptText: typeof questions.renderPromptText,
      formatToolResult: typeof questions.formatToolResult,
      questionIdFor: typeof questions.questionIdFor,
      askUserToolDefinitions: typeof questions.askUserToolDefinitions,
      toolInputErrorIsError: questions.ToolInputError.prototype instanceof Error,
      invalidAnswerErrorIsError: questions.InvalidAnswerError.prototype instanceof Error,
    };

    expect(kinds).toEqual({
      normalizeAskUserArgs: "function",
      validateAnswers: "function",
      parseTextReply: "function",
      renderPromptText: "function",
      formatToolResult: "function",
      questionIdFor: "function",
      askUserToolDefinitions: "object",
      toolInputErrorIsError: true,
      invalidAnswerErrorIsError: true,
    });
  });
});
