/**
 * Sending a mail through Amazon SES (API v2, `SendEmail`), from the deployment's verified identity. The SDK
 * retries throttling itself (`TooManyRequestsException`, with its standard back-off); any other refusal —
 * a rejected message, a paused account, an unverified sender — is final for that mail, and is reported by
 * its error name and status only: SES's messages can quote addresses, which stay out of the logs.
 */
import { type SESv2Client, SendEmailCommand } from "@aws-sdk/client-sesv2";
import { PlatformApiError } from "../platform-api-error.ts";
import type { Mail } from "./email-render.ts";

export interface MailSender {
  /** Sends `mail` to `to`; resolves to SES's message id, or throws a PlatformApiError. */
  send(to: string, mail: Mail): Promise<string>;
}

export function createSesMailSender(client: SESv2Client, from: string): MailSender {
  return {
    async send(to, mail) {
      const charset = "UTF-8";
      try {
        const sent = await client.send(
          new SendEmailCommand({
            FromEmailAddress: from,
            Destination: { ToAddresses: [to] },
            Content: {
              Simple: {
                Subject: { Data: mail.subject, Charset: charset },
                Body: {
                  Text: { Data: mail.text, Charset: charset },
                  Html: { Data: mail.html, Charset: charset },
                },
              },
            },
          }),
        );
        if (!sent.MessageId) throw new PlatformApiError("email", "SendEmail", undefined, "no message id");
        return sent.MessageId;
      } catch (error) {
        if (error instanceof PlatformApiError) throw error;
        const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
        throw new PlatformApiError("email", "SendEmail", $metadata?.httpStatusCode, name ?? "unknown error");
      }
    },
  };
}
