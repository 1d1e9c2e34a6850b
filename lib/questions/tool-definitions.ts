import argumentsSchema from "./ask-user-arguments.schema.json" with { type: "json" };
import { ASK_USER_TOOL_NAME } from "./schema.ts";

/** The model guidance (docs/ask-user.md, "What the model is told"), shipped in every tool definition. */
export const ASK_USER_TOOL_DESCRIPTION = [
  "Ask the user 1-3 structured questions in their chat and wait for the answer.",
  "Ask only when you are blocked on a decision that genuinely belongs to the user; never to ask permission to proceed or to confirm a plan.",
  "Ask one question per call unless the answers must come together.",
  'Put every choice in options, the recommended one first with " (Recommended)" after its label.',
  "Use multiSelect only when several options may be chosen together.",
  'Never add an "Other" option: free text is always allowed.',
  "If the result is no_answer, continue with your best judgment; if it is delivery_failed, do not ask again.",
].join(" ");

/**
 * JSON Schema of the arguments, generated from `askUserArgsSchema` by `npm run generate:schemas` (per-value
 * rules included as patterns; why each optional field has no `null` type: scripts/lib/generated-schemas.ts).
 */
const parameters: Record<string, unknown> = argumentsSchema;

/**
 * ask_user in the three formats agents use: OpenAI Chat Completions function tool, Anthropic Messages API
 * tool, Bedrock Converse `toolSpec`. All share one JSON Schema generated from `askUserArgsSchema`.
 *
 * @example
 * await anthropic.messages.create({ ..., tools: [askUserToolDefinitions.anthropic] });
 */
export const askUserToolDefinitions = {
  openai: {
    type: "function",
    function: { name: ASK_USER_TOOL_NAME, description: ASK_USER_TOOL_DESCRIPTION, parameters },
  },
  anthropic: { name: ASK_USER_TOOL_NAME, description: ASK_USER_TOOL_DESCRIPTION, input_schema: parameters },
  bedrock: {
    toolSpec: {
      name: ASK_USER_TOOL_NAME,
      description: ASK_USER_TOOL_DESCRIPTION,
      inputSchema: { json: parameters },
    },
  },
} as const;
