/**
 * Lifecycle guarantees under races (1), self-healing writes (3) and late or expired answers (5), on the real
 * local stack: a waiting agent run delivered to Telegram and Slack (local fakes of their APIs), answered at
 * the same moment through the HTTP API and both chats.
 */
import { DeleteItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { GetExecutionHistoryCommand, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { marshall } from "@aws-sdk/util-dynamodb";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { lambdaContext } from "#infra/local/lambda-context.ts";
import { createDynamoDbQuestionStore } from "#lib/store/dynamodb-question-store.ts";
import vectors from "../fixtures/signature-vectors.json" with { type: "json" };
import { type FakePlatform, type RecordedCall, startFakePlatform } from "./support/fake-platform.ts";
import { slackSignature } from "./support/signing.ts";
import {
  allItems,
  posted,
  startTestStack,
  type TestStack,
  waitFor,
  waitForExecutionEnd,
} from "./support/test-stack.ts";

const TG_SECRET = vectors.telegram_generated.secret_token;
const TG_HEADER = vectors.telegram_generated.header.toLowerCase();
const TG_USER = 42;
const SLACK_SECRET = "5d41402abc4b2a76b9719d911017c592";
const TEAM = "T061EG9R6";
const SLACK_USER = "U2147483697";
const RETENTION_DAYS = 3;

let stack: TestStack;
let telegram: FakePlatform;
let slack: FakePlatform;
let seq = 1000;
let TG_CHAT = -100777000;
let SLACK_CHANNEL = "C0";

beforeAll(async () => {
  telegram = await startFakePlatform((call) =>
    call.method === "sendMessage"
      ? { body: { ok: true, result: { message_id: ++seq, chat: { id: call.body.chat_id } } } }
      : { body: { ok: true, result: true } },
  );
  slack = await startFakePlatform((call) =>
    call.method === "chat.postMessage"
      ? { body: { ok: true, channel: call.body.channel, ts: `1700000000.${String(++seq).padStart(6, "0")}` } }
      : { body: { ok: true, channel: call.body.channel, ts: call.body.ts, message_ts: "1.1" } },
  );
  stack = await startTestStack({
    TELEGRAM_BOT_TOKEN: "123456:TEST-token",
    TELEGRAM_WEBHOOK_SECRET: TG_SECRET,
    TELEGRAM_API_BASE: telegram.url,
    SLACK_BOT_TOKEN: "xoxb-test-0000-token",
    SLACK_SIGNING_SECRET: SLACK_SECRET,
    SLACK_API_BASE: slack.url,
    HANDRAISE_RETENTION_DAYS: String(RETENTION_DAYS),
  });
});
afterAll(async () => {
  await stack?.stop();
  await telegram?.stop();
  await slack?.stop();
});
beforeEach(() => {
  TG_CHAT -= 1;
  SLACK_CHANNEL = `C${String(++seq).padStart(8, "0")}`;
});

const unique = (prefix: string) => `${prefix}-${Date.now()}-${++seq}`;
const TG_OWNER = `telegram:${TG_USER}`;
const SLACK_OWNER = `slack:${TEAM}:${SLACK_USER}`;

const single = {
  id: "deploy_target",
  header: "Deploy to",
  question: "Where should it go?",
  options: [{ label: "Staging (Recommended)" }, { label: "Production" }],
};
const REPLY = "{{c1.status}}|{{c1.reason}}|{{c1.deploy_target}}";

// ── Chat requests, signed as the platforms sign them ──────────────────────────────────────────────────

function telegramTap(data: string, messageId: number, from = TG_USER) {
  const updateId = ++seq;
  const update = {
    update_id: updateId,
    callback_query: {
      id: `cb${updateId}`,
      from: { id: from, is_bot: false, first_name: "Ann" },
      message: { message_id: messageId, chat: { id: TG_CHAT, type: "supergroup" }, date: 1 },
      chat_instance: "1",
      data,
    },
  };
  return {
    callbackId: update.callback_query.id,
    send: () =>
      fetch(`${stack.httpUrl}/webhooks/telegram`, {
        method: "POST",
        headers: { "content-type": "application/json", [TG_HEADER]: TG_SECRET },
        body: JSON.stringify(update),
      }),
  };
}

function slackTap(element: SlackElement, messageTs: string, user = SLACK_USER) {
  const payload = {
    type: "block_actions",
    user: { id: user, username: "ann", team_id: TEAM },
    api_app_id: "A0PNCHHK2",
    token: "legacy",
    container: { type: "message", message_ts: messageTs, channel_id: SLACK_CHANNEL, is_ephemeral: false },
    trigger_id: `${++seq}.738474920.8088930838d88f008e0`,
    team: { id: TEAM, domain: "acme" },
    channel: { id: SLACK_CHANNEL, name: "dev" },
    message: { type: "message", ts: messageTs, user: "U0BOT", blocks: [] },
    state: { values: {} },
    response_url: "https://hooks.slack.com/actions/T/1/x",
    actions: [
      {
        type: element.type,
        block_id: "b",
        action_id: element.action_id,
        value: element.value,
        action_ts: `${Math.floor(Date.now() / 1000)}.${++seq}`,
      },
    ],
  };
  const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return () => {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = slackSignature(SLACK_SECRET, timestamp, body);
    return fetch(`${stack.httpUrl}/webhooks/slack`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-slack-request-timestamp": timestamp,
        "x-slack-signature": signature,
      },
      body,
    });
  };
}

interface SlackElement {
  type: string;
  action_id: string;
  value?: string;
  text?: { text: string };
}
const telegramButton = (call: RecordedCall, label: string): string => {
  const found = (call.body.reply_markup.inline_keyboard as { text: string; callback_data: string }[][])
    .flat()
    .find((b) => b.text === label);
  if (!found) throw new Error(`no Telegram button ${label}`);
  return found.callback_data;
};
const slackControl = (call: RecordedCall, label: string): SlackElement => {
  const found = (call.body.blocks as { type: string; elements?: SlackElement[] }[])
    .filter((block) => block.type === "actions")
    .flatMap((block) => block.elements ?? [])
    .find((e) => e.text?.text === label);
  if (!found) throw new Error(`no Slack control ${label}`);
  return found;
};

// ── Runs ──────────────────────────────────────────────────────────────────────────────────────────────

async function startRun(owner: string, args: Record<string, unknown> = { questions: [single] }) {
  const sessionKey = unique("race");
  const tgBefore = telegram.callsTo("sendMessage").length;
  const slackBefore = slack.callsTo("chat.postMessage").length;
  const { executionArn } = await stack.sfn.send(
    new StartExecutionCommand({
      stateMachineArn: stack.stateMachineArns.agent,
      input: JSON.stringify({
        sessionKey,
        owner,
        deliverTo: [
          { channel: "telegram", chatId: String(TG_CHAT) },
          { channel: "slack", chatId: SLACK_CHANNEL },
        ],
        prompt: "test",
        model: {
          provider: "scripted",
          steps: [{ toolCalls: [{ id: "c1", name: "ask_user", arguments: args }] }, { reply: REPLY }],
        },
      }),
    }),
  );
  const record = await waitFor(
    async () => {
      const [question] = (await stack.api("GET", `/questions?sessionKey=${sessionKey}`)).body.questions;
      return posted(question) === 2 ? question : undefined;
    },
    { what: "the question delivered to Telegram and Slack" },
  );
  const tgPost = telegram.callsTo("sendMessage")[tgBefore] as RecordedCall;
  const slackPost = slack.callsTo("chat.postMessage")[slackBefore] as RecordedCall;
  const messageOf = (channel: string) =>
    record.deliveries.find((d: { channel: string }) => d.channel === channel).messageId as string;
  return {
    executionArn: executionArn as string,
    id: record.id as string,
    expiresAtMs: record.expiresAtMs as number,
    tgPost,
    slackPost,
    tgMessageId: Number(messageOf("telegram")),
    slackTs: messageOf("slack"),
  };
}

/** How the AskUser task ended in the run's history: its waitForTaskToken successes, failures, timeouts. */
async function askUserEndings(executionArn: string): Promise<string[]> {
  const history = await stack.sfn.send(new GetExecutionHistoryCommand({ executionArn, maxResults: 1000 }));
  return (history.events ?? []).flatMap((event) => {
    const details =
      event.taskSucceededEventDetails ?? event.taskFailedEventDetails ?? event.taskTimedOutEventDetails;
    return details?.resource === "invoke.waitForTaskToken" ? [event.type as string] : [];
  });
}

/** The run's output that the record's final state implies (the scripted reply template REPLY). */
function expectedReply(record: { status: string; reason?: string; answers?: Record<string, string[]> }) {
  if (record.status === "answered") return `answered||${record.answers?.deploy_target?.join(",")}`;
  if (record.status === "cancelled") return `no_answer|${record.reason}|`;
  if (record.status === "expired") return "no_answer|expired|";
  throw new Error(`unexpected final status ${record.status}`);
}

function endedNotice(record: { status: string; reason?: string }): string {
  if (record.status === "answered") return "This question has already been answered.";
  if (record.status === "expired") return "This question has expired.";
  return `This question has ended (${record.reason === "skipped" ? "Skipped." : "Cancelled."})`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ── 1. Exactly once under races ───────────────────────────────────────────────────────────────────────

describe("exactly once under races", () => {
  it.each([
    ["Telegram", TG_OWNER],
    ["Slack", SLACK_OWNER],
  ])(
    "20 answers at once (API, Telegram taps, Slack actions, a cancel), owner on %s → one winner, one resume, everyone else told the final state",
    async (platform, owner) => {
      const run = await startRun(owner);
      const tgAcksBefore = telegram.callsTo("answerCallbackQuery").length;
      const ephemeralsBefore = slack.callsTo("chat.postEphemeral").length;

      const apiAnswers = [
        "Production",
        "staging (recommended)",
        "free text one",
        "Production",
        "free text two",
        "Staging (Recommended)",
        "night",
      ];
      const tgTaps = [
        "Production",
        "Staging (Recommended)",
        "Skip",
        "Production",
        "Skip",
        "Staging (Recommended)",
      ].map((label) => telegramTap(telegramButton(run.tgPost, label), run.tgMessageId));
      const slackTaps = [
        "Production",
        "Skip",
        "Staging (Recommended)",
        "Production",
        "Skip",
        "Production",
      ].map((label) => slackTap(slackControl(run.slackPost, label), run.slackTs));
      const results = await Promise.all([
        ...apiAnswers.map((value) =>
          stack.api("POST", `/questions/${run.id}/answer`, { answers: { deploy_target: [value] } }),
        ),
        stack.api("POST", `/questions/${run.id}/cancel`, { reason: "cancelled" }),
        ...tgTaps.map((tap) => tap.send().then((r) => ({ status: r.status, body: undefined }))),
        ...slackTaps.map((tap) => tap().then((r) => ({ status: r.status, body: undefined }))),
      ]);
      expect(results).toHaveLength(20);
      const apiResults = results.slice(0, apiAnswers.length + 1);
      const chatResults = results.slice(apiAnswers.length + 1);
      expect(chatResults.map((r) => r.status)).toEqual(chatResults.map(() => 200));

      const execution = await waitForExecutionEnd(stack, run.executionArn);
      const record = (await stack.api("GET", `/questions/${run.id}`)).body.question;
      expect(["answered", "cancelled"]).toContain(record.status);

      // The run and the record agree, and the run took exactly one result.
      expect(execution.status).toBe("SUCCEEDED");
      expect(JSON.parse(execution.output ?? "{}").reply).toBe(expectedReply(record));
      expect(await askUserEndings(run.executionArn)).toHaveLength(1);

      // API losers: 409 ALREADY_RESOLVED with the final status.
      const apiWinners = apiResults.filter((r) => r.status === 200).length;
      for (const loser of apiResults.filter((r) => r.status !== 200)) {
        expect(loser.status).toBe(409);
        expect(loser.body).toMatchObject({ error: { code: "ALREADY_RESOLVED" }, status: record.status });
      }

      // Chat: the owner's platform had contestants; a winner's tap is acknowledged, every loser told the end.
      const notice = endedNotice(record);
      let chatWinners = 0;
      if (platform === "Telegram") {
        const acks = telegram.callsTo("answerCallbackQuery").slice(tgAcksBefore);
        for (const tap of tgTaps) {
          const ack = acks.find((a) => a.body.callback_query_id === tap.callbackId);
          expect(ack).toBeDefined();
          if (ack?.body.text === "Got it." || ack?.body.text === "Skipped.") chatWinners++;
          else expect(ack?.body).toMatchObject({ text: notice, show_alert: true });
        }
        // Slack taps came from someone who is not the owner: each told so privately.
        const ephemerals = slack.callsTo("chat.postEphemeral").slice(ephemeralsBefore);
        expect(ephemerals.map((e) => e.body.text)).toEqual(
          slackTaps.map(() => "This question is not yours to answer."),
        );
      } else {
        const ephemerals = slack.callsTo("chat.postEphemeral").slice(ephemeralsBefore);
        const told = ephemerals.filter((e) => e.body.text === notice).length;
        expect(ephemerals.length).toBe(told);
        chatWinners = slackTaps.length - told;
        const acks = telegram.callsTo("answerCallbackQuery").slice(tgAcksBefore);
        expect(acks.map((a) => a.body.text)).toEqual(
          tgTaps.map(() => "This question is not yours to answer."),
        );
      }
      expect(apiWinners + chatWinners).toBe(1);
      // The record names the winner: the API, or the owner's own tap.
      expect(record.resolvedBy).toBe(apiWinners === 1 ? "api" : owner);
    },
  );

  it("answer vs cancel vs timeout at the deadline (1 s): whatever wins, the record and the run agree", async () => {
    const run = await startRun(TG_OWNER, { questions: [single], timeoutSeconds: 1 });
    const offsets = [-120, -80, -40, -20, -5, 0, 5, 20, 40, 80];
    const fireAt = async (atMs: number, request: () => Promise<{ status: number; body: any }>) => {
      await sleep(Math.max(0, atMs - Date.now()));
      return request();
    };
    const results = await Promise.all([
      ...offsets.map((offset, k) =>
        fireAt(run.expiresAtMs + offset, () =>
          stack.api("POST", `/questions/${run.id}/answer`, { answers: { deploy_target: [`at ${k}`] } }),
        ),
      ),
      fireAt(run.expiresAtMs - 10, () => stack.api("POST", `/questions/${run.id}/cancel`, {})),
    ]);
    const execution = await waitForExecutionEnd(stack, run.executionArn, 25_000);
    const record = (await stack.api("GET", `/questions/${run.id}`)).body.question;
    expect(execution.status).toBe("SUCCEEDED");
    expect(JSON.parse(execution.output ?? "{}").reply).toBe(expectedReply(record));
    expect(await askUserEndings(run.executionArn)).toHaveLength(1);
    const winners = results.filter((r) => r.status === 200);
    expect(winners.length).toBe(record.status === "expired" ? 0 : 1);
    for (const loser of results.filter((r) => r.status !== 200)) {
      expect(loser.status).toBe(409);
      expect(loser.body.status).toBe(record.status);
    }
  }, 30_000);
});

// ── 3. Self-healing writes ────────────────────────────────────────────────────────────────────────────

describe("self-healing writes", () => {
  const ask = (sessionKey: string, extra: Record<string, unknown> = {}) =>
    stack.api("POST", "/questions", { questions: [single], owner: "web:heal", sessionKey, ...extra });

  it("a question stored but its session slot never written: the session is not blocked", async () => {
    const sessionKey = unique("no-slot");
    const first = await ask(sessionKey);
    expect(first.status).toBe(201);
    // The crash: the slot write never happened.
    await stack.dynamodb.send(
      new DeleteItemCommand({ TableName: stack.tableName, Key: marshall({ pk: `SESSION#${sessionKey}` }) }),
    );
    const next = await ask(sessionKey);
    expect(next.status).toBe(201);
    // And the session lock holds again from there.
    expect((await ask(sessionKey)).status).toBe(409);
  });

  it("a slot written for a question whose write failed: the next ask takes the slot over at once", async () => {
    const sessionKey = unique("orphan-slot");
    await stack.dynamodb.send(
      new PutItemCommand({
        TableName: stack.tableName,
        Item: marshall({
          pk: `SESSION#${sessionKey}`,
          entity: "sessionSlot",
          questionId: "ask_never_written",
          expiresAtMs: Date.now() + 3_600_000,
          expiresAt: Math.ceil(Date.now() / 1000) + 7200,
        }),
      }),
    );
    const next = await ask(sessionKey);
    expect(next.status).toBe(201);
    const slot = (await allItems(stack)).find((item) => item.pk === `SESSION#${sessionKey}`);
    expect(slot?.questionId).toBe(next.body.id);
  });

  it("a slot held by a question nobody answers blocks the session only until its deadline", async () => {
    const sessionKey = unique("deadline");
    const first = await ask(sessionKey, { timeoutSeconds: 1 });
    expect(first.status).toBe(201);
    const busy = await ask(sessionKey);
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe("SESSION_BUSY");
    await sleep(Math.max(0, first.body.expiresAtMs - Date.now()) + 50);
    expect((await ask(sessionKey)).status).toBe(201);
  });

  /** The AskUser task of `startRun` run again with `taskToken`, as Step Functions retries it. */
  const retryAsk = (runId: string, sessionKey: unknown, taskToken: string) =>
    stack.handler("ask")(
      {
        taskToken,
        runId,
        toolCallId: "c1",
        owner: TG_OWNER,
        sessionKey,
        deliverTo: [
          { channel: "telegram", chatId: String(TG_CHAT) },
          { channel: "slack", chatId: SLACK_CHANNEL },
        ],
        questions: [single],
      },
      lambdaContext("ask", 10_000),
    );

  it("a retried ask (same run, same tool call) replaces the task token, never duplicates the question or its posts", async () => {
    const run = await startRun(TG_OWNER);
    const itemsOf = async () => (await allItems(stack)).filter((item) => item.pk === `Q#${run.id}`);
    const [stored] = await itemsOf();
    const posts = telegram.callsTo("sendMessage").length + slack.callsTo("chat.postMessage").length;
    const retry = (taskToken: string) => retryAsk(run.executionArn, stored?.sessionKey, taskToken);
    // A made-up token stands in for a retried attempt's: no run waits on it, but its run is still running,
    // so the question stays.
    expect(await retry("a-retry-token")).toEqual({ questionId: run.id });
    expect((await itemsOf()).map((item) => item.taskToken)).toEqual(["a-retry-token"]);
    // The retry of the real attempt: the run's own token is back, still one record, no new posts.
    expect(await retry(stored?.taskToken)).toEqual({ questionId: run.id });
    expect((await itemsOf()).map((item) => item.taskToken)).toEqual([stored?.taskToken]);
    expect(telegram.callsTo("sendMessage").length + slack.callsTo("chat.postMessage").length).toBe(posts);

    const answered = await stack.api("POST", `/questions/${run.id}/answer`, {
      answers: { deploy_target: ["Production"] },
    });
    expect(answered.status).toBe(200);
    const execution = await waitForExecutionEnd(stack, run.executionArn);
    expect(JSON.parse(execution.output ?? "{}").reply).toBe("answered||Production");
    expect(await askUserEndings(run.executionArn)).toEqual(["TaskSucceeded"]);
  });

  it("a retried ask whose question was answered meanwhile resumes the run with that answer (not delivery_failed)", async () => {
    const run = await startRun(TG_OWNER);
    const [stored] = (await allItems(stack)).filter((item) => item.pk === `Q#${run.id}`);
    const posts = telegram.callsTo("sendMessage").length + slack.callsTo("chat.postMessage").length;
    const retry = (taskToken: string) => retryAsk(run.executionArn, stored?.sessionKey, taskToken);
    // An attempt whose token the run no longer waits on holds the question when the person answers (its run
    // is still running, so the dead token is not taken for a stopped run)…
    expect(await retry("an-earlier-attempt")).toEqual({ questionId: run.id });
    const answered = await stack.api("POST", `/questions/${run.id}/answer`, {
      answers: { deploy_target: ["Production"] },
    });
    // The token it resumed is dead, but the run goes on: the person is not told it stopped waiting.
    expect(answered.body).toMatchObject({ status: "answered" });
    expect(answered.body.run).toBeUndefined();
    // …then the task is retried with the token the run waits on: it is sent the answer already given.
    expect(await retry(stored?.taskToken)).toEqual({ questionId: run.id });
    const execution = await waitForExecutionEnd(stack, run.executionArn);
    expect(JSON.parse(execution.output ?? "{}").reply).toBe("answered||Production");
    expect(await askUserEndings(run.executionArn)).toEqual(["TaskSucceeded"]);
    expect((await stack.api("GET", `/questions/${run.id}`)).body.question.status).toBe("answered");
    expect(telegram.callsTo("sendMessage").length + slack.callsTo("chat.postMessage").length).toBe(posts);
  });
});

// ── 5. Late and expired ───────────────────────────────────────────────────────────────────────────────

describe("writes DynamoDB applied, whose response was lost (a 500 the SDK retries)", () => {
  const lostResponse = (operation: string) =>
    stack.faults.dynamodb.failNext(1, {
      code: "InternalServerError",
      status: 500,
      operations: [operation],
      applied: true,
    });

  it("a tap whose event claim landed: the first delivery is still handled, not dropped as a duplicate", async () => {
    const run = await startRun(TG_OWNER);
    lostResponse("PutItem");
    const tap = telegramTap(telegramButton(run.tgPost, "Production"), run.tgMessageId);
    expect((await tap.send()).status).toBe(200);
    expect(stack.faults.dynamodb.clear()).toBe(0);
    const ack = telegram
      .callsTo("answerCallbackQuery")
      .find((a) => a.body.callback_query_id === tap.callbackId);
    expect(ack?.body.text).toBe("Got it.");
    const execution = await waitForExecutionEnd(stack, run.executionArn);
    expect(execution.output).toBe(JSON.stringify({ reply: "answered||Production" }));
  });

  it("an ask over the API whose put landed: created (201), not refused as an id in use", async () => {
    lostResponse("PutItem");
    const created = await stack.api("POST", "/questions", {
      questions: [single],
      owner: TG_OWNER,
      sessionKey: unique("lost-put"),
    });
    expect(stack.faults.dynamodb.clear()).toBe(0);
    expect(created.status).toBe(201);
    expect((await stack.api("GET", `/questions/${created.body.id}`)).body.question.status).toBe("pending");
  });
});

describe("late and expired", () => {
  async function expiredQuestion(extra: Record<string, unknown> = {}, options = { stored: true }) {
    const agentId = unique("agent");
    const sessionKey = unique("late");
    const created = await stack.api("POST", "/questions", {
      questions: [single],
      timeoutSeconds: 1,
      owner: TG_OWNER,
      sessionKey,
      agentId,
      ...extra,
    });
    expect(created.status).toBe(201);
    await sleep(Math.max(0, created.body.expiresAtMs - Date.now()) + 50);
    const id = created.body.id as string;
    // Its expiry timer stores it expired a moment later: from then on, nothing may change it.
    if (options.stored) {
      await waitFor(async () => ((await itemOf(id))?.status === "expired" ? true : undefined), {
        what: "the expiry stored",
      });
    }
    return { id, expiresAtMs: created.body.expiresAtMs as number, sessionKey, agentId };
  }
  const itemOf = async (id: string) => (await allItems(stack)).find((item) => item.pk === `Q#${id}`);

  it("an answer or cancel after the deadline over the API → 409 with status expired, nothing changes", async () => {
    const { id } = await expiredQuestion();
    const before = await itemOf(id);
    const answer = await stack.api("POST", `/questions/${id}/answer`, { answers: { deploy_target: ["1"] } });
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({ error: { code: "ALREADY_RESOLVED" }, status: "expired" });
    expect(answer.body.error.message).toContain("expired");
    const cancel = await stack.api("POST", `/questions/${id}/cancel`, {});
    expect(cancel.status).toBe(409);
    expect(cancel.body.status).toBe("expired");
    expect(await itemOf(id)).toEqual(before);
  });

  it("the closing write itself refuses a question past its deadline (an answer that passed its read just before)", async () => {
    // Still pending in the table (its expiry timer has not fired): only the write's deadline check refuses.
    const created = await stack.api("POST", "/questions", {
      questions: [single],
      timeoutSeconds: 60,
      owner: TG_OWNER,
    });
    const id = created.body.id as string;
    const before = await itemOf(id);
    expect(before?.status).toBe("pending");
    // The store the handlers use, on the same table: the write that a racing answer would make.
    const store = createDynamoDbQuestionStore({
      client: stack.dynamodb,
      tableName: stack.tableName,
      retentionSeconds: RETENTION_DAYS * 86_400,
    });
    const closed = await store.close(
      id,
      { status: "answered", answers: { deploy_target: ["Production"] } },
      created.body.expiresAtMs + 1,
    );
    expect(closed).toMatchObject({ kind: "not_pending", record: { status: "expired" } });
    expect(await itemOf(id)).toEqual(before);
  });

  it("a chat tap after the deadline → 'This question has expired.', nothing changes", async () => {
    const { id } = await expiredQuestion({ deliverTo: [{ channel: "telegram", chatId: String(TG_CHAT) }] });
    const record = (await stack.api("GET", `/questions/${id}`)).body.question;
    const post = telegram.callsTo("sendMessage").at(-1) as RecordedCall;
    const before = await itemOf(id);
    const tap = telegramTap(telegramButton(post, "Production"), Number(record.deliveries[0].messageId));
    expect((await tap.send()).status).toBe(200);
    const ack = telegram
      .callsTo("answerCallbackQuery")
      .find((a) => a.body.callback_query_id === tap.callbackId);
    expect(ack?.body).toMatchObject({ text: "This question has expired.", show_alert: true });
    expect(await itemOf(id)).toEqual(before);
  });

  it("no read reports pending past the deadline: GET, every list and wait", async () => {
    const { id, sessionKey, agentId } = await expiredQuestion({}, { stored: false });
    expect((await stack.api("GET", `/questions/${id}`)).body.question.status).toBe("expired");
    for (const query of [
      `owner=${encodeURIComponent(TG_OWNER)}`,
      `sessionKey=${sessionKey}`,
      `agentId=${agentId}`,
    ]) {
      const listed = await stack.api("GET", `/questions?${query}`);
      expect(listed.body.questions.map((q: { id: string }) => q.id)).not.toContain(id);
    }
    const started = Date.now();
    const waited = await stack.api("GET", `/questions/${id}/wait?timeoutMs=5000`);
    expect(waited.body.status).toBe("expired");
    expect(Date.now() - started).toBeLessThan(2000);
    // The reads do not wait for the expiry timer to store it (within the minute on AWS; locally a second or
    // two after the deadline) nor for TTL: their own deadline check hides it.
    expect(["pending", "expired"]).toContain((await itemOf(id))?.status);
  });

  it("records carry the TTL attribute expiresAt = deadline + HANDRAISE_RETENTION_DAYS", async () => {
    const created = await stack.api("POST", "/questions", {
      questions: [single],
      owner: TG_OWNER,
      sessionKey: unique("ttl"),
      deliverTo: [{ channel: "telegram", chatId: String(TG_CHAT) }],
    });
    const expected = Math.ceil(created.body.expiresAtMs / 1000) + RETENTION_DAYS * 86_400;
    const items = await allItems(stack);
    const question = items.find((item) => item.pk === `Q#${created.body.id}`);
    expect(question?.expiresAt).toBe(expected);
    const slot = items.find((item) => item.pk === `SESSION#${question?.sessionKey}`);
    expect(slot?.expiresAt).toBe(expected);
    const messages = items.filter(
      (item) => item.entity === "messageIndex" && item.questionId === created.body.id,
    );
    expect(messages.length).toBe(1);
    for (const message of messages) expect(message.expiresAt).toBe(expected);
  });
});
