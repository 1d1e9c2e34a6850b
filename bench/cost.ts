/**
 * 5. Cost per 1,000 questions on AWS, from what real agent runs on the local stack did: each run asks one
 * question (delivered once, to the console channel standing in for a chat), which is answered over the HTTP
 * API, and the run finishes.
 * - state transitions: the `*StateEntered` events of each run's execution history (GetExecutionHistory);
 * - Lambda invocations: the history's Lambda task events (model steps, the AskUser task), plus one
 *   questions-API invocation per HTTP request; GB-seconds from serverless.yml memory and the durations
 *   assumed in scripts/lib/aws-prices.ts (local durations say nothing about Lambda's);
 * - DynamoDB units: every request the handlers sent, counted by scripts/lib/dynamodb-units.ts (item sizes,
 *   global secondary index entries included — the embedded DynamoDB reports no index units);
 * - HTTP API requests: the answers sent.
 * Priced with scripts/lib/aws-prices.ts. The naive alternative polls instead of waiting on a task token: a
 * Wait state (every `pollSeconds`) → a Lambda that reads the question → a Choice, for the average wait.
 *
 * The question timers (expiry, reminders: EventBridge Scheduler), measured apart with the table's stream on
 * (the stream consumer sets and clears them): what the local Scheduler was asked and what it invoked, per
 * question, for runs answered in time and for questions nobody answers that have one reminder.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GetItemCommand } from "@aws-sdk/client-dynamodb";
import { GetExecutionHistoryCommand, type HistoryEvent } from "@aws-sdk/client-sfn";
import { parse } from "yaml";
import { readServerlessFunctionConfigs } from "#infra/local/serverless-functions.ts";
import { PROJECT_ROOT } from "#infra/local/stack.ts";
import { keys } from "#lib/store/keys.ts";
import { ASSUMED_MS, PRICE } from "../scripts/lib/aws-prices.ts";
import { itemSize } from "../scripts/lib/dynamodb-units.ts";
import type { BenchStack, WaitingRun } from "./lib/bench-stack.ts";
import { ended } from "./lib/paired.ts";

export interface CostSizes {
  runs: number;
  /** Unanswered questions of a few seconds, each with one reminder, for the timers' cost. */
  timerQuestions: number;
  /** The average time a person takes to answer, which the naive alternative spends polling. */
  averageWaitSeconds: number;
  pollSeconds: number;
}

/** One way to wait, priced per run that asks once and per additional question, timers off and on. */
export interface CostRow {
  way: string;
  /** What stands behind it: measured here, derived from the measured run, or assumed. */
  basis: string;
  perRun: { usd: number; usdWithTimers: number };
  perAdditionalQuestion: { usd: number; usdWithTimers: number };
}

/** What one question uses, averaged over the runs. */
export interface Usage {
  transitions: number;
  lambdaInvocations: number;
  lambdaGbSeconds: number;
  writeUnits: number;
  readUnits: number;
  apiRequests: number;
}

export interface CostResult {
  runs: number;
  perQuestion: Usage;
  /** The DynamoDB requests of one question, by request kind (units per question). */
  dynamodbRequests: { label: string; count: number; write: number; read: number }[];
  lambdaByFunction: Record<string, number>;
  usdPer1000: number;
  breakdownUsdPer1000: Record<keyof Usage, number>;
  naive: {
    averageWaitSeconds: number;
    pollSeconds: number;
    polls: number;
    /** Per poll: Wait + Task + Choice transitions, one Lambda invocation, one strongly consistent read. */
    pollAssumedMs: number;
    pollReadUnits: number;
    perQuestion: Usage;
    usdPer1000: number;
    /** naive / task token. */
    ratio: number;
  };
  /** naive / task token at other average waits. */
  ratioByWait: { averageWaitSeconds: number; ratio: number }[];
  timers: TimerCost;
  /** Every way to wait, per one-question run and per additional question, timers off and on. */
  table: CostRow[];
  /** The closing write drops the task token; the stream consumer reads it from the old image. */
  closeDropsToken: boolean;
}

/** What the question timers add to a question. */
export interface TimerCost {
  /** A run answered in time: its expiry timer is set and cleared, nothing fires. */
  answered: TimerUsage;
  /** A question nobody answers, with one reminder: both timers fire. */
  unanswered: TimerUsage;
  /** Per 1,000 questions: a run answered in time with the timers (the task-token figure plus theirs). */
  answeredUsdPer1000: number;
  /** Per 1,000 questions: what the timers add to one answered in time, and to one nobody answers. */
  addedUsdPer1000: { answered: number; unanswered: number };
}

export interface TimerUsage {
  questions: number;
  /** Scheduler API calls per question (not billed). */
  createSchedule: number;
  deleteSchedule: number;
  /** Schedules that fired per question, each one timer-function invocation. */
  invocations: number;
  /** The timer function's and the stream consumer's extra DynamoDB units per question. */
  writeUnits: number;
  readUnits: number;
  /** The timer function's GB-seconds at the assumed durations, plus the stream consumer's per Scheduler call. */
  lambdaGbSeconds: number;
  usdPer1000: number;
}

/** GET /questions/{id}/wait holds its Lambda for up to this long (lib/app/wait-for-question.ts). */
const LONG_POLL_SECONDS = 25;
/** A durable execution that asks once: 2 model steps + ask_user's context, callback and submitter step. */
const DURABLE_OPERATIONS_PER_RUN = 5;
const DURABLE_OPERATIONS_PER_EXTRA_QUESTION = 4;

/** A poll Lambda does one GetItem: assumed billed duration, like the others an assumption. */
const POLL_ASSUMED_MS = 30;
const NAIVE_TRANSITIONS_PER_POLL = 3;

const ASSUMED_MS_BY_FUNCTION: Record<string, number> = {
  modelStep: ASSUMED_MS.modelStep,
  ask: ASSUMED_MS.ask,
  questionsApi: ASSUMED_MS.answer,
};

function memoryGbByFunction(): Record<string, number> {
  const doc = parse(readFileSync(join(PROJECT_ROOT, "serverless.yml"), "utf8"), { logLevel: "error" }) as {
    provider?: { memorySize?: number };
  };
  const fallback = doc.provider?.memorySize ?? 1024;
  return Object.fromEntries(
    Object.entries(readServerlessFunctionConfigs(PROJECT_ROOT)).map(([key, fn]) => [
      key,
      (fn.memorySize ?? fallback) / 1024,
    ]),
  );
}

export function usd(usage: Usage): Record<keyof Usage, number> {
  return {
    transitions: usage.transitions * PRICE.transition,
    lambdaInvocations: usage.lambdaInvocations * PRICE.lambdaRequest,
    lambdaGbSeconds: usage.lambdaGbSeconds * PRICE.lambdaGbSecondArm,
    writeUnits: usage.writeUnits * PRICE.writeUnit,
    readUnits: usage.readUnits * PRICE.readUnit,
    apiRequests: usage.apiRequests * PRICE.httpApiRequest,
  };
}

const total = (parts: Record<string, number>) => Object.values(parts).reduce((sum, v) => sum + v, 0);

/** `arn:aws:lambda:…:function:handraise-local-modelStep` or the bare name → `modelStep`. */
function functionKey(name: string): string {
  const match = /handraise-local-([^:]+)$/.exec(name.split(":function:").pop() ?? name);
  if (!match?.[1]) throw new Error(`unexpected Lambda function ${name}`);
  return match[1];
}

function lambdaInvocations(events: HistoryEvent[]): string[] {
  return events.flatMap((event) => {
    if (event.type === "LambdaFunctionScheduled") {
      return [functionKey(event.lambdaFunctionScheduledEventDetails?.resource ?? "")];
    }
    if (event.type === "TaskScheduled" && event.taskScheduledEventDetails?.resourceType === "lambda") {
      const parameters = JSON.parse(event.taskScheduledEventDetails.parameters ?? "{}") as {
        FunctionName?: string;
      };
      return [functionKey(parameters.FunctionName ?? "")];
    }
    return [];
  });
}

/** Runs `work` with stdout swallowed: the console channel prints each prompt, which is not the report. */
async function quietly<T>(work: () => Promise<T>): Promise<T> {
  const write = process.stdout.write;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    return await work();
  } finally {
    process.stdout.write = write;
  }
}

/**
 * The timers' share of a question, with the stream on (it sets and clears them). Answered: runs answered over
 * HTTP at once. Unanswered: questions of `TIMER_QUESTION_SECONDS` with a reminder after one second, left to
 * expire. Scheduler calls and invocations are the local Scheduler's counts; DynamoDB units those of every
 * request the handlers sent while the timers ran (after the questions were stored and posted).
 */
async function measureTimerCost(bench: BenchStack, sizes: CostSizes, memoryGb: Record<string, number>) {
  const scheduler = bench.stack.scheduler;
  const settle = async () => {
    await bench.stack.streamsDrained();
    await scheduler.idle();
    await bench.stack.streamsDrained();
  };
  const usage = (
    questions: number,
    before: Record<string, number>,
    requests: { write: number; read: number }[],
    timerMs: number,
  ): TimerUsage => {
    const after = scheduler.counts();
    const delta = (key: string) => ((after[key] ?? 0) - (before[key] ?? 0)) / questions;
    const createSchedule = delta("CreateSchedule");
    const deleteSchedule = delta("DeleteSchedule");
    const invocations = delta("invocations");
    const lambdaGbSeconds =
      ((memoryGb.questionTimer ?? 0.25) * invocations * timerMs +
        (memoryGb.questionEvents ?? 0.25) * (createSchedule + deleteSchedule) * ASSUMED_MS.schedulerCall) /
      1000;
    const writeUnits = requests.reduce((sum, r) => sum + r.write, 0) / questions;
    const readUnits = requests.reduce((sum, r) => sum + r.read, 0) / questions;
    const usd =
      invocations * (PRICE.schedulerInvocation + PRICE.lambdaRequest) +
      lambdaGbSeconds * PRICE.lambdaGbSecondArm +
      writeUnits * PRICE.writeUnit +
      readUnits * PRICE.readUnit;
    return {
      questions,
      createSchedule,
      deleteSchedule,
      invocations,
      writeUnits,
      readUnits,
      lambdaGbSeconds,
      usdPer1000: usd * 1000,
    };
  };

  bench.stack.setStreams(true);
  try {
    // Answered in time: the expiry timer is set when the question is stored and cleared when it is answered.
    // Nothing fires, so the timers add no DynamoDB request (the question's own are in the figure above).
    const answeredBefore = scheduler.counts();
    await quietly(async () => {
      const runs = await bench.startWaitingRuns(sizes.timerQuestions, {
        deliverTo: [{ channel: "console", chatId: "bench" }],
      });
      await settle();
      for (const run of runs) {
        await bench.answerOverHttp(run);
        await ended(bench, run);
      }
      await settle();
    });
    const answered = usage(sizes.timerQuestions, answeredBefore, [], ASSUMED_MS.timerExpire);

    // Nobody answers: the reminder fires after a second, the expiry at the deadline.
    const unansweredBefore = scheduler.counts();
    const ids = await quietly(async () => {
      const made: string[] = [];
      for (let i = 0; i < sizes.timerQuestions; i++) {
        made.push(
          await bench.askOverHttp({
            timeoutSeconds: TIMER_QUESTION_SECONDS,
            remindAfterSeconds: [1],
            deliverTo: [{ channel: "console", chatId: "bench" }],
          }),
        );
      }
      await bench.stack.streamsDrained();
      return made;
    });
    const waiting = () => scheduler.schedules().some((s) => ids.some((id) => s.name.startsWith(`${id}-`)));
    // Counted from here: the timer function's requests (the questions' own were made above).
    const { requests } = await bench.countUnits(() =>
      quietly(async () => {
        const deadline = Date.now() + (TIMER_QUESTION_SECONDS + 15) * 1000;
        while (waiting()) {
          if (Date.now() > deadline) throw new Error("the question timers did not fire");
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await settle();
      }),
    );
    // The timer function's time: an expiry (a read, a write) and a reminder (a claim, a chat call) each.
    const unanswered = usage(
      sizes.timerQuestions,
      unansweredBefore,
      requests,
      (ASSUMED_MS.timerExpire + ASSUMED_MS.timerRemind) / 2,
    );
    return { answered, unanswered };
  } finally {
    bench.stack.setStreams(false);
  }
}

/** How long the measured unanswered questions wait: long enough for their reminder after one second. */
const TIMER_QUESTION_SECONDS = 3;

export async function measureCost(bench: BenchStack, sizes: CostSizes): Promise<CostResult> {
  const memoryGb = memoryGbByFunction();
  let apiRequests = 0;
  const { result: runs, requests } = await bench.countUnits(() =>
    quietly(async () => {
      const runs: WaitingRun[] = await bench.startWaitingRuns(sizes.runs, {
        deliverTo: [{ channel: "console", chatId: "bench" }],
      });
      for (const run of runs) {
        await bench.answerOverHttp(run);
        apiRequests++;
        await ended(bench, run);
      }
      return runs;
    }),
  );

  let transitions = 0;
  const invocations: string[] = [];
  for (const run of runs) {
    const events: HistoryEvent[] = [];
    let nextToken: string | undefined;
    do {
      const page = await bench.sfn.send(
        new GetExecutionHistoryCommand({ executionArn: run.executionArn, maxResults: 1000, nextToken }),
      );
      events.push(...(page.events ?? []));
      nextToken = page.nextToken;
    } while (nextToken);
    transitions += events.filter((event) => event.type?.endsWith("StateEntered")).length;
    invocations.push(...lambdaInvocations(events));
  }
  // Each HTTP API request is one invocation of the function behind its route.
  for (let i = 0; i < apiRequests; i++) invocations.push("questionsApi");

  const n = runs.length;
  const lambdaByFunction: Record<string, number> = {};
  let gbSeconds = 0;
  for (const key of invocations) {
    lambdaByFunction[key] = (lambdaByFunction[key] ?? 0) + 1;
    const ms = ASSUMED_MS_BY_FUNCTION[key];
    const gb = memoryGb[key];
    if (ms === undefined || gb === undefined) throw new Error(`no memory or assumed duration for ${key}`);
    gbSeconds += (gb * ms) / 1000;
  }
  for (const key of Object.keys(lambdaByFunction)) lambdaByFunction[key] = (lambdaByFunction[key] ?? 0) / n;
  const byLabel = new Map<string, { label: string; count: number; write: number; read: number }>();
  for (const request of requests) {
    const row = byLabel.get(request.label) ?? { label: request.label, count: 0, write: 0, read: 0 };
    row.count += 1;
    row.write += request.write;
    row.read += request.read;
    byLabel.set(request.label, row);
  }
  const dynamodbRequests = [...byLabel.values()].map((row) => ({
    label: row.label,
    count: row.count / n,
    write: row.write / n,
    read: row.read / n,
  }));
  const perQuestion: Usage = {
    transitions: transitions / n,
    lambdaInvocations: invocations.length / n,
    lambdaGbSeconds: gbSeconds / n,
    writeUnits: requests.reduce((sum, r) => sum + r.write, 0) / n,
    readUnits: requests.reduce((sum, r) => sum + r.read, 0) / n,
    apiRequests: apiRequests / n,
  };

  const timers = await measureTimerCost(bench, sizes, memoryGb);

  // What a poll reads: the question item (strongly consistent; 1 unit per started 4 KB).
  const first = runs[0];
  if (!first) throw new Error("no runs");
  const item = await bench.dynamodb.send(
    new GetItemCommand({
      TableName: bench.stack.tableName,
      Key: { pk: { S: keys.question(first.questionId) } },
      ConsistentRead: true,
    }),
  );
  if (!item.Item) throw new Error("the question item is gone");
  const pollReadUnits = Math.max(1, Math.ceil(itemSize(item.Item) / 4096));
  const pollGb = memoryGb.ask ?? 0.25;
  const naiveUsage = (averageWaitSeconds: number): Usage => {
    const polls = Math.ceil(averageWaitSeconds / sizes.pollSeconds);
    return {
      transitions: perQuestion.transitions + polls * NAIVE_TRANSITIONS_PER_POLL,
      lambdaInvocations: perQuestion.lambdaInvocations + polls,
      lambdaGbSeconds: perQuestion.lambdaGbSeconds + (polls * pollGb * POLL_ASSUMED_MS) / 1000,
      writeUnits: perQuestion.writeUnits,
      readUnits: perQuestion.readUnits + polls * pollReadUnits,
      apiRequests: perQuestion.apiRequests,
    };
  };
  const usdPer1000 = total(usd(perQuestion)) * 1000;

  // The table. Units of one model step's transcript (RUN# items): the part of a question's DynamoDB units
  // that belongs to the agent's loop, not to the question.
  const transcript = dynamodbRequests
    .filter((r) => r.label.includes("RUN#"))
    .reduce((sum, r) => ({ write: sum.write + r.write, read: sum.read + r.read }), { write: 0, read: 0 });
  const modelSteps = lambdaByFunction.modelStep ?? 2;
  const gbs = (key: string, ms: number) => ((memoryGb[key] ?? 0.25) * ms) / 1000;
  const question: Usage = {
    transitions: 0,
    lambdaInvocations: 0,
    lambdaGbSeconds: 0,
    writeUnits: perQuestion.writeUnits - transcript.write,
    readUnits: perQuestion.readUnits - transcript.read,
    apiRequests: 0,
  };
  const plus = (...parts: Partial<Usage>[]): Usage =>
    parts.reduce<Usage>(
      (sum, part) => ({
        transitions: sum.transitions + (part.transitions ?? 0),
        lambdaInvocations: sum.lambdaInvocations + (part.lambdaInvocations ?? 0),
        lambdaGbSeconds: sum.lambdaGbSeconds + (part.lambdaGbSeconds ?? 0),
        writeUnits: sum.writeUnits + (part.writeUnits ?? 0),
        readUnits: sum.readUnits + (part.readUnits ?? 0),
        apiRequests: sum.apiRequests + (part.apiRequests ?? 0),
      }),
      {
        transitions: 0,
        lambdaInvocations: 0,
        lambdaGbSeconds: 0,
        writeUnits: 0,
        readUnits: 0,
        apiRequests: 0,
      },
    );
  const price = (usage: Usage, extra = 0) => total(usd(usage)) + extra;
  const polls = Math.ceil(sizes.averageWaitSeconds / sizes.pollSeconds);
  const longPolls = Math.ceil(sizes.averageWaitSeconds / LONG_POLL_SECONDS);
  // "With timers": what the measured timers cost a question nobody answers (its expiry and one reminder
  // fire), an upper bound for one answered in time (its expiry timer is set and cleared, nothing fires).
  const timerUsd = timers.unanswered.usdPer1000 / 1000;
  // One more question in the same run: AskUser → ModelStep → AskOrReply, and its ask, model step and answer.
  const extraSfn = plus(question, {
    transitions: 3,
    lambdaInvocations: 3,
    lambdaGbSeconds:
      gbs("modelStep", ASSUMED_MS.modelStep) +
      gbs("ask", ASSUMED_MS.ask) +
      gbs("questionsApi", ASSUMED_MS.answer),
    writeUnits: transcript.write / modelSteps,
    readUnits: transcript.read / modelSteps,
    apiRequests: 1,
  });
  const pollUsage = (count: number): Partial<Usage> => ({
    transitions: count * NAIVE_TRANSITIONS_PER_POLL,
    lambdaInvocations: count,
    lambdaGbSeconds: count * gbs("ask", POLL_ASSUMED_MS),
    readUnits: count * pollReadUnits,
  });
  const apiPolls = (count: number, billedSeconds: number): Partial<Usage> => ({
    lambdaInvocations: count,
    lambdaGbSeconds: count * gbs("questionsApi", billedSeconds * 1000),
    readUnits: count * pollReadUnits,
    apiRequests: count,
  });
  // A question asked and answered over the HTTP API by an agent that is not a state machine.
  const apiQuestion = plus(question, {
    lambdaInvocations: 2,
    lambdaGbSeconds: gbs("questionsApi", ASSUMED_MS.ask) + gbs("questionsApi", ASSUMED_MS.answer),
    apiRequests: 2,
  });
  const durableRun = plus(question, {
    lambdaInvocations: 3,
    lambdaGbSeconds:
      gbs("durableAgent", modelSteps * ASSUMED_MS.modelStep + ASSUMED_MS.ask) +
      gbs("questionsApi", ASSUMED_MS.answer),
    apiRequests: 1,
  });
  const durableExtra = plus(question, {
    lambdaInvocations: 2,
    lambdaGbSeconds:
      gbs("durableAgent", ASSUMED_MS.modelStep + ASSUMED_MS.ask) + gbs("questionsApi", ASSUMED_MS.answer),
    apiRequests: 1,
  });
  const row = (way: string, basis: string, run: number, extra: number): CostRow => ({
    way,
    basis,
    perRun: { usd: run, usdWithTimers: run + timerUsd },
    perAdditionalQuestion: { usd: extra, usdWithTimers: extra + timerUsd },
  });
  const wait = `${sizes.averageWaitSeconds / 60} min average wait`;
  const table: CostRow[] = [
    row(
      "Step Functions task token (the agent state machine)",
      "measured run; an additional question derived (+3 transitions, +3 Lambda, its units)",
      price(perQuestion),
      price(extraSfn),
    ),
    row(
      "Lambda durable function (the durable agent)",
      `${DURABLE_OPERATIONS_PER_RUN} durable operations a run, +${DURABLE_OPERATIONS_PER_EXTRA_QUESTION} a question (docs/outside.md), $8.00 per million (secondary source); the question's units as measured, no transcript items`,
      price(durableRun, DURABLE_OPERATIONS_PER_RUN * PRICE.durableOperation),
      price(durableExtra, DURABLE_OPERATIONS_PER_EXTRA_QUESTION * PRICE.durableOperation),
    ),
    row(
      `Polling in the state machine every ${sizes.pollSeconds} s (Wait → Lambda GetItem → Choice), ${wait}`,
      "measured run + polls",
      price(plus(perQuestion, pollUsage(polls))),
      price(plus(extraSfn, pollUsage(polls))),
    ),
    row(
      `Polling GET /questions/{id} every ${sizes.pollSeconds} s from outside, ${wait}`,
      `POST /questions + answer + ${polls} polls (API request, Lambda of ${POLL_ASSUMED_MS} ms, one read)`,
      price(plus(apiQuestion, apiPolls(polls, POLL_ASSUMED_MS / 1000))),
      price(plus(apiQuestion, apiPolls(polls, POLL_ASSUMED_MS / 1000))),
    ),
    row(
      `Long polling GET /questions/{id}/wait (${LONG_POLL_SECONDS} s each), ${wait}`,
      `POST /questions + answer + ${longPolls} waits, each a Lambda billed ${LONG_POLL_SECONDS} s`,
      price(plus(apiQuestion, apiPolls(longPolls, LONG_POLL_SECONDS))),
      price(plus(apiQuestion, apiPolls(longPolls, LONG_POLL_SECONDS))),
    ),
  ];
  const naive = naiveUsage(sizes.averageWaitSeconds);
  const naiveUsdPer1000 = total(usd(naive)) * 1000;
  return {
    runs: n,
    perQuestion,
    dynamodbRequests,
    lambdaByFunction,
    usdPer1000,
    breakdownUsdPer1000: Object.fromEntries(
      Object.entries(usd(perQuestion)).map(([k, v]) => [k, v * 1000]),
    ) as Record<keyof Usage, number>,
    naive: {
      averageWaitSeconds: sizes.averageWaitSeconds,
      pollSeconds: sizes.pollSeconds,
      polls: Math.ceil(sizes.averageWaitSeconds / sizes.pollSeconds),
      pollAssumedMs: POLL_ASSUMED_MS,
      pollReadUnits,
      perQuestion: naive,
      usdPer1000: naiveUsdPer1000,
      ratio: naiveUsdPer1000 / usdPer1000,
    },
    table,
    closeDropsToken: await closeDropsToken(bench, first),
    ratioByWait: [60, 300, 900, 3600].map((averageWaitSeconds) => ({
      averageWaitSeconds,
      ratio: (total(usd(naiveUsage(averageWaitSeconds))) * 1000) / usdPer1000,
    })),
    timers: {
      ...timers,
      answeredUsdPer1000: usdPer1000 + timers.answered.usdPer1000,
      addedUsdPer1000: { answered: timers.answered.usdPer1000, unanswered: timers.unanswered.usdPer1000 },
    },
  };
}

/** The closed question holds no task token: the closing write removed it (the stream reads the old image). */
async function closeDropsToken(bench: BenchStack, run: WaitingRun): Promise<boolean> {
  const out = await bench.dynamodb.send(
    new GetItemCommand({
      TableName: bench.stack.tableName,
      Key: { pk: { S: keys.question(run.questionId) } },
      ConsistentRead: true,
    }),
  );
  return out.Item?.status?.S === "answered" && out.Item.taskToken === undefined;
}
