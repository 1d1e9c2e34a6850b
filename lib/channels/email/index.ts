/**
 * The e-mail channel (Amazon SES API v2): delivers a mail per question with the person's own answer link;
 * receives nothing — answers come through the answer page. One SES client per process.
 */
import { SESv2Client } from "@aws-sdk/client-sesv2";
import { defineChannel } from "../channel-descriptor.ts";
import { createEmailChannel } from "./email-channel.ts";
import { createSesMailSender, type MailSender } from "./email-sender.ts";
import { emailSpec } from "./email-spec.ts";

export const email = defineChannel(emailSpec, {
  client: ({ settings, awsClientConfig, traced }): MailSender =>
    createSesMailSender(traced(new SESv2Client(awsClientConfig("sesv2"))), settings.from),
  channel: (sender, { links }) => createEmailChannel(sender, links),
});
