/**
 * 1. The answer paths as round trips: for each way a person answers — the HTTP API, a Telegram tap, a Slack
 * button, the answer page's form — the AWS calls and chat-API calls its handler makes before it responds,
 * counted as sequential steps (bench/lib/round-trips.ts). Then the Telegram tap's latency until the run is
 * resumed (its SendTaskSuccess accepted), paired with the same bare baseline as row 1.
 */
import { createHmac } from "node:crypto";
import { encodeControl } from "#lib/channels/control-codec.ts";
import { pickField } from "#lib/web/answer-form.ts";
import type { BaselineTiming, BenchStack, WaitingRun } from "./lib/bench-stack.ts";
import type { FakeChat } from "./lib/fake-chat.ts";
import { ended } from "./lib/paired.ts";
import { type PathRoundTrips, type RoundTripTracker, startRoundTripTracker } from "./lib/round-trips.ts";
import { type Summary, summarize } from "./lib/stats.ts";

/** At most this many AWS calls one after another before the response. */
export const SEQUENTIAL_AWS_TARGET = 3;
export const TAP_TARGET = 1.5;

export const CHAT_SECRETS = {
  telegramBotToken: "123456:BENCH-token",
  telegramWebhookSecret: "bench-telegram-secret-0123456789",
  slackBotToken: "xoxb-bench-0000-token",
  slackSigningSecret: "0123456789abcdef0123456789abcdef",
};

/** The environment that turns Telegram and Slack on against the fake chat APIs. */
export function chatEnv(chat: FakeChat): Record<string, string> {
  return {
    TELEGRAM_BOT_TOKEN: CHAT_SECRETS.telegramBotToken,
    TELEGRAM_WEBHOOK_SECRET: CHAT_SECRETS.telegramWebhookSecret,
    TELEGRAM_API_BASE: chat.telegramApiBase,
    SLACK_BOT_TOKEN: CHAT_SECRETS.slackBotToken,
    SLACK_SIGNING_SECRET: CHAT_SECRETS.slackSigningSecret,
    SLACK_API_BASE: chat.slackApiBase,
  };
}

const TELEGRAM_USER = 42;
const SLACK_TEAM = "T0BENCH";
const SLACK_USER = "U0BENCH";
const SLACK_CHANNEL = "C0BENCH";

export interface AnswerPathsSizes {
  /** Answers per path whose round trips are counted (every one must show the same count). */
  countSamples: number;
  /** Telegram tap / baseline pairs. */
  tapPairs: number;
}

export interface PathCount {
  path: string;
  function: string;
  samples: number;
  /** The most sequential AWS calls any sample made before its response. */
  sequentialAws: number;
  /** The most sequential chat-API calls. */
  sequentialChat: number;
  /** Calls per sample (AWS, chat), the most any sample made. */
  awsCalls: number;
  chatCalls: string[];
  /** Every sample's steps, the distinct ones. */
  shapes: string[];
  /** The chat call allowed on this path: the one that answers the tapping user. */
  allowedChat: string[];
  target: string;
  met: boolean;
}

export interface AnswerPathsResult {
  paths: PathCount[];
  telegramTap: {
    pairs: number;
    /** From sending the tap until its SendTaskSuccess was accepted (the run resumed). */
    resume: Summary;
    /** The whole webhook request, the chat call that answers the tapping user included. */
    response: Summary;
    baseline: Summary;
    ratioMedian: number;
    ratioP99: number;
    target: number;
    met: boolean;
    /** Every sample, milliseconds, in the order taken. */
    samples: { resume: number[]; response: number[]; baseline: number[] };
  };
}

interface PathSpec {
  path: string;
  function: string;
  allowedChat: string[];
  prepare(count: number): Promise<WaitingRun[]>;
  /** Sends the answer; resolves with the time it was sent. */
  send(run: WaitingRun): Promise<{ sentAt: number; response: Response }>;
  expectStatus: number;
}

export async function measureAnswerPaths(
  bench: BenchStack,
  sizes: AnswerPathsSizes,
  chat: FakeChat,
): Promise<AnswerPathsResult> {
  const tracker = startRoundTripTracker({ chatOrigins: [chat.origin] });
  try {
    const specs = pathSpecs(bench);
    const paths: PathCount[] = [];
    for (const spec of specs) paths.push(await countPath(bench, tracker, spec, sizes.countSamples));
    const telegram = specs.find((s) => s.path === "Telegram tap");
    if (!telegram) throw new Error("no Telegram path");
    return { paths, telegramTap: await measureTap(bench, tracker, telegram, sizes.tapPairs) };
  } finally {
    tracker.stop();
  }
}

async function sendChecked(spec: PathSpec, run: WaitingRun): Promise<{ sentAt: number; doneAt: number }> {
  const { sentAt, response } = await spec.send(run);
  const text = await response.text();
  const doneAt = performance.now();
  if (response.status !== spec.expectStatus) {
    throw new Error(`${spec.path}: HTTP ${response.status} ${text.slice(0, 200)}`);
  }
  return { sentAt, doneAt };
}

async function countPath(
  bench: BenchStack,
  tracker: RoundTripTracker,
  spec: PathSpec,
  samples: number,
): Promise<PathCount> {
  // One more than counted: the first request of a handler also pays for what it loads lazily.
  const runs = await spec.prepare(samples + 1);
  const counted: PathRoundTrips[] = [];
  for (const [i, run] of runs.entries()) {
    tracker.clear();
    await sendChecked(spec, run);
    await ended(bench, run);
    if (i > 0) counted.push(tracker.of(spec.function));
  }
  const sequentialAws = Math.max(...counted.map((c) => c.sequentialAws));
  const sequentialChat = Math.max(...counted.map((c) => c.sequentialChat));
  const chatCalls = [
    ...new Set(counted.flatMap((c) => c.calls.filter((t) => t.kind === "chat").map((t) => t.label))),
  ];
  const chatPerSample = Math.max(...counted.map((c) => c.calls.filter((t) => t.kind === "chat").length));
  const chatOk = chatPerSample <= 1 && chatCalls.every((label) => spec.allowedChat.includes(label));
  return {
    path: spec.path,
    function: spec.function.replace(/^handraise-local-/, ""),
    samples: counted.length,
    sequentialAws,
    sequentialChat,
    awsCalls: Math.max(...counted.map((c) => c.calls.filter((t) => t.kind === "aws").length)),
    chatCalls,
    shapes: [...new Set(counted.map((c) => c.shape))],
    allowedChat: spec.allowedChat,
    target: `≤ ${SEQUENTIAL_AWS_TARGET} sequential AWS calls; chat: ${spec.allowedChat.length > 0 ? `only ${spec.allowedChat.join(" / ")}` : "none"}`,
    met: sequentialAws <= SEQUENTIAL_AWS_TARGET && chatOk,
  };
}

async function measureTap(
  bench: BenchStack,
  tracker: RoundTripTracker,
  spec: PathSpec,
  pairs: number,
): Promise<AnswerPathsResult["telegramTap"]> {
  const tapRuns = await spec.prepare(pairs);
  const baselineRuns = await bench.startWaitingRuns(pairs);
  const resume: number[] = [];
  const response: number[] = [];
  const baseline: BaselineTiming[] = [];
  const tap = async (run: WaitingRun) => {
    tracker.clear();
    const { sentAt, doneAt } = await sendChecked(spec, run);
    const trips = tracker.of(spec.function);
    const resumed = trips.calls.find((c) => c.label === "SFN SendTaskSuccess");
    if (!resumed) throw new Error("the tap sent no SendTaskSuccess");
    resume.push(resumed.answeredAt - sentAt);
    response.push(doneAt - sentAt);
    await ended(bench, run);
  };
  const bare = async (run: WaitingRun) => {
    baseline.push(await bench.answerBaseline(run));
    await ended(bench, run);
  };
  for (let i = 0; i < pairs; i++) {
    const [t, b] = [tapRuns[i], baselineRuns[i]];
    if (!t || !b) break;
    if (i % 2 === 0) {
      await tap(t);
      await bare(b);
    } else {
      await bare(b);
      await tap(t);
    }
  }
  const resumeSummary = summarize(resume);
  const baselineSummary = summarize(baseline.map((b) => b.ms));
  const ratioMedian = resumeSummary.median / baselineSummary.median;
  return {
    pairs: resume.length,
    resume: resumeSummary,
    response: summarize(response),
    baseline: baselineSummary,
    ratioMedian,
    ratioP99: resumeSummary.p99 / baselineSummary.p99,
    target: TAP_TARGET,
    met: ratioMedian <= TAP_TARGET,
    samples: { resume, response, baseline: baseline.map((b) => b.ms) },
  };
}

let updateId = 7_000_000;

function pathSpecs(bench: BenchStack): PathSpec[] {
  const { httpUrl, apiKey } = bench.stack;
  const post = async (path: string, init: RequestInit) => {
    const sentAt = performance.now();
    const response = await fetch(`${httpUrl}${path}`, { method: "POST", ...init });
    return { sentAt, response };
  };
  return [
    {
      path: "API answer",
      function: "handraise-local-questionsApi",
      allowedChat: [],
      prepare: (count) => bench.startWaitingRuns(count),
      send: (run) =>
        post(`/questions/${run.questionId}/answer`, {
          headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ answers: { deploy_target: ["Staging"] } }),
        }),
      expectStatus: 200,
    },
    {
      path: "Telegram tap",
      function: "handraise-local-telegramWebhook",
      allowedChat: ["chat answerCallbackQuery"],
      prepare: (count) =>
        bench.startWaitingRuns(count, {
          owner: `telegram:${TELEGRAM_USER}`,
          deliverTo: [{ channel: "telegram", chatId: String(TELEGRAM_USER) }],
        }),
      send: (run) => {
        const id = ++updateId;
        const data = encodeControl({
          kind: "option",
          questionIndex: 0,
          optionIndex: 0,
          questionId: run.questionId,
        });
        return post("/webhooks/telegram", {
          headers: {
            "content-type": "application/json",
            "x-telegram-bot-api-secret-token": CHAT_SECRETS.telegramWebhookSecret,
          },
          body: JSON.stringify({
            update_id: id,
            callback_query: {
              id: `cb${id}`,
              from: { id: TELEGRAM_USER, is_bot: false, first_name: "Ann" },
              message: {
                message_id: id,
                chat: { id: TELEGRAM_USER, type: "private" },
                date: 1,
                reply_markup: { inline_keyboard: [[{ text: "Staging", callback_data: data }]] },
              },
              chat_instance: "1",
              data,
            },
          }),
        });
      },
      expectStatus: 200,
    },
    {
      path: "Slack button",
      function: "handraise-local-slackWebhook",
      allowedChat: ["chat chat.postEphemeral"],
      prepare: (count) =>
        bench.startWaitingRuns(count, {
          owner: `slack:${SLACK_TEAM}:${SLACK_USER}`,
          deliverTo: [{ channel: "slack", chatId: SLACK_CHANNEL }],
        }),
      send: (run) => {
        const id = ++updateId;
        const ts = `1700000000.${String(id).padStart(6, "0")}`;
        const payload = {
          type: "block_actions",
          user: { id: SLACK_USER, username: "ann", team_id: SLACK_TEAM },
          api_app_id: "A0BENCH",
          token: "legacy",
          container: { type: "message", message_ts: ts, channel_id: SLACK_CHANNEL, is_ephemeral: false },
          trigger_id: `${id}.1.bench`,
          team: { id: SLACK_TEAM, domain: "bench" },
          channel: { id: SLACK_CHANNEL, name: "bench" },
          message: { type: "message", ts, user: "U0BOT", blocks: [] },
          state: { values: {} },
          response_url: "https://hooks.slack.com/actions/T/1/x",
          actions: [
            {
              type: "button",
              block_id: "b",
              action_id: encodeControl({
                kind: "option",
                questionId: run.questionId,
                questionIndex: 0,
                optionIndex: 0,
              }),
              action_ts: `${Math.floor(Date.now() / 1000)}.${id}`,
            },
          ],
        };
        const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
        const timestamp = String(Math.floor(Date.now() / 1000));
        const signature = `v0=${createHmac("sha256", CHAT_SECRETS.slackSigningSecret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
        return post("/webhooks/slack", {
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            "x-slack-request-timestamp": timestamp,
            "x-slack-signature": signature,
          },
          body,
        });
      },
      expectStatus: 200,
    },
    {
      path: "Answer page post",
      function: "handraise-local-answerPage",
      allowedChat: [],
      prepare: async (count) => {
        const runs = await bench.startWaitingRuns(count);
        // The signed link, read before anything is counted (GET /questions/{id} returns it).
        for (const run of runs) {
          const response = await fetch(`${httpUrl}/questions/${run.questionId}`, {
            headers: { authorization: `Bearer ${apiKey}` },
          });
          const { answerUrl } = (await response.json()) as { answerUrl?: string };
          if (!answerUrl) throw new Error("the answer page is off: no answerUrl");
          links.set(run.questionId, new URL(answerUrl));
        }
        return runs;
      },
      send: (run) => {
        const link = links.get(run.questionId);
        if (!link) throw new Error(`no link for ${run.questionId}`);
        const sig = link.searchParams.get("sig") ?? "";
        return post(`${link.pathname}${link.search}`, {
          headers: { "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "same-origin" },
          body: new URLSearchParams({ sig, [pickField("deploy_target")]: "0", action: "submit" }).toString(),
          redirect: "manual",
        });
      },
      expectStatus: 303,
    },
  ];
}

const links = new Map<string, URL>();
