/**
 * Discord on the local stack: what only the real wiring proves — an agent run asks, the question is
 * delivered, an interaction signed as Discord signs it answers, and the Step Functions run resumes (or takes
 * the skip or cancel through its Catch) while the table's stream retires every copy; the same interaction
 * twice at once is settled by DynamoDB's conditional writes; and a slow Discord API (held in real time)
 * cannot hold the response past its budget. The rest of Discord's behaviour runs in process:
 * discord.test.ts.
 */
import { StartExecutionCommand } from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DISCORD_ACK_BUDGET_MS } from "#lib/channels/discord/discord-webhook.ts";
import { PLATFORM_CALL_TIMEOUT_MS } from "#lib/channels/platform-api-error.ts";
import {
  APPLICATION_ID,
  BOT_TOKEN,
  customId,
  discordGuild,
  editsMessage,
  OWNER_ID,
  PUBLIC_KEY,
  postsMessage,
  privateNotice,
} from "./support/discord-guild.ts";
import { type FakePlatform, type RecordedCall, startFakePlatform } from "./support/fake-platform.ts";
import { singleQuestion as single, unique } from "./support/sample-questions.ts";
import {
  allItems,
  posted,
  replyOf as replyOfRun,
  startTestStack,
  statusOf as statusOfQuestion,
  type TestStack,
  waitFor,
} from "./support/test-stack.ts";

let stack: TestStack;
let discord: FakePlatform;
/** Each test talks in a channel of its own: commands go to the oldest pending question in the channel. */
let CHANNEL = "645027906669510000";
const webhookResponses: string[] = [];
/** The task tokens of the questions pending when a request was sent: what a response must not carry. */
const pendingTokens = new Set<string>();

const guild = discordGuild({
  channel: () => CHANNEL,
  now: Date.now,
  post: async (body, headers) => {
    for (const item of await allItems(stack)) if (item.taskToken) pendingTokens.add(item.taskToken);
    const response = await fetch(`${stack.httpUrl}/webhooks/discord`, { method: "POST", headers, body });
    const text = await response.text();
    webhookResponses.push(text);
    return { status: response.status, text };
  },
});
const { fastDiscord, send, tap, command } = guild;

beforeAll(async () => {
  // Refused like Discord past its size limits: every test here runs within them.
  discord = await startFakePlatform(fastDiscord, { limits: "discord" });
  stack = await startTestStack({
    DISCORD_BOT_TOKEN: BOT_TOKEN,
    DISCORD_PUBLIC_KEY: PUBLIC_KEY,
    DISCORD_APPLICATION_ID: APPLICATION_ID,
    DISCORD_API_BASE: discord.url,
  });
});
afterAll(async () => {
  await stack?.stop();
  await discord?.stop();
});
beforeEach(() => {
  discord.calls.length = 0;
  discord.respond(fastDiscord);
  CHANNEL = String(BigInt(CHANNEL) + 1n);
});

const DEFAULT_REPLY = "{{c1.status}}|{{c1.reason}}|{{c1.deploy_target}}{{c1.checks}}";

async function startRun(
  questions: unknown[],
  options: {
    channels?: string[];
    reply?: string;
    escalate?: unknown;
    input?: Record<string, unknown>;
  } = {},
) {
  const sessionKey = unique("dc");
  const channels = options.channels ?? [CHANNEL];
  const before = discord.calls.filter(postsMessage).length;
  const { executionArn } = await stack.sfn.send(
    new StartExecutionCommand({
      stateMachineArn: stack.stateMachineArns.agent,
      input: JSON.stringify({
        sessionKey,
        ...(options.escalate !== undefined && { escalate: options.escalate }),
        owner: `discord:${OWNER_ID}`,
        deliverTo: channels.map((chatId) => ({ channel: "discord", chatId })),
        prompt: "test",
        model: {
          provider: "scripted",
          steps: [
            { toolCalls: [{ id: "c1", name: "ask_user", arguments: { questions } }] },
            { reply: options.reply ?? DEFAULT_REPLY },
          ],
        },
        ...options.input,
      }),
    }),
  );
  const posts = await waitFor(
    async () => {
      const sent = discord.calls.filter(postsMessage).slice(before);
      return sent.length >= channels.length ? sent : undefined;
    },
    { what: "the question posted to Discord" },
  );
  const questionId = (await stack.api("GET", `/questions?sessionKey=${sessionKey}`)).body.questions[0]
    .id as string;
  // The post is recorded before the ask function stores where it went: wait for that too.
  const record = await waitFor(
    async () => {
      const found = (await stack.api("GET", `/questions/${questionId}`)).body.question;
      return posted(found) >= channels.length ? found : undefined;
    },
    { what: "the deliveries stored" },
  );
  const messageIn = (channel: string) =>
    record.deliveries.find((d: { chatId: string }) => d.chatId === channel).messageId as string;
  return { executionArn: executionArn as string, posts, questionId, messageIn };
}

/** The reply the run ended with. */
const replyOf = (executionArn: string) => replyOfRun(stack, executionArn);
const statusOf = (questionId: string) => statusOfQuestion(stack, questionId);

describe("Discord end to end", () => {
  it("a button tap answers and resumes the run; the tapped copy is updated in the response, every copy edited; a later tap is told it is over", async () => {
    const elsewhere = String(BigInt(CHANNEL) + 500_000n);
    const { executionArn, posts, messageIn, questionId } = await startRun([single], {
      channels: [CHANNEL, elsewhere],
    });
    const production = customId(posts[0] as RecordedCall, "Production");

    const response = await send(tap(production, messageIn(CHANNEL)));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      type: 7,
      data: { components: [], allowed_mentions: { parse: [] } },
    });
    expect(response.body.data.content).toContain("Answered — Deploy to: Production");
    expect(await replyOf(executionArn)).toBe("answered||Production");

    // The table's stream retires every copy through the API (the tapped one again, to the same content: the
    // stream consumer does not know which copy a response already edited).
    await stack.streamsDrained();
    const edits = discord.calls.filter(editsMessage);
    expect(edits.map((e) => e.path).sort()).toEqual(
      [
        `/channels/${CHANNEL}/messages/${messageIn(CHANNEL)}`,
        `/channels/${elsewhere}/messages/${messageIn(elsewhere)}`,
      ].sort(),
    );
    for (const edit of edits) {
      expect(edit.body).toMatchObject({ components: [], allowed_mentions: { parse: [] } });
      expect(edit.body.content).toContain("Answered — Deploy to: Production");
    }
    expect(await statusOf(questionId)).toBe("answered");

    // A later tap (the copy shows no controls any more, as after a real type 7): a private notice only.
    const late = await send(tap(production, messageIn(CHANNEL), { components: [] }));
    expect(late.body).toMatchObject(privateNotice("This question has already been answered."));
    expect(discord.calls.filter(editsMessage)).toHaveLength(2);
  });

  it("Skip (in a DM) → skipped; /cancel → cancelled with a private confirmation, every copy edited", async () => {
    const skipped = await startRun([single]);
    const response = await send(
      tap(customId(skipped.posts[0] as RecordedCall, "Skip"), skipped.messageIn(CHANNEL), { dm: true }),
    );
    expect(response.body).toMatchObject({ type: 7, data: { components: [] } });
    expect(response.body.data.content).toContain("Skipped.");
    expect(await replyOf(skipped.executionArn)).toBe("no_answer|skipped|");

    const cancelled = await startRun([single]);
    const confirmation = await send(command("cancel"));
    expect(confirmation.body).toMatchObject(privateNotice("Cancelled."));
    expect(await replyOf(cancelled.executionArn)).toBe("no_answer|cancelled|");
    const edit = discord.calls.filter(editsMessage).at(-1);
    expect(edit?.path).toBe(`/channels/${CHANNEL}/messages/${cancelled.messageIn(CHANNEL)}`);
    expect(edit?.body).toMatchObject({ components: [] });
    expect(edit?.body.content).toContain("Cancelled.");
  });

  it("the same interaction delivered twice resumes the run once and is acknowledged both times", async () => {
    const { executionArn, posts, messageIn } = await startRun([single]);
    const interaction = tap(customId(posts[0] as RecordedCall, "Production"), messageIn(CHANNEL));
    const responses = await Promise.all([send(interaction), send(interaction)]);
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    // One of them answered (type 7); the other is a no-op success ack (type 6, DEFERRED_UPDATE_MESSAGE).
    expect(responses.map((r) => r.body.type).sort()).toEqual([6, 7]);
    expect(await replyOf(executionArn)).toBe("answered||Production");
  });

  it("a slow Discord API cannot hold the response past the budget; a later tap on the copy left behind edits it", async () => {
    const elsewhere = String(BigInt(CHANNEL) + 500_000n);
    const { executionArn, posts, messageIn } = await startRun([single], { channels: [CHANNEL, elsewhere] });
    const production = customId(posts[0] as RecordedCall, "Production");
    // Edits now take 3 s, longer than the whole interaction may.
    discord.respond(async (call) => {
      if (editsMessage(call)) await new Promise((resolve) => setTimeout(resolve, 3_000));
      return fastDiscord(call);
    });

    const response = await send(tap(production, messageIn(CHANNEL)));
    expect(response.body.type).toBe(7);
    // Within the budget (plus local overhead), and short of the 2 s a single API call alone may take.
    expect(response.elapsedMs).toBeLessThan(DISCORD_ACK_BUDGET_MS + 400);
    expect(DISCORD_ACK_BUDGET_MS + 400).toBeLessThan(PLATFORM_CALL_TIMEOUT_MS);
    expect(await replyOf(executionArn)).toBe("answered||Production");

    // The other copy kept its buttons; a tap on it is told the question is over and edits it after all.
    discord.respond(fastDiscord);
    const stale = await send(tap(production, messageIn(elsewhere), { channel: elsewhere }));
    expect(stale.body).toMatchObject(privateNotice("This question has already been answered."));
    const heal = discord.calls.filter(editsMessage).at(-1);
    expect(heal?.path).toBe(`/channels/${elsewhere}/messages/${messageIn(elsewhere)}`);
    expect(heal?.body).toMatchObject({ components: [] });
  });
});

// Last, so that it reads every response the tests above were given.
describe("Discord webhook responses", () => {
  it("no webhook response carried a task token", async () => {
    expect(pendingTokens.size).toBeGreaterThan(0);
    expect(webhookResponses.length).toBeGreaterThan(5);
    for (const text of webhookResponses) for (const token of pendingTokens) expect(text).not.toContain(token);
  });
});
