/**
 * The benchmarks of `npm run bench`, run against the real local stack in this process (cold start in fresh
 * processes). `runBench({ smoke: true })` runs every measurement on a tiny size (test/bench).
 */

import { readdirSync, rmdirSync, rmSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import { PROJECT_ROOT } from "#infra/local/stack.ts";
import { measureAnswerOverhead, type OverheadResult, type OverheadSizes } from "./answer-overhead.ts";
import {
  type AnswerPathsResult,
  type AnswerPathsSizes,
  chatEnv,
  measureAnswerPaths,
} from "./answer-paths.ts";
import { type ColdStartResult, type ColdStartSizes, measureColdStart } from "./cold-start.ts";
import { type CostResult, type CostSizes, measureCost } from "./cost.ts";
import { startBenchStack } from "./lib/bench-stack.ts";
import { startFakeChat } from "./lib/fake-chat.ts";
import { samplePairs } from "./lib/paired.ts";
import { secondsSince } from "./lib/progress.ts";
import {
  checkEarlierResults,
  completeResults,
  SECTION_NAMES,
  type Section,
  type SectionResults,
} from "./lib/sections.ts";
import { MODEL_CLIENT_VARIANTS, type ModelClientsResult, modelClients } from "./model-clients.ts";
import { measureScale, type ScaleResult, type ScaleSizes } from "./scale.ts";
import { measureThroughput, type ThroughputResult, type ThroughputSizes } from "./throughput.ts";

export interface BenchSizes {
  warmupPairs: number;
  overhead: OverheadSizes;
  answerPaths: AnswerPathsSizes;
  throughput: ThroughputSizes;
  scale: ScaleSizes;
  coldStart: ColdStartSizes;
  cost: CostSizes;
}

/**
 * The largest scale level: 10,000 pending by default. `BENCH_SCALE_PENDING=100000` adds a 100,000 level
 * (docs/benchmarks.md: on 2 cores its filler alone takes minutes to write and remove, so the levels are then
 * visited up and down once instead of four times, and `--only scale` measures it without the other sections).
 */
const scalePending = Number(process.env.BENCH_SCALE_PENDING ?? 10_000);
if (!Number.isInteger(scalePending) || scalePending < 10_000) {
  throw new Error("BENCH_SCALE_PENDING must be a whole number of at least 10000");
}
const scaleLevels = [10, 1_000, 10_000, ...(scalePending > 10_000 ? [scalePending] : [])];

export const FULL: BenchSizes = {
  warmupPairs: 50,
  overhead: { pairs: 200 },
  answerPaths: { countSamples: 5, tapPairs: 100 },
  throughput: { rounds: 3, serialAnswers: 100, concurrentAnswers: 200, concurrency: 20 },
  scale: { levels: scaleLevels, pairsPerLevel: 96, cycles: scalePending > 10_000 ? 1 : 4, batch: 4 },
  // Two builds of every function (AWS SDK external and bundled): ten rounds keep the step near two minutes.
  coldStart: { warmupRounds: 1, rounds: 10 },
  cost: { runs: 20, averageWaitSeconds: 300, pollSeconds: 10, timerQuestions: 20 },
};

export const SMOKE: BenchSizes = {
  warmupPairs: 1,
  overhead: { pairs: 3 },
  answerPaths: { countSamples: 1, tapPairs: 2 },
  throughput: { rounds: 1, serialAnswers: 3, concurrentAnswers: 20, concurrency: 20 },
  scale: { levels: [10, 20, 40], pairsPerLevel: 2, cycles: 1, batch: 2 },
  // The functions the smoke test names, the references and the model-client variant, one round: every
  // function of serverless.yml in both builds would be most of the smoke run (two builds of sixteen
  // bundles, and a fresh process for each), and test/template/bundles.test.ts already loads every packaged
  // bundle. modelStep's import budget (bench/model-clients.ts) is then judged against questionsApi and ask.
  coldStart: { warmupRounds: 0, rounds: 1, functions: ["questionsApi", "ask", "modelStep"] },
  cost: { runs: 2, averageWaitSeconds: 300, pollSeconds: 10, timerQuestions: 2 },
};

export interface BenchResults {
  mode: "full" | "smoke";
  startedAt: string;
  seconds: number;
  machine: { node: string; platform: string; cpus: number; cpuModel: string };
  /**
   * When the run that measured each section started: `startedAt` for every section, unless `--only`
   * measured some again into these results (absent from results written before sections could be).
   */
  measuredAt?: Record<Section, string>;
  sizes: BenchSizes;
  overhead: OverheadResult;
  answerPaths: AnswerPathsResult;
  throughput: ThroughputResult;
  scale: ScaleResult;
  coldStart: ColdStartResult;
  cost: CostResult;
  modelClients: ModelClientsResult;
}

export async function runBench(
  options: {
    smoke?: boolean;
    /**
     * Measures only these sections and takes every other one from `previous` (an earlier run's results, of
     * the same mode on the same machine), so one section can be measured again, or at a size that would make
     * the whole run too long (the 100,000-pending scale level), without losing the others' figures.
     */
    only?: readonly Section[];
    previous?: BenchResults;
    log?: (line: string) => void;
  } = {},
): Promise<BenchResults> {
  const mode = options.smoke ? "smoke" : "full";
  const sizes = options.smoke ? SMOKE : FULL;
  const log = options.log ?? (() => undefined);
  const { only = SECTION_NAMES, previous } = options;
  const measures = (section: Section) => only.includes(section);
  const machine = thisMachine();
  if (options.only && !previous)
    throw new Error("measuring only some sections needs an earlier run's results");
  if (previous) checkEarlierResults(previous, { mode, machine });
  const startedAt = new Date();
  const started = performance.now();
  const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const at = performance.now();
    log(`${name}…`);
    const result = await work();
    log(`${name}: ${secondsSince(at)} s`);
    return result;
  };

  const measured: Partial<SectionResults> = {};
  if (SECTION_NAMES.some((section) => section !== "cold-start" && measures(section))) {
    const chat = await startFakeChat();
    const bench = await step("local stack", () => startBenchStack({ env: chatEnv(chat) }));
    try {
      await step("warm-up", async () =>
        samplePairs(bench, await bench.startWaitingRuns(sizes.warmupPairs * 2)),
      );
      // Scale first, on an otherwise empty table; its filler questions are removed when it ends.
      if (measures("scale")) {
        measured.scale = await step("scale", () => measureScale(bench, sizes.scale, log));
      }
      if (measures("answer")) {
        measured.overhead = await step("answer overhead", () => measureAnswerOverhead(bench, sizes.overhead));
        measured.answerPaths = await step("answer paths", () =>
          measureAnswerPaths(bench, sizes.answerPaths, chat),
        );
      }
      if (measures("throughput")) {
        measured.throughput = await step("throughput", () => measureThroughput(bench, sizes.throughput));
      }
      if (measures("cost")) measured.cost = await step("cost", () => measureCost(bench, sizes.cost));
    } finally {
      await bench.stop();
      await chat.stop();
    }
  }
  if (measures("cold-start")) {
    // Not .esbuild/: serverless-esbuild clears that folder whenever anything packages. Under node_modules,
    // `@aws-sdk/*` resolves from the project's node_modules, as the bundles expect.
    const bundles = join(PROJECT_ROOT, "node_modules", ".cache", "handraise-bench", `${mode}-${process.pid}`);
    try {
      measured.coldStart = await step("cold start", () =>
        measureColdStart(sizes.coldStart, bundles, MODEL_CLIENT_VARIANTS, log),
      );
      measured.modelClients = modelClients(measured.coldStart);
    } finally {
      rmSync(bundles, { recursive: true, force: true });
      // The parent too, unless another run (the smoke test, say) is using it.
      rmdirIfEmpty(dirname(bundles));
    }
  }

  const run = {
    mode,
    startedAt: startedAt.toISOString(),
    seconds: (performance.now() - started) / 1000,
    machine,
    sizes,
  } as const;
  return completeResults(run, measured, only, previous);
}

function thisMachine(): BenchResults["machine"] {
  const cpu = cpus();
  return {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: cpu.length,
    cpuModel: cpu[0]?.model ?? "unknown",
  };
}

function rmdirIfEmpty(dir: string): void {
  try {
    if (readdirSync(dir).length === 0) rmdirSync(dir);
  } catch {
    // Gone already, or another run is filling it: either way nothing to clean.
  }
}
