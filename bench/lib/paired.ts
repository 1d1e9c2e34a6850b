import type { BaselineTiming, BenchStack, WaitingRun } from "./bench-stack.ts";

export interface PairedSamples {
  /** Milliseconds of the full answer path (HTTP API), one per subject run. */
  subject: number[];
  baseline: BaselineTiming[];
}

/**
 * Answers `runs` (an even number) in pairs, one over the HTTP API and one with the bare-minimum baseline,
 * alternating which goes first so that drift of this shared, noisy machine hits both alike. Each answer waits
 * for its run to finish before the next one starts, so the resumed run's own work (the next model step, in
 * this same process) never lands inside another sample.
 */
export async function samplePairs(bench: BenchStack, runs: readonly WaitingRun[]): Promise<PairedSamples> {
  if (runs.length % 2 !== 0) throw new Error("samplePairs needs an even number of runs");
  const samples: PairedSamples = { subject: [], baseline: [] };
  const subject = async (run: WaitingRun) => {
    samples.subject.push(await bench.answerOverHttp(run));
    await ended(bench, run);
  };
  const baseline = async (run: WaitingRun) => {
    samples.baseline.push(await bench.answerBaseline(run));
    await ended(bench, run);
  };
  for (let i = 0; i < runs.length; i += 2) {
    const [first, second] = [runs[i], runs[i + 1]];
    if (!first || !second) break;
    if ((i / 2) % 2 === 0) {
      await subject(first);
      await baseline(second);
    } else {
      await baseline(first);
      await subject(second);
    }
  }
  return samples;
}

export async function ended(bench: BenchStack, run: WaitingRun): Promise<void> {
  const status = await bench.runEnded(run);
  if (status !== "SUCCEEDED") throw new Error(`run ${run.executionArn} ended ${status}`);
}
