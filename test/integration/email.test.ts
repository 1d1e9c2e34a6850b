/**
 * E-mail end to end on the local stack: the real handlers send through their own SES v2 client to the
 * stack's SES (`AWS_ENDPOINT_URL_SESV2`); the person answers through the link in the mail.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerThroughLink } from "./support/link-answer.ts";
import { singleQuestion, unique } from "./support/sample-questions.ts";
import { startTestStack, statusOf, type TestStack, waitFor } from "./support/test-stack.ts";

const FROM = "approvals@handraise.test";

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ HANDRAISE_EMAIL_FROM: FROM });
});
afterAll(async () => {
  await stack?.stop();
});

const address = () => `${unique("ana").toLowerCase()}@example.com`;
const mailsTo = (to: string) => stack.ses.mails.filter((mail) => mail.to.includes(to));
const linkIn = (text: string) => text.match(/^http:\/\/\S+\/answer\/\S+$/m)?.[0] ?? "";

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
    const [mail] = await waitFor(async () => (mailsTo(to).length > 0 ? mailsTo(to) : undefined), {
      what: "the mail",
    });
    expect(mail).toMatchObject({
      from: FROM,
      to: [to],
      subject: `Question for you: ${singleQuestion.header}`,
    });
    const url = linkIn(mail?.text ?? "");
    expect(url).toContain(`/answer/${question.id}?`);
    // The option links open the page with the option chosen, and change nothing.
    const chosen = await fetch(`${url}&choose=2`);
    expect(chosen.status).toBe(200);
    expect(await chosen.text()).toMatch(/value="1" checked/);
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
    await stack.streamsDrained();
    expect(mailsTo(to)).toHaveLength(1);
    expect(await (await fetch(url)).text()).toContain("Production");
  });

  it("a link altered or made for someone else answers nothing: 403, the question still waits", async () => {
    const to = address();
    const question = await ask(to);
    const [mail] = await waitFor(async () => (mailsTo(to).length > 0 ? mailsTo(to) : undefined), {
      what: "the mail",
    });
    const url = linkIn(mail?.text ?? "");
    const sig = new URL(url).searchParams.get("sig") ?? "";
    const altered = url.replace(sig, `${sig.slice(0, -1)}${sig.endsWith("A") ? "B" : "A"}`);
    expect((await fetch(altered)).status).toBe(403);
    expect((await answerThroughLink(altered, { deploy_target: "1" })).status).toBe(403);
    const asSomeoneElse = `${url.split("?")[0]}?as=${encodeURIComponent("email:mallory@example.com")}&sig=${sig}`;
    expect((await answerThroughLink(asSomeoneElse, { deploy_target: "1" })).status).toBe(403);
    expect(await statusOf(stack, question.id)).toBe("pending");
    await stack.api("POST", `/questions/${question.id}/cancel`, {});
  });

  it("once the time is up, the mail's link shows that it expired", async () => {
    const to = address();
    const question = await ask(to, { timeoutSeconds: 1 });
    const [mail] = await waitFor(async () => (mailsTo(to).length > 0 ? mailsTo(to) : undefined), {
      what: "the mail",
    });
    const url = linkIn(mail?.text ?? "");
    await waitFor(async () => ((await statusOf(stack, question.id)) === "expired" ? true : undefined), {
      what: "the question to expire",
    });
    const page = await (await fetch(url)).text();
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
    expect(stack.ses.mails.filter((mail) => mail.to.includes("someone.else@example.com"))).toEqual([]);
  });

  it("a final SES refusal fails the target; throttling is retried and the mail goes", async () => {
    const refused = address();
    stack.ses.refuseNext(1, {
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
    stack.ses.refuseNext(1, {
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
    const reminder = await waitFor(
      async () => mailsTo(to).find((mail) => mail.subject === `Reminder: ${singleQuestion.header}`),
      { what: "the reminder mail" },
    );
    expect(reminder.text).toMatch(/Still waiting for your answer/);
    expect(linkIn(reminder.text)).toContain(`/answer/${question.id}?`);
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
