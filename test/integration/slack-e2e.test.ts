/**
 * Slack on the local stack: what only the real wiring proves — an agent run asks, the question is delivered,
 * a tap signed as Slack signs it answers, and the Step Functions run resumes (or takes the skip or cancel
 * through its Catch); the same event retried is settled by DynamoDB's conditional writes; and a slow Slack
 * (a proxy that holds calls in real time) cannot make the acknowledgement late, the table's stream consumer
 * making the missed edit. The rest of Slack's behaviour runs in process: slack.test.ts.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { StartExecutionCommand } from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PlatformApiError } from "#lib/channels/platform-api-error.ts";
import { withPlatformDeadline } from "#lib/channels/platform-http.ts";
import { createSlackApi } from "#lib/channels/slack/slack-api.ts";
import { type FakePlatform, type RecordedCall, startFakePlatform } from "./support/fake-platform.ts";
import { singleQuestion as single, unique } from "./support/sample-questions.ts";
import {
  BOT_TOKEN,
  control,
  OWNER,
  SIGNING_SECRET,
  slackWorkspace,
  TEAM,
} from "./support/slack-workspace.ts";
import {
  replyOf as replyOfRun,
  startTestStack,
  statusOf as statusOfQuestion,
  type TestStack,
  waitFor,
} from "./support/test-stack.ts";

/** Each test talks in a channel of its own: a plain message goes to the oldest pending question there. */
let CHANNEL = "C0";
let channelCounter = 0;

let stack: TestStack;
let slack: FakePlatform;
let proxy: Server;
const workspace = slackWorkspace({
  channel: () => CHANNEL,
  nextNumber: () => ++channelCounter,
  now: Date.now,
  post: async (body, headers) => {
    const response = await fetch(`${stack.httpUrl}/webhooks/slack`, { method: "POST", headers, body });
    return { status: response.status, text: await response.text() };
  },
});
const { postEvent, postInteraction, postCommand, messageEvent, tap } = workspace;

beforeAll(async () => {
  // Refused like Slack past its size limits: every test here runs within them.
  slack = await startFakePlatform(workspace.fakeSlack, { limits: "slack" });
  proxy = await startSlowProxy(slack.url);
  stack = await startTestStack({
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_BASE: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
  });
});
afterAll(async () => {
  await stack?.stop();
  proxy?.closeAllConnections();
  await new Promise((resolve) => proxy?.close(resolve));
  await slack?.stop();
});

/** Methods Slack is slow to answer (ms), and the calls held because of it. */
const slow = new Map<string, number>();
const heldCalls: string[] = [];

/**
 * Between the handlers and the fake Slack: forwards every call, except calls to a method in `slow`, which it
 * holds that long (they never reach the fake) — Slack having a slow moment.
 */
async function startSlowProxy(target: string): Promise<Server> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const method = new URL(req.url ?? "/", "http://x").pathname.split("/").pop() ?? "";
    const delay = slow.get(method);
    if (delay !== undefined) {
      heldCalls.push(method);
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (!res.destroyed) res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      return;
    }
    const upstream = await fetch(`${target}${req.url}`, {
      method: req.method ?? "POST",
      headers: {
        ...(req.headers["content-type"] !== undefined && { "content-type": req.headers["content-type"] }),
        authorization: req.headers.authorization ?? "",
      },
      ...(req.method !== "GET" && { body: Buffer.concat(chunks) }),
    });
    res.writeHead(upstream.status, { "content-type": "application/json" }).end(await upstream.text());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return server;
}
beforeEach(() => {
  slack.calls.length = 0;
  CHANNEL = `C${String(++channelCounter).padStart(8, "0")}`;
});

async function startRun(
  questions: unknown[],
  options: {
    channels?: string[];
    sessionKey?: string;
    escalate?: unknown;
    input?: Record<string, unknown>;
  } = {},
) {
  const sessionKey = options.sessionKey ?? unique("slack");
  const channels = options.channels ?? [CHANNEL];
  const before = slack.callsTo("chat.postMessage").length;
  const { executionArn } = await stack.sfn.send(
    new StartExecutionCommand({
      stateMachineArn: stack.stateMachineArns.agent,
      input: JSON.stringify({
        sessionKey,
        owner: `slack:${TEAM}:${OWNER}`,
        deliverTo: channels.map((chatId) => ({ channel: "slack", chatId })),
        ...(options.escalate !== undefined && { escalate: options.escalate }),
        prompt: "test",
        model: {
          provider: "scripted",
          steps: [
            { toolCalls: [{ id: "c1", name: "ask_user", arguments: { questions } }] },
            {
              reply: "{{c1.status}}|{{c1.reason}}|{{c1.deploy_target}}{{c1.checks}}|{{c1.release_note}}",
            },
          ],
        },
        ...options.input,
      }),
    }),
  );
  const posts = await waitFor(
    async () => {
      const sent = slack.callsTo("chat.postMessage").slice(before);
      return sent.length >= channels.length ? sent : undefined;
    },
    { what: "the question posted to Slack" },
  );
  const questionId = (await stack.api("GET", `/questions?sessionKey=${sessionKey}`)).body.questions[0]
    .id as string;
  // The copies are recorded on the question just after they are posted; routing a message by its chat
  // needs them (under load a command could otherwise arrive in between).
  await waitFor(
    async () => {
      const record = (await stack.api("GET", `/questions/${questionId}`)).body.question;
      return record.deliveries.length >= channels.length ? record : undefined;
    },
    { what: "the posted copies recorded on the question" },
  );
  return { executionArn: executionArn as string, posts, questionId };
}

/** The reply the run ended with. */
const replyOf = (executionArn: string) => replyOfRun(stack, executionArn);
const statusOf = (questionId: string) => statusOfQuestion(stack, questionId);

/** The `ts` Slack gave the copy posted in `channel`, once the delivery is recorded (just after the post). */
function postedTs(questionId: string, channel = CHANNEL): Promise<string> {
  return waitFor(
    async () => {
      const record = (await stack.api("GET", `/questions/${questionId}`)).body.question;
      return record.deliveries.find((d: { chatId: string }) => d.chatId === channel)?.messageId as
        | string
        | undefined;
    },
    { what: `the delivery of ${questionId} to ${channel}` },
  );
}

// ── Tests ───────────────────────────────────────────────────────────────────────────────────────────
describe("Slack end to end", () => {
  it("a button tap answers and resumes the run; every copy is edited without controls; a later tap is told it is over", async () => {
    const other = `C${String(++channelCounter).padStart(8, "0")}`;
    const { executionArn, posts, questionId } = await startRun([single], { channels: [CHANNEL, other] });
    const ts = await postedTs(questionId);
    const production = control(posts[0] as RecordedCall, "Production");
    const response = await postInteraction(tap(production, ts));
    expect(response.status).toBe(200);
    expect(await replyOf(executionArn)).toBe("answered||Production|");

    const updates = slack.callsTo("chat.update");
    expect(updates.map((u) => [u.body.channel, u.body.ts]).sort()).toEqual(
      [
        [CHANNEL, ts],
        [other, await postedTs(questionId, other)],
      ].sort(),
    );
    for (const update of updates) {
      expect(update.body.blocks.some((b: { type: string }) => b.type === "actions")).toBe(false);
      expect(update.body.text).toContain("Where should it go?");
      expect(update.body.text).toContain("Answered — Deploy to: Production");
      expect(JSON.stringify(update.body.blocks)).toContain("Answered — Deploy to: Production");
    }

    await postInteraction(tap(production, ts));
    expect(slack.callsTo("chat.postEphemeral").at(-1)?.body).toMatchObject({
      channel: CHANNEL,
      user: OWNER,
      text: "This question has already been answered.",
    });
    expect(await statusOf(questionId)).toBe("answered");
  });

  it("Skip → skipped; /handraise cancel → cancelled, told privately", async () => {
    const skipped = await startRun([single]);
    await postInteraction(
      tap(control(skipped.posts[0] as RecordedCall, "Skip"), await postedTs(skipped.questionId)),
    );
    expect(await replyOf(skipped.executionArn)).toBe("no_answer|skipped||");

    const cancelled = await startRun([single]);
    const response = await postCommand("cancel");
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ response_type: "ephemeral", text: "Cancelled." });
    expect(await replyOf(cancelled.executionArn)).toBe("no_answer|cancelled||");
    expect(JSON.stringify(slack.callsTo("chat.update").at(-1)?.body.blocks)).toContain("Cancelled.");
    expect((await postCommand("cancel")).json.text).toBe("No question is waiting for you here.");
  });

  it("the same event delivered twice (a retry with X-Slack-Retry-Num) resumes the run once and is acknowledged both times", async () => {
    const { executionArn, questionId } = await startRun([single]);
    const event = messageEvent("Production", { threadTs: await postedTs(questionId) });
    expect((await postEvent(event)).status).toBe(200);
    const retry = await postEvent(event, {
      headers: { "x-slack-retry-num": "1", "x-slack-retry-reason": "http_timeout" },
    });
    expect(retry.status).toBe(200);
    expect(await replyOf(executionArn)).toBe("answered||Production|");
    // The retry was recognised as the same event: no second edit, no "already answered" notice.
    expect(slack.callsTo("chat.update")).toHaveLength(1);
    expect(slack.callsTo("chat.postEphemeral")).toEqual([]);
  });

  it("a slow Slack cannot make the acknowledgement late: the run resumes, the missed edit is made on the next tap", async () => {
    const { executionArn, posts, questionId } = await startRun([single]);
    const ts = await postedTs(questionId);
    const production = control(posts[0] as RecordedCall, "Production");
    slow.set("chat.update", 3_000);
    try {
      const started = performance.now();
      const response = await postInteraction(tap(production, ts));
      // The winning tap's acknowledgement waits on no Slack call: the copies are edited afterwards, by the
      // table's stream consumer.
      expect(response.status).toBe(200);
      expect(performance.now() - started).toBeLessThan(2_800);
      // The answer was recorded and the run resumed before the acknowledgement.
      expect(await replyOf(executionArn)).toBe("answered||Production|");
      // The consumer's edit ran into the slow Slack and gave up (its call is bounded too).
      await stack.streamsDrained();
      expect(heldCalls).toContain("chat.update");
    } finally {
      slow.delete("chat.update");
    }
    expect(slack.callsTo("chat.update")).toEqual([]);

    // The copy still shows its buttons: the next tap on it is told it is over, and the copy is edited then.
    await postInteraction(tap(production, ts));
    expect(slack.callsTo("chat.postEphemeral").at(-1)?.body.text).toBe(
      "This question has already been answered.",
    );
    expect(slack.callsTo("chat.update").map((update) => [update.body.channel, update.body.ts])).toEqual([
      [CHANNEL, ts],
    ]);
  });

  it("every Slack call made while handling a request is bounded by the time left before the acknowledgement", async () => {
    const api = createSlackApi({
      apiBase: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      botToken: async () => BOT_TOKEN,
      now: Date.now,
    });
    slow.set("chat.postEphemeral", 1_500);
    try {
      // 400 ms left: the call is cut at 400 ms, not at the 2 s a call may take outside a request.
      const started = performance.now();
      const call = withPlatformDeadline(
        Date.now() + 400,
        () => api.call("chat.postEphemeral", {}),
        "before the acknowledgement",
      );
      await expect(call).rejects.toBeInstanceOf(PlatformApiError);
      expect(performance.now() - started).toBeLessThan(1_000);
      // Under 100 ms left: not even started.
      const held = heldCalls.length;
      const late = withPlatformDeadline(
        Date.now() + 50,
        () => api.call("chat.postEphemeral", {}),
        "before the acknowledgement",
      );
      await expect(late).rejects.toThrow("no time left before the acknowledgement");
      expect(heldCalls.length).toBe(held);
    } finally {
      slow.delete("chat.postEphemeral");
    }
    // Slack's {ok:false} is an error too, named by Slack's error code.
    await expect(api.call("no.such.method", {})).rejects.toThrow(
      "slack no.such.method failed: unknown_method",
    );
  });
});
