import type { DeliveryTarget } from "../../questions/question-record.ts";
import type { AnswerLinks } from "../../web/answer-link.ts";
import type { ChatChannel } from "../chat-channel.ts";
import { PlatformApiError } from "../platform-api-error.ts";
import { reminderText } from "../replies.ts";
import { chooseLinks, renderQuestionMail, renderReminderMail } from "./email-render.ts";
import type { MailSender } from "./email-sender.ts";
import { EMAIL_ADDRESS } from "./email-spec.ts";

/**
 * Whether `target` is the mailbox of `answerer` itself. A mail carries its answerer's own link — the only
 * way to answer it — so it goes to that person's address and nowhere else: a mail to anyone else's
 * address would hand them a link that answers as someone they are not.
 */
function mailboxOf(target: DeliveryTarget, answerer: string): string | undefined {
  const address = target.chatId.trim().toLowerCase();
  return address.length <= 254 && EMAIL_ADDRESS.test(address) && answerer === `email:${address}`
    ? address
    : undefined;
}

/**
 * Questions by e-mail: one mail per delivery with the person's own answer page link (and a link per option
 * for one single-select question), reminders as mails of their own. A mail cannot be edited, so nothing is
 * retired: the page its links open shows how the question ended.
 */
export function createEmailChannel(sender: MailSender, links: AnswerLinks): ChatChannel {
  return {
    name: "email",
    async deliver(record, target, answerer) {
      const address = mailboxOf(target, answerer);
      if (address === undefined) {
        throw new PlatformApiError(
          "email",
          "deliver",
          undefined,
          "a mail goes only to its answerer's own address",
        );
      }
      const url = await links.urlFor(record, answerer);
      if (url === undefined) {
        throw new PlatformApiError(
          "email",
          "deliver",
          undefined,
          "the answer page is off, so a mail could not be answered",
        );
      }
      const messageId = await sender.send(
        address,
        renderQuestionMail(record, { url, choose: chooseLinks(record, url) }),
      );
      return { ...target, chatId: address, messageId, privateTo: answerer };
    },
    async retire() {
      // Nothing to edit: a sent mail stays as it is, and its link shows the outcome.
    },
    async remind(record, delivery, reminder) {
      if (delivery.privateTo === undefined) return;
      const url = await links.urlFor(record, delivery.privateTo);
      if (url === undefined) return;
      await sender.send(delivery.chatId, renderReminderMail(record, reminderText(reminder), url));
    },
  };
}
