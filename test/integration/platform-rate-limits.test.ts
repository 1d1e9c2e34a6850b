/**
 * A platform that rate-limits Handraise while it asks: each fake API answers the first post with a 429 in
 * the platform's own words (Discord's `retry_after` in the body and its bucket headers, Telegram's
 * `parameters.retry_after`, Slack's `Retry-After` header). The ask function waits that long and posts again,
 * so the question is delivered, not closed as delivery_failed.
 */
import { StartExecutionCommand } from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import vectors from "../fixtures/signature-vectors.json" with { type: "json" };
import { type FakePlatform, type RecordedCall, startFakePlatform } from "./support/fake-platform.ts";
import { singleQuestion, unique } from "./support/sample-questions.ts";
import { posted, startTestStack, type TestStack, waitFor } from "./support/test-stack.ts";

let stack: TestStack;
let discord: FakePlatform;
let telegram: FakePlatform;
let slack: FakePlatform;
let id = 1_200_000_000_000_000_000n;
const nextId = () => String(++id);

beforeAll(async () => {
  discord = await startFakePlatform((call) => ({
    body: { id: nextId(), channel_id: call.path.split("/")[2] },
  }));
  telegram = await startFakePlatform((call) => ({
    body: { ok: true, result: { message_id: Number(nextId().slice(-6)), chat: { id: call.body.chat_id } } },
  }));
  slack = await startFakePlatform((call) => ({
    body: { ok: true, channel: call.body.channel, ts: `1700000000.${nextId().slice(-6)}`, message: {} },
  }));
  stack = await startTestStack({
    DISCORD_BOT_TOKEN: "MTA5.test-bot-token",
    DISCORD_PUBLIC_KEY: vectors.discord_generated.public_key,
    DISCORD_APPLICATION_ID: "111111111111111111",
    DISCORD_API_BASE: discord.url,
    TELEGRAM_BOT_TOKEN: "123456:TEST-token",
    TELEGRAM_WEBHOOK_SECRET: vectors.telegram_generated.secret_token,
    TELEGRAM_API_BASE: telegram.url,
    SLACK_BOT_TOKEN: "xoxb-test-token",
    SLACK_SIGNING_SECRET: "5d41402abc4b2a76b9719d911017c592",
    SLACK_API_BASE: slack.url,
  });
});
afterAll(async () => {
  await stack?.stop();
  await Promise.all([discord?.stop(), telegram?.stop(), slack?.stop()]);
});

/** Starts an agent run that asks one question of `owner` at `target`; resolves with the question once posted. */
async function ask(owner: string, target: { channel: string; chatId: string }) {
  const sessionKey = unique("rl");
  await stack.sfn.send(
    new StartExecutionCommand({
      stateMachineArn: stack.stateMachineArns.agent,
      input: JSON.stringify({
        sessionKey,
        owner,
        deliverTo: [target],
        prompt: "test",
        model: {
          provider: "scripted",
          steps: [
            { toolCalls: [{ id: "c1", name: "ask_user", arguments: { questions: [singleQuestion] } }] },
            { reply: "{{c1.status}}" },
          ],
        },
      }),
    }),
  );
  return waitFor(
    async () => {
      const found = (await stack.api("GET", `/questions?sessionKey=${sessionKey}`)).body.questions?.[0];
      if (found?.status !== "pending" && found?.status !== undefined) return found;
      return posted(found) >= 1 ? found : undefined;
    },
    { what: "the question delivered (or not)", timeoutMs: 20_000 },
  );
}

/** The two attempts of the one post, and the time between them (ms). */
function attempts(calls: RecordedCall[]) {
  expect(calls).toHaveLength(2);
  const [first, second] = calls.map((call) => call.at);
  return (second ?? 0) - (first ?? 0);
}

describe("a platform's 429 while asking is waited out, and the question delivered", () => {
  it("Discord: `retry_after` in the body, longer than the 2 s a webhook's call could wait", async () => {
    const channel = nextId();
    const postsHere = (call: RecordedCall) =>
      call.verb === "POST" && call.path === `/channels/${channel}/messages`;
    discord.answerOnce(postsHere, {
      status: 429,
      body: { message: "You are being rate limited.", retry_after: 2.5, global: false },
      headers: {
        "retry-after": "3",
        "x-ratelimit-limit": "5",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset-after": "2.5",
        "x-ratelimit-bucket": "abcd1234",
        "x-ratelimit-scope": "user",
      },
    });
    const question = await ask("discord:53908232506183680", { channel: "discord", chatId: channel });
    expect(question.status).toBe("pending");
    expect(posted(question)).toBe(1);
    expect(attempts(discord.calls.filter(postsHere))).toBeGreaterThanOrEqual(2_500);
  });

  it("Telegram: `parameters.retry_after` in the error body", async () => {
    const chatId = `-100${nextId().slice(-10)}`;
    const sendsHere = (call: RecordedCall) =>
      call.method === "sendMessage" && String(call.body.chat_id) === chatId;
    telegram.answerOnce(sendsHere, {
      status: 429,
      body: {
        ok: false,
        error_code: 429,
        description: "Too Many Requests: retry after 1",
        parameters: { retry_after: 1 },
      },
    });
    const question = await ask("telegram:42", { channel: "telegram", chatId });
    expect(question.status).toBe("pending");
    expect(posted(question)).toBe(1);
    expect(attempts(telegram.calls.filter(sendsHere))).toBeGreaterThanOrEqual(1_000);
  });

  it("Slack: the `Retry-After` header", async () => {
    const channel = `C${nextId().slice(-8)}`;
    const postsHere = (call: RecordedCall) =>
      call.method === "chat.postMessage" && call.body.channel === channel;
    slack.answerOnce(postsHere, {
      status: 429,
      body: { ok: false, error: "ratelimited" },
      headers: { "retry-after": "1" },
    });
    const question = await ask("slack:T061EG9R6:U2147483697", { channel: "slack", chatId: channel });
    expect(question.status).toBe("pending");
    expect(posted(question)).toBe(1);
    expect(attempts(slack.calls.filter(postsHere))).toBeGreaterThanOrEqual(1_000);
  });
});
