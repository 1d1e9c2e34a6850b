/**
 * Lifecycle guarantee 8, load: 2,000 waiting agent runs across 200 owners, answered over the HTTP API with
 * 50 requests in flight → every run resumed exactly once with its own answer, no record left pending.
 * HANDRAISE_LOAD_QUESTIONS scales it down for a quick local run (default 2,000).
 */
import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  ListExecutionsCommand,
  StartExecutionCommand,
} from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStack, type TestStack, waitFor } from "./support/test-stack.ts";

const QUESTIONS = Number(process.env.HANDRAISE_LOAD_QUESTIONS ?? 2000);
const OWNERS = Math.min(200, QUESTIONS);
/**
 * How long one wait of the test may take. What it checks is correctness under load — every run resumed
 * once with its own answer — not speed (the timings are printed): on a machine busy with other work, 2,000
 * runs take several times as long as on an idle one, so the waits are bounded by the test's own timeout only.
 */
const LOAD_WAIT_MS = 480_000;
const IN_FLIGHT = 50;
/** Runs started before waiting for them to ask: one per owner. */
const WAVE = OWNERS;
const RUN = `load-${Date.now()}`;

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

/** Runs `work` over `items` with at most `limit` in flight. */
async function pool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index] as T);
      }
    }),
  );
  return results;
}

const ownerOf = (i: number) => `web:${RUN}-owner-${i % OWNERS}`;
const sessionOf = (i: number) => `${RUN}-session-${i}`;

function input(i: number) {
  return {
    sessionKey: sessionOf(i),
    owner: ownerOf(i),
    deliverTo: [],
    prompt: "load",
    model: {
      provider: "scripted",
      steps: [
        {
          toolCalls: [
            {
              id: "call_1",
              name: "ask_user",
              arguments: {
                questions: [
                  {
                    id: "pick",
                    header: "Pick",
                    question: `Question ${i}?`,
                    options: [{ label: "Yes" }, { label: "No" }],
                  },
                ],
                timeoutSeconds: 3600,
              },
            },
          ],
        },
        { reply: "{{call_1.status}}:{{call_1.pick}}" },
      ],
    },
  };
}

describe("load", () => {
  it(`${QUESTIONS} pending questions across ${OWNERS} owners, answered with ${IN_FLIGHT} in flight → every run resumed exactly once with its own answer`, async () => {
    const indexes = Array.from({ length: QUESTIONS }, (_, i) => i);
    const owners = Array.from({ length: OWNERS }, (_, o) => ownerOf(o));
    const start = async (i: number) => {
      const { executionArn } = await stack.sfn.send(
        new StartExecutionCommand({
          stateMachineArn: stack.stateMachineArns.agent,
          name: `${RUN}-${i}`,
          input: JSON.stringify(input(i)),
        }),
      );
      return executionArn as string;
    };
    /** How many of `runs` have asked: their question is stored, which the table's stream announces. */
    const askedOf = (runs: ReadonlySet<string>) =>
      stack.events.filter(
        (event) => event["detail-type"] === "Question Requested" && runs.has(event.detail.runId as string),
      ).length;
    /** Each owner's pending questions, over the HTTP API, once every run below `upTo` waits on its question. */
    const pendingOf = async (upTo: number) =>
      (
        await pool(owners, IN_FLIGHT, (owner) =>
          waitFor(
            async () => {
              const response = await stack.api("GET", `/questions?owner=${encodeURIComponent(owner)}`);
              const list = response.body.questions as { id: string; sessionKey: string; runId: string }[];
              return list.length === expectedFor(owner, upTo) ? list : undefined;
            },
            { timeoutMs: LOAD_WAIT_MS, intervalMs: 250, what: `${owner}'s questions to be pending` },
          ),
        )
      ).flat();

    // Runs start in waves, each asked before the next starts, so that all of them end up waiting at once
    // without all of them asking at once: on AWS the model step's reserved concurrency spreads a burst of
    // starts out as well, while the local stack runs every invocation in this one process, where 2,000
    // model steps at the same moment can outlast their 60 s task timeout on a busy machine. A wave has asked
    // once the bus carries its questions' `Question Requested` events, which costs nothing to look at; the
    // question API lists them once every wave has asked (polling 200 owners' listings every 250 ms while the
    // runs asked made thousands of listings, each a handler call and a DynamoDB query).
    const t0 = performance.now();
    const arns: string[] = [];
    for (let first = 0; first < QUESTIONS; first += WAVE) {
      const started = await pool(indexes.slice(first, first + WAVE), IN_FLIGHT, start);
      arns.push(...started);
      const wave = new Set(started);
      await waitFor(async () => (askedOf(wave) === started.length ? true : undefined), {
        timeoutMs: LOAD_WAIT_MS,
        intervalMs: 250,
        what: `runs ${first}… to ask`,
      });
    }
    const pending = await pendingOf(arns.length);
    expect(pending).toHaveLength(QUESTIONS);
    const asked = performance.now();

    // Each run gets its own answer (free text naming its index), 50 requests in flight.
    const statuses = await pool(pending, IN_FLIGHT, async (question) => {
      const i = Number(question.sessionKey.split("-").at(-1));
      expect(question.runId).toBe(arns[i]);
      const response = await stack.api("POST", `/questions/${question.id}/answer`, {
        answers: { pick: [`answer-${i}`] },
      });
      return response.status;
    });
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const answered = performance.now();

    // Every run has ended once none of the state machine's executions is running (this stack ran no other);
    // then each run is described once. Polling 2,000 runs one by one would cost more than waiting on one list.
    await waitFor(
      async () => {
        const running = await stack.sfn.send(
          new ListExecutionsCommand({
            stateMachineArn: stack.stateMachineArns.agent,
            statusFilter: "RUNNING",
            maxResults: 1,
          }),
        );
        return running.executions?.length === 0 ? true : undefined;
      },
      { timeoutMs: LOAD_WAIT_MS, intervalMs: 250, what: "every run to end" },
    );
    const outputs = await pool(indexes, IN_FLIGHT, (i) =>
      stack.sfn.send(new DescribeExecutionCommand({ executionArn: arns[i] as string })),
    );
    const ended = performance.now();
    outputs.forEach((execution, i) => {
      expect(execution.status).toBe("SUCCEEDED");
      expect(JSON.parse(execution.output ?? "{}")).toEqual({ reply: `answered:answer-${i}` });
    });

    // Resumed exactly once: a sample of histories has one AskUser task that succeeded, and no failure.
    const sample = indexes.filter((i) => i % Math.max(1, Math.floor(QUESTIONS / 25)) === 0);
    for (const i of sample) {
      const history = await stack.sfn.send(
        new GetExecutionHistoryCommand({ executionArn: arns[i] as string, maxResults: 1000 }),
      );
      const types = (history.events ?? []).map((e) => e.type);
      expect(types.filter((t) => t === "TaskSucceeded")).toHaveLength(1);
      expect(types.filter((t) => t === "TaskFailed" || t === "TaskTimedOut")).toHaveLength(0);
    }

    // Nothing left pending, for any owner.
    const left = await pool(owners, IN_FLIGHT, async (owner) => {
      const response = await stack.api("GET", `/questions?owner=${encodeURIComponent(owner)}`);
      return response.body.questions.length as number;
    });
    expect(left.reduce((a, b) => a + b, 0)).toBe(0);

    const seconds = (ms: number) => (ms / 1000).toFixed(1);
    console.info(
      `load ${QUESTIONS}: all pending ${seconds(asked - t0)} s (waves of ${WAVE}), ` +
        `answered ${seconds(answered - asked)} s, all ended ${seconds(ended - t0)} s`,
    );
  }, 600_000);
});

/** How many of the runs below `upTo` ask `owner`. */
function expectedFor(owner: string, upTo: number): number {
  const o = Number(owner.split("-").at(-1));
  return Array.from({ length: upTo }, (_, i) => i).filter((i) => i % OWNERS === o).length;
}
