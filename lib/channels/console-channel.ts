import { renderPromptText } from "../questions/index.ts";
import { type AnswerLinks, NO_ANSWER_LINKS } from "../web/answer-link.ts";
import type { ChatChannel } from "./chat-channel.ts";
import { answerLinkLine, outcomeText, reminderText } from "./replies.ts";

/**
 * The terminal of the local stack as a chat: the prompt (under the question's context) is written as text
 * and answered by typing (see the demo), with the answerer's answer page link when the page is on — the
 * terminal is the person's own, a private target. Meant for local use: deployed, its output would land in
 * the function's logs.
 */
export function createConsoleChannel(
  write: (text: string) => void,
  links: AnswerLinks = NO_ANSWER_LINKS,
): ChatChannel {
  return {
    name: "console",
    async deliver(question, target, answerer) {
      const url = await links.urlFor(question, answerer);
      const link = url === undefined ? "" : `\n${answerLinkLine(url)}\n`;
      write(`\n[${question.id}] ${renderPromptText(question.questions, question.context)}\n${link}`);
      return { ...target, messageId: question.id, privateTo: answerer };
    },
    async retire(question) {
      write(`[${question.id}] ${outcomeText(question)}\n`);
    },
    async remind(question, _delivery, reminder) {
      const text = reminderText(reminder);
      write(`[${question.id}] ${text}\n`);
    },
  };
}
