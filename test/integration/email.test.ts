/**
 * E-mail in process (test/support/in-process-stack.ts): the real handlers send through their own SES v2
 * client to the local SES (infra/local/ses.ts, as the local stack's `AWS_ENDPOINT_URL_SESV2`); the person
 * answers through the link in the mail, and reminders and expiry come on the clock the test moves. A run that
 * asks by mail and is resumed on the local stack: email-e2e.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type LocalSes, startLocalSes } from "#infra/local/ses.ts";
import { type InProcessStack, startInProcessStack } from "../support/in-process-stack.ts";
import { answerThroughLinkInProcess, linkPath } from "./support/link-answer.ts";
import { singleQuestion, unique } from "./support/sample-questions.ts";
import { statusOf } from "./support/test-stack.ts";

const FROM = "approvals@handraise.test";
const PUBLIC_URL = "https://handraise.test";

let ses: LocalSes;
let stack: InProcessStack;
beforeAll(async () => {
  ses = await startLocalSes({ host: "127.0.0.1" });
  stack = await startInProcessStack(
    { HANDRAISE_EMAIL_FROM: FROM, HANDRAISE_PUBLIC_URL: PUBLIC_URL },
    { endpoints: { sesv2: ses.url } },
  );
});
afterAll(async () => {
  await stack?.stop();
  await ses?.stop();
});
// What a test's last change set going (a timer cleared) ends before the next test.
afterEach(() => stack.settled());

const address = () => `${unique("ana").toLowerCase()}@example.com`;
const mailsTo = (to: string) => ses.mails.filter((mail) => mail.to.includes(to));
const linkIn = (text: string) => text.match(/^https:\/\/handraise\.test\/answer\/\S+$/m)?.[0] ?? "";
/** The answer page at a link (on the deployment's public URL), as a browser opens it. */
const open = (url: string) => stack.request("GET", linkPath(url));
const answerThroughLink = (url: string, picks: Record<string, string>) =>
  answerThroughLinkInProcess(stack, url, picks);

async function ask(to: string, extra: Record<string, unknown> = {}) {
  const response = await stack.api("POST", "/questions", {
    questions: [singleQuestion],
    owner: `email:${to}`,
    deliverTo: [{ channel: "email", chatId: to }],
    timeoutSeconds: 120,
    ...extra,
  });
  expect(response.status, response.text).toBe(201);
  return response.body as { id: string };
}

describe("e-mail", () => {
  it("mails the question from the configured sender, and the link in it answers as the person", async () => {
    const to = address();
    const question = await ask(to);
    // The question API delivers before it answers: the mail has gone.
    const [mail] = mailsTo(to);
    expect(mail).toMatchObject({
      from: FROM,
      to: [to],
      subject: `Question for you: ${singleQuestion.header}`,
    });
    const url = linkIn(mail?.text ?? "");
    expect(url).toContain(`/answer/${question.id}?`);
    // The option links open the page with the option chosen, and change nothing.
    const chosen = await open(`${url}&choose=2`);
    expect(chosen.status).toBe(200);
    expect(chosen.text).toMatch(/value="1" checked/);
    expect(await statusOf(stack, question.id)).toBe("pending");

    const answered = await answerThroughLink(url, { deploy_target: "1" });
    expect(answered.status).toBe(303);
    const record = (await stack.api("GET", `/questions/${question.id}`)).body.question;
    expect(record).toMatchObject({
      status: "answered",
      answers: { deploy_target: ["Production"] },
      resolvedBy: `web:email:${to}`,
    });
    // Nothing is retired: one mail, and the link now shows the outcome.
    await stack.settled();
    expect(mailsTo(to)).toHaveLength(1);
    expect((await open(url)).text).toContain("Production");
  });

  it("a link altered or made for someone else answers nothing: 403, the question still waits", async () => {
    const to = address();
    const question = await ask(to);
    // The question API delivers before it answers: the mail has gone.
    const [mail] = mailsTo(to);
    const url = linkIn(mail?.text ?? "");
    const sig = new URL(url).searchParams.get("sig") ?? "";
    const altered = url.replace(sig, `${sig.slice(0, -1)}${sig.endsWith("A") ? "B" : "A"}`);
    expect((await open(altered)).status).toBe(403);
    expect((await answerThroughLink(altered, { deploy_target: "1" })).status).toBe(403);
    const asSomeoneElse = `${url.split("?")[0]}?as=${encodeURIComponent("email:mallory@example.com")}&sig=${sig}`;
    expect((await answerThroughLink(asSomeoneElse, { deploy_target: "1" })).status).toBe(403);
    expect(await statusOf(stack, question.id)).toBe("pending");
    await stack.api("POST", `/questions/${question.id}/cancel`, {});
  });

  it("once the time is up, the mail's link shows that it expired", async () => {
    const to = address();
    const question = await ask(to, { timeoutSeconds: 1 });
    // The question API delivers before it answers: the mail has gone.
    const [mail] = mailsTo(to);
    const url = linkIn(mail?.text ?? "");
    await stack.clock.advance(1000);
    expect(await statusOf(stack, question.id)).toBe("expired");
    const page = (await open(url)).text;
    expect(page).toContain("The time to answer this question has run out.");
    expect((await answerThroughLink(url, { deploy_target: "1" })).status).toBe(409);
  });

  it("refuses to mail anyone but the answerer: that target fails, nothing is sent", async () => {
    const to = address();
    const response = await stack.api("POST", "/questions", {
      questions: [singleQuestion],
      owner: `email:${to}`,
      deliverTo: [{ channel: "email", chatId: "someone.else@example.com" }],
      timeoutSeconds: 120,
    });
    expect(response.status, response.text).toBe(201);
    expect(response.body.status).toBe("delivery_failed");
    expect(ses.mails.filter((mail) => mail.to.includes("someone.else@example.com"))).toEqual([]);
  });

  it("a final SES refusal fails the target; throttling is retried and the mail goes", async () => {
    const refused = address();
    ses.refuseNext(1, {
      status: 400,
      code: "MessageRejected",
      message: "Email address is not verified.",
    });
    const failed = await stack.api("POST", "/questions", {
      questions: [singleQuestion],
      owner: `email:${refused}`,
      deliverTo: [{ channel: "email", chatId: refused }],
      timeoutSeconds: 120,
    });
    expect(failed.body.status).toBe("delivery_failed");

    const throttled = address();
    ses.refuseNext(1, {
      status: 429,
      code: "TooManyRequestsException",
      message: "Maximum sending rate exceeded.",
    });
    const question = await ask(throttled);
    expect(await statusOf(stack, question.id)).toBe("pending");
    expect(mailsTo(throttled)).toHaveLength(1);
  });

  it("reminds by mail, with the person's link again", async () => {
    const to = address();
    const question = await ask(to, { timeoutSeconds: 30, remindAfterSeconds: [1] });
    await stack.clock.advance(1000);
    const reminder = mailsTo(to).find((mail) => mail.subject === `Reminder: ${singleQuestion.header}`);
    expect(reminder?.text).toMatch(/Still waiting for your answer/);
    expect(linkIn(reminder?.text ?? "")).toContain(`/answer/${question.id}?`);
    await stack.api("POST", `/questions/${question.id}/cancel`, {});
  });

  it("an owner email:<address> must hold an address", async () => {
    const ok = await stack.api("POST", "/questions", {
      questions: [singleQuestion],
      owner: `email:${address()}`,
      deliverTo: [],
      timeoutSeconds: 120,
    });
    expect(ok.status, ok.text).toBe(201);
    for (const owner of ["email:not-an-address", `email:${"a".repeat(250)}@example.com`]) {
      const response = await stack.api("POST", "/questions", {
        questions: [singleQuestion],
        owner,
        deliverTo: [],
        timeoutSeconds: 120,
      });
      expect(response.status, owner).toBe(400);
      expect(response.body.error.issues[0].path, owner).toBe("owner");
    }
  });
});
