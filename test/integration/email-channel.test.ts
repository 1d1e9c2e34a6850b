/**
 * The e-mail channel against a local fake of SES v2, through the real `@aws-sdk/client-sesv2` client (its
 * endpoint pointed at the fake, as `AWS_ENDPOINT_URL_SESV2` does): the request shape SES documents, the
 * links a mail carries, retried throttling and final refusals.
 */
import { SESv2Client } from "@aws-sdk/client-sesv2";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createEmailChannel } from "#lib/channels/email/email-channel.ts";
import { createSesMailSender } from "#lib/channels/email/email-sender.ts";
import { createAnswerLinks, NO_ANSWER_LINKS, verifyAnswerLink } from "#lib/web/answer-link.ts";
import { questionRecord } from "#test/support/records.ts";
import { deployTarget } from "#test/unit/questions/fixtures.ts";
import { type FakePlatform, startFakePlatform } from "./support/fake-platform.ts";

const LINK_KEY = "email-test-link-secret-0123456789abcdef";
const FROM = "handraise@example.com";
const OWNER = "email:ana@example.com";
const EXPIRES = Date.UTC(2026, 11, 3, 20, 30);

let ses: FakePlatform;
let client: SESv2Client;
beforeAll(async () => {
  ses = await startFakePlatform(() => ({ body: { MessageId: "msg-1" } }));
  client = new SESv2Client({
    endpoint: ses.url,
    region: "us-east-1",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
});
afterAll(async () => {
  client.destroy();
  await ses.stop();
});
beforeEach(() => {
  ses.calls.length = 0;
  ses.respond(() => ({ body: { MessageId: "msg-1" } }));
});

const links = createAnswerLinks({ publicUrl: "https://handraise.example.com", key: async () => LINK_KEY });
const channel = () => createEmailChannel(createSesMailSender(client, FROM), links);
const target = { channel: "email", chatId: "Ana@Example.com" };
const sent = () => ses.callsTo("outbound-emails");

describe("the e-mail channel", () => {
  it("sends one mail through SES v2 SendEmail, text and HTML, from the configured identity", async () => {
    const record = questionRecord({ expiresAtMs: EXPIRES, owner: OWNER, context: "Release 4.2 is ready" });
    const delivery = await channel().deliver(record, target, OWNER);
    expect(delivery).toEqual({
      channel: "email",
      chatId: "ana@example.com",
      messageId: "msg-1",
      privateTo: OWNER,
    });
    const [call] = sent();
    expect(call?.verb).toBe("POST");
    expect(call?.path).toBe("/v2/email/outbound-emails");
    expect(call?.body).toMatchObject({
      FromEmailAddress: FROM,
      Destination: { ToAddresses: ["ana@example.com"] },
      Content: {
        Simple: {
          Subject: { Data: `Question for you: ${record.questions[0]?.header}`, Charset: "UTF-8" },
          Body: { Text: { Charset: "UTF-8" }, Html: { Charset: "UTF-8" } },
        },
      },
    });
    const text: string = call?.body.Content.Simple.Body.Text.Data;
    const html: string = call?.body.Content.Simple.Body.Html.Data;
    expect(text).toContain("Release 4.2 is ready");
    for (const question of record.questions) {
      expect(text).toContain(question.question);
      for (const option of question.options) expect(text).toContain(option.label);
    }
    // The person's own link, signed for them, in both parts; no per-option links for several questions.
    const url = text.match(/https:\/\/handraise\.example\.com\/answer\/\S+/)?.[0] ?? "";
    const sig = new URL(url).searchParams.get("sig") ?? "";
    expect(
      verifyAnswerLink(LINK_KEY, { id: record.id, answerer: OWNER, expiresAtMs: record.expiresAtMs }, sig),
    ).toBe(true);
    expect(html).toContain(url.replaceAll("&", "&amp;"));
    expect(text).not.toContain("choose=");
  });

  it("gives one single-select question a link per option that opens the page with it chosen", async () => {
    const record = questionRecord({ expiresAtMs: EXPIRES, owner: OWNER, questions: [deployTarget] });
    await channel().deliver(record, target, OWNER);
    const text: string = sent()[0]?.body.Content.Simple.Body.Text.Data;
    const html: string = sent()[0]?.body.Content.Simple.Body.Html.Data;
    deployTarget.options.forEach((option, index) => {
      const line = text.split("\n").find((l) => l.trim().startsWith(`${option.label}:`)) ?? "";
      expect(line).toMatch(new RegExp(`sig=[A-Za-z0-9_-]{43}&choose=${index + 1}$`));
      expect(html).toContain(`&amp;choose=${index + 1}"`);
    });
  });

  it("keeps the subject one line whatever the header holds", async () => {
    const record = questionRecord({
      expiresAtMs: EXPIRES,
      owner: OWNER,
      questions: [{ ...deployTarget, header: "Deploy\r\nBcc: x@example.com" }],
    });
    await channel().deliver(record, target, OWNER);
    expect(sent()[0]?.body.Content.Simple.Subject.Data).toBe("Question for you: Deploy Bcc: x@example.com");
  });

  it("escapes what the question says in the HTML part", async () => {
    const hostile = `<img src=x onerror=alert(1)>"'&`;
    const record = questionRecord({
      expiresAtMs: EXPIRES,
      owner: OWNER,
      context: hostile,
      questions: [{ ...deployTarget, question: hostile }],
    });
    await channel().deliver(record, target, OWNER);
    const html: string = sent()[0]?.body.Content.Simple.Body.Html.Data;
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;");
  });

  it("mails only the answerer's own address, and only with the answer page on (fail closed)", async () => {
    const record = questionRecord({ expiresAtMs: EXPIRES, owner: OWNER });
    await expect(
      channel().deliver(record, { channel: "email", chatId: "boss@example.com" }, OWNER),
    ).rejects.toThrow(/only to its answerer's own address/);
    await expect(
      channel().deliver(record, { channel: "email", chatId: "not an address" }, "email:not an address"),
    ).rejects.toThrow(/own address/);
    const off = createEmailChannel(createSesMailSender(client, FROM), NO_ANSWER_LINKS);
    await expect(off.deliver(record, target, OWNER)).rejects.toThrow(/answer page is off/);
    expect(sent()).toHaveLength(0);
  });

  it("retries SES throttling and sends the mail once it is let through", async () => {
    ses.answerOnce(() => true, {
      status: 429,
      body: { message: "Maximum sending rate exceeded." },
      headers: { "x-amzn-errortype": "TooManyRequestsException" },
    });
    const delivery = await channel().deliver(
      questionRecord({ expiresAtMs: EXPIRES, owner: OWNER }),
      target,
      OWNER,
    );
    expect(delivery.messageId).toBe("msg-1");
    expect(sent()).toHaveLength(2);
  });

  it("fails the target on a final refusal, naming only the error (no address in the message)", async () => {
    ses.respond(() => ({
      status: 400,
      body: { message: "Email address is not verified: ana@example.com" },
      headers: { "x-amzn-errortype": "MessageRejected" },
    }));
    const failure = await channel()
      .deliver(questionRecord({ expiresAtMs: EXPIRES, owner: OWNER }), target, OWNER)
      .catch((error: unknown) => error as Error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe("email SendEmail failed: MessageRejected");
    expect(sent()).toHaveLength(1);
  });

  it("reminds by a mail of its own with the link again, and retires nothing", async () => {
    const record = questionRecord({ expiresAtMs: EXPIRES, owner: OWNER, questions: [deployTarget] });
    const delivery = await channel().deliver(record, target, OWNER);
    await channel().remind(record, delivery, { leftMs: 5 * 60_000 });
    const reminder = sent()[1]?.body;
    expect(reminder.Content.Simple.Subject.Data).toBe(`Reminder: ${deployTarget.header}`);
    expect(reminder.Content.Simple.Body.Text.Data).toContain("Still waiting for your answer — 5 min left");
    expect(reminder.Content.Simple.Body.Text.Data).toMatch(/\/answer\/ask_1\?sig=/);
    await channel().retire({ ...record, status: "expired" }, delivery);
    expect(sent()).toHaveLength(2);
  });
});
