/**
 * How long a chat webhook waits for Lambda when it resumes a durable execution (lib/handlers/chat-webhook.ts,
 * AWS_WEBHOOK_CALLBACK_TIMEOUTS): the webhook resumes the run before it replies, and the platform wants the
 * reply within 3 s. Discord's webhook in process (test/support/in-process-stack.ts) with its durable
 * callbacks sent to the local stand-in of Lambda's callback API (infra/local/durable-callbacks.ts), which
 * here takes the result at once but answers only after 3 s — on a fake clock, the sockets real.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type LocalDurableCallbacks, startLocalDurableCallbacks } from "#infra/local/durable-callbacks.ts";
import { AWS_WEBHOOK_CALLBACK_TIMEOUTS } from "#lib/aws/signed-request.ts";
import { durableWaiter } from "#lib/callbacks/waiter.ts";
import { type InProcessStack, startInProcessStack } from "../support/in-process-stack.ts";
import {
  APPLICATION_ID,
  BOT_TOKEN,
  customId,
  discordGuild,
  OWNER_ID,
  PUBLIC_KEY,
  postsMessage,
} from "./support/discord-guild.ts";
import { type FakePlatform, type RecordedCall, startFakePlatform } from "./support/fake-platform.ts";
import { settledOnFakeClock } from "./support/fake-timers.ts";
import { singleQuestion, unique } from "./support/sample-questions.ts";

const CHANNEL = "645027906669520000";
/** A callback id as Lambda issues them (base64). */
const CALLBACK_ID = "d2ViaG9vay1idWRnZXQ+Y2FsbGJhY2s=";

let stack: InProcessStack;
let discord: FakePlatform;
let lambda: LocalDurableCallbacks;
const guild = discordGuild({
  channel: () => CHANNEL,
  now: () => stack.clock.now(),
  post: (body, headers) => stack.request("POST", "/webhooks/discord", { headers, body }),
});

beforeAll(async () => {
  discord = await startFakePlatform(guild.fastDiscord, { limits: "discord" });
  lambda = await startLocalDurableCallbacks({ host: "127.0.0.1" });
  stack = await startInProcessStack(
    {
      DISCORD_BOT_TOKEN: BOT_TOKEN,
      DISCORD_PUBLIC_KEY: PUBLIC_KEY,
      DISCORD_APPLICATION_ID: APPLICATION_ID,
      DISCORD_API_BASE: discord.url,
    },
    { endpoints: { lambda: lambda.url } },
  );
});
afterAll(async () => {
  await stack?.stop();
  await discord?.stop();
  await lambda?.stop();
});
afterEach(() => {
  vi.useRealTimers();
});

const settled = (done: () => boolean) => settledOnFakeClock(done);

describe("a chat webhook resuming a durable execution", () => {
  it("replies within the platform's 3 s when Lambda is slow, and leaves the resume to the stream", async () => {
    // Lambda takes the result at once and answers for it after 3 s.
    const received: unknown[] = [];
    lambda.attach(CALLBACK_ID, {
      sendCallbackSuccess: async (result) => {
        received.push(result);
        await new Promise((resolve) => setTimeout(resolve, 3_000));
      },
      sendCallbackFailure: async () => undefined,
      sendCallbackHeartbeat: async () => undefined,
    });
    const before = discord.calls.filter(postsMessage).length;
    const { questionId } = (await stack.invoke("ask", {
      runId: "arn:aws:lambda:us-east-1:000000000000:function:durableAgent:$LATEST/durable-execution/x/y",
      toolCallId: "c1",
      sessionKey: unique("budget"),
      owner: `discord:${OWNER_ID}`,
      deliverTo: [{ channel: "discord", chatId: CHANNEL }],
      questions: [singleQuestion],
      taskToken: durableWaiter(CALLBACK_ID),
    })) as { questionId: string };
    const [post] = discord.calls.filter(postsMessage).slice(before) as [RecordedCall];
    const record = await stack.store.get(questionId, stack.clock.now());
    const messageId = record?.deliveries[0]?.messageId as string;

    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const startedAt = Date.now();
    let endedAt: number | undefined;
    const replying = guild.send(guild.tap(customId(post, "Production"), messageId)).finally(() => {
      endedAt = Date.now();
    });
    await settled(() => endedAt !== undefined);
    const reply = await replying;

    // The tap is taken (the message updated), before Lambda's answer and within the webhook's budget.
    expect(reply).toMatchObject({ status: 200, body: { type: 7 } });
    expect((endedAt ?? 0) - startedAt).toBeLessThanOrEqual(AWS_WEBHOOK_CALLBACK_TIMEOUTS.callMs + 100);
    expect((endedAt ?? 0) - startedAt).toBeLessThan(3_000);
    expect(received.map((result) => JSON.parse(String(result)))).toEqual([
      expect.objectContaining({ status: "answered", answers: { deploy_target: ["Production"] } }),
    ]);
    expect((await stack.store.get(questionId, stack.clock.now()))?.status).toBe("answered");

    // The webhook's call was cut off unconfirmed (pending_retry): the table's stream sends the result again,
    // and Lambda, which took the first, answers that the callback has ended.
    await settled(() => lambda.requests.length === 2);
    await vi.advanceTimersByTimeAsync(3_000);
    vi.useRealTimers();
    await stack.settled();
    expect(lambda.calls).toEqual([
      { action: "succeed", callbackId: CALLBACK_ID, outcome: "CallbackTimeoutException" },
      { action: "succeed", callbackId: CALLBACK_ID, outcome: "completed" },
    ]);
    expect(received).toHaveLength(1);
  });
});
