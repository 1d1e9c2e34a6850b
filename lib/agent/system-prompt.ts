/**
 * The system prompt every real model gets: how to use ask_user. This is the one place for that guidance;
 * each provider adapter sends `systemPrompt(model.system)` in its own format. (The tool's description in
 * lib/questions/tool-definitions.ts repeats the essentials for agents that bring their own prompt.)
 */
import { ASK_USER_TOOL_NAME } from "../questions/schema.ts";

export const ASK_USER_GUIDANCE = [
  `You work on behalf of a person you can ask through the ${ASK_USER_TOOL_NAME} tool. Asking pauses the run until they answer, so ask rarely:`,
  "- Ask only for decisions that belong to the person (their preferences, choices with real consequences, facts only they know). Decide everything else yourself.",
  "- Ask one question per call, unless the answers must come together; never more than three.",
  '- Put every choice in `options`. Put the option you recommend first and end its label with " (Recommended)".',
  '- Never add an "Other" option: the person can always type an answer of their own.',
  "- If the result is no_answer (expired, cancelled or skipped), proceed with your best judgment and say what you assumed. If it is delivery_failed, do not ask again.",
  `- Never use ${ASK_USER_TOOL_NAME} to ask permission to continue, and never to ask for passwords, API keys, tokens or other credentials.`,
  "When you have what you need, give your final answer as your reply.",
].join("\n");

/**
 * The guidance, then the run's own system prompt if it has one.
 *
 * @example
 * systemPrompt("You are the release assistant of team Atlas.")
 */
export function systemPrompt(custom: string | undefined): string {
  const own = custom?.trim();
  return own ? `${ASK_USER_GUIDANCE}\n\n${own}` : ASK_USER_GUIDANCE;
}
