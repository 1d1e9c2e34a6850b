/**
 * The local stack builds its handlers from a configuration object of its own (infra/local/stack.ts,
 * infra/local/handler-factories.ts), not by writing its settings into process.env: two stacks in one process,
 * with different settings, each serve theirs — and each its own table, through the AWS endpoints it gives
 * its handlers explicitly.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { singleQuestion, unique } from "./support/sample-questions.ts";
import { startTestStack, type TestStack } from "./support/test-stack.ts";

let open: TestStack;
let strict: TestStack;
const before = { ...process.env };

beforeAll(async () => {
  // `open`: the console channel on (as the stack sets it), no e-mail, questions of 1 s allowed. `strict`: the
  // console channel off, e-mail on, and at least a minute.
  open = await startTestStack({ HANDRAISE_MIN_TIMEOUT_SECONDS: "1" });
  strict = await startTestStack({
    HANDRAISE_MIN_TIMEOUT_SECONDS: "60",
    HANDRAISE_CONSOLE_CHANNEL: "false",
    HANDRAISE_EMAIL_FROM: "handraise@example.com",
  });
});
afterAll(async () => {
  await open?.stop();
  await strict?.stop();
});

const CONSOLE = { channel: "console", chatId: "terminal" };
const EMAIL = { channel: "email", chatId: "ana@example.com" };

const ask = (stack: TestStack, target: { channel: string; chatId: string }, timeoutSeconds = 120) =>
  stack.api("POST", "/questions", {
    questions: [singleQuestion],
    owner: target.channel === "email" ? "email:ana@example.com" : "console:you",
    sessionKey: unique("two-stacks"),
    deliverTo: [target],
    timeoutSeconds,
  });

describe("two local stacks in one process", () => {
  it("each handler sees its own stack's channels", async () => {
    expect((await ask(open, CONSOLE)).status).toBe(201);
    const emailOff = await ask(open, EMAIL);
    expect(emailOff.status).toBe(400);
    expect(emailOff.body.error.message).toBe(
      'The channel "email" is not enabled in this deployment (enabled: console).',
    );

    const consoleOff = await ask(strict, CONSOLE);
    expect(consoleOff.status).toBe(400);
    expect(consoleOff.body.error.message).toBe(
      'The channel "console" is not enabled in this deployment (enabled: email).',
    );
    expect((await ask(strict, EMAIL)).status).toBe(201);
  });

  it("each handler sees its own stack's limits", async () => {
    // A timeout under the deployment's minimum is raised to it.
    const lifetime = async (stack: TestStack, target: typeof CONSOLE) => {
      const created = await ask(stack, target, 5);
      expect(created.status).toBe(201);
      const { question } = (await stack.api("GET", `/questions/${created.body.id}`)).body;
      return (question.expiresAtMs - question.createdAtMs) / 1000;
    };
    expect(await lifetime(open, CONSOLE)).toBe(5);
    expect(await lifetime(strict, EMAIL)).toBe(60);
  });

  it("each serves its own table: a question of one is unknown to the other", async () => {
    const created = await ask(open, CONSOLE);
    expect(created.status).toBe(201);
    expect((await open.api("GET", `/questions/${created.body.id}`)).status).toBe(200);
    expect((await strict.api("GET", `/questions/${created.body.id}`)).status).toBe(404);
  });

  it("write no Handraise setting into process.env", () => {
    const added = Object.keys(process.env).filter((name) => before[name] === undefined);
    expect(added.filter((name) => !/^(AWS|POWERTOOLS)_/.test(name))).toEqual([]);
    for (const name of [
      "HANDRAISE_TABLE",
      "HANDRAISE_API_KEY",
      "HANDRAISE_MIN_TIMEOUT_SECONDS",
      "HANDRAISE_CONSOLE_CHANNEL",
    ]) {
      expect(process.env[name], name).toBe(before[name]);
    }
  });
});
