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
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GetItemCommand } from "@aws-sdk/client-dynamodb";
import { GetExecutionHistoryCommand, type HistoryEvent } from "@aws-sdk/client-sfn";
import { parse } from "yaml";
import { PROJECT_ROOT } from "#infra/local/stack.ts";
import { keys } from "#lib/store/keys.ts";
import { ASSUMED_MS, PRICE } from "../scripts/lib/aws-prices.ts";
import { itemSize } from "../scripts/lib/dynamodb-units.ts";
import type { BenchStack, WaitingRun } from "./lib/bench-stack.ts";
import { ended } from "./lib/paired.ts";

export interface CostSizes {
  runs: number;
  /** The average time a person takes to answer, which the naive alternative spends polling. */
  averageWaitSeconds: number;
  pollSeconds: number;
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
}

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
    functions?: Record<string, { memorySize?: number }>;
  };
  const fallback = doc.provider?.memorySize ?? 1024;
  return Object.fromEntries(
    Object.entries(doc.functions ?? {}).map(([key, fn]) => [key, (fn.memorySize ?? fallback) / 1024]),
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
    ratioByWait: [60, 300, 900, 3600].map((averageWaitSeconds) => ({
      averageWaitSeconds,
      ratio: (total(usd(naiveUsage(averageWaitSeconds))) * 1000) / usdPer1000,
    })),
  };
}
