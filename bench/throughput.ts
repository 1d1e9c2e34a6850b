/**
 * 2. Throughput: answers per second over the HTTP API with 1 and with 20 answers in flight, on real waiting
 * runs. Rounds alternate between the two so drift of the machine hits both; each mode's figure is all its
 * answers over all its time. The resumed runs go on (their next model step) in this same process while
 * later answers are sent, as they would on a local stack under load.
 */
import type { BenchStack } from "./lib/bench-stack.ts";
import { ended } from "./lib/paired.ts";

export interface ThroughputSizes {
  rounds: number;
  /** Answers per round with one in flight. */
  serialAnswers: number;
  /** Answers per round with `concurrency` in flight. */
  concurrentAnswers: number;
  concurrency: number;
}

export interface ThroughputResult {
  concurrency: number;
  serial: { answers: number; seconds: number; perSecond: number };
  concurrent: { answers: number; seconds: number; perSecond: number };
  /** concurrent / serial answers per second. */
  ratio: number;
}

async function answerAll(bench: BenchStack, count: number, inFlight: number): Promise<number> {
  const runs = await bench.startWaitingRuns(count);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(inFlight, count) }, async () => {
      for (let run = runs[next++]; run; run = runs[next++]) await bench.answerOverHttp(run);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  // Not timed: let every resumed run finish before the next round.
  await Promise.all(runs.map((run) => ended(bench, run)));
  return seconds;
}

export async function measureThroughput(
  bench: BenchStack,
  sizes: ThroughputSizes,
): Promise<ThroughputResult> {
  const serial = { answers: 0, seconds: 0, perSecond: 0 };
  const concurrent = { answers: 0, seconds: 0, perSecond: 0 };
  for (let round = 0; round < sizes.rounds; round++) {
    // Alternate which mode goes first in each round.
    const modes = round % 2 === 0 ? (["serial", "concurrent"] as const) : (["concurrent", "serial"] as const);
    for (const mode of modes) {
      const count = mode === "serial" ? sizes.serialAnswers : sizes.concurrentAnswers;
      const seconds = await answerAll(bench, count, mode === "serial" ? 1 : sizes.concurrency);
      const total = mode === "serial" ? serial : concurrent;
      total.answers += count;
      total.seconds += seconds;
    }
  }
  serial.perSecond = serial.answers / serial.seconds;
  concurrent.perSecond = concurrent.answers / concurrent.seconds;
  return {
    concurrency: sizes.concurrency,
    serial,
    concurrent,
    ratio: concurrent.perSecond / serial.perSecond,
  };
}
