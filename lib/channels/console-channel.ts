import { renderPromptText } from "../questions/index.ts";
import type { ChatChannel } from "./chat-channel.ts";
import { outcomeText } from "./outcome-text.ts";

/**
 * The terminal of the local stack as a chat: the prompt is written as text and answered by typing (see the
 * demo). Meant for local use: deployed, its output would land in the function's logs.
 */
export function createConsoleChannel(write: (text: string) => void): ChatChannel {
  return {
    name: "console",
    async deliver(question, target) {
      write(`\n[${question.id}] ${renderPromptText(question.questions)}\n`);
      return { ...target, messageId: question.id };
    },
    async retire(question) {
      write(`[${question.id}] ${outcomeText(question)}\n`);
    },
  };
}
