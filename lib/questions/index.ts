/**
 * The ask_user contract: the pure domain every other part of Handraise uses. No AWS, no environment,
 * no clock (time is a parameter where needed). Rules: docs/ask-user.md.
 *
 * The runtime exports are exactly the table of docs/ask-user.md ("The module"); schemas and constants live
 * in `./schema.ts` for the adapters that need them.
 */
export { validateAnswers } from "./answers.ts";
export {
  type ErrorBody,
  InvalidAnswerError,
  type InvalidAnswerReason,
  ToolInputError,
  type ToolInputIssue,
} from "./errors.ts";
export { normalizeAskUserArgs, type TimeoutLimits } from "./normalize.ts";
export { renderPromptText } from "./prompt-text.ts";
export { type QuestionIdInput, questionIdFor } from "./question-id.ts";
export { parseTextReply, type TextReply } from "./reply-parser.ts";
export type {
  Answers,
  AskUserArgs,
  AskUserRequest,
  AskUserResult,
  NoAnswerReason,
  Question,
  QuestionOption,
} from "./schema.ts";
export { askUserToolDefinitions } from "./tool-definitions.ts";
export { formatToolResult, type ToolResult } from "./tool-result.ts";
