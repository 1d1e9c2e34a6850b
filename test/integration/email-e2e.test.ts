/**
 * E-mail on the local stack: what only the real wiring proves — an agent run asks, the handlers' own SES v2
 * client mails the question to the stack's SES (`AWS_ENDPOINT_URL_SESV2`), the signed link in the mail
 * answers on the stack's answer page, and the Step Functions run resumes (or takes the skip through its
 * Catch). The rest of the e-mail channel's behaviour runs in process: email.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerThroughLink } from "./support/link-answer.ts";
import { singleQuestion, unique } from "./support/sample-questions.ts";
import {
  replyOf as replyOfRun,
  startAskingRun,
  startTestStack,
  type TestStack,
  waitFor,
} from "./support/test-stack.ts";

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ HANDRAISE_EMAIL_FROM: "approvals@handraise.test" });
});
afterAll(async () => {
  await stack?.stop();
});

/** An agent run that asks `to` by mail; resolves with the link in the mail once it is sent. */
async function startRun() {
  const to = `${unique("ana").toLowerCase()}@example.com`;
  const { executionArn } = await startAskingRun(stack, {
    owner: `email:${to}`,
    deliverTo: [{ channel: "email", chatId: to }],
    questions: [singleQuestion],
  });
  const mail = await waitFor(async () => stack.ses.mails.find((m) => m.to.includes(to)), {
    what: "the mail",
  });
  const link = mail.text.match(/^http:\/\/\S+\/answer\/\S+$/m)?.[0] ?? "";
  expect(link).not.toBe("");
  return { executionArn, link };
}

const replyOf = (executionArn: string) => replyOfRun(stack, executionArn);

describe("E-mail end to end", () => {
  it("the link in the mail answers as the person and resumes the run", async () => {
    const { executionArn, link } = await startRun();
    expect((await answerThroughLink(link, { deploy_target: "1" })).status).toBe(303);
    expect(await replyOf(executionArn)).toBe("answered||Production");
  });

  it("Skip on the mail's page → skipped", async () => {
    const { executionArn, link } = await startRun();
    const sig = new URL(link).searchParams.get("sig") ?? "";
    const skipped = await fetch(link, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ sig, action: "skip" }),
      redirect: "manual",
    });
    expect(skipped.status).toBe(303);
    expect(await replyOf(executionArn)).toBe("no_answer|skipped|");
  });
});
