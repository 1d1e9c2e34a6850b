/**
 * 1. Answer-to-resume overhead: the full answer path over HTTP (gateway event, API key check, JSON and zod
 * parsing, route, GetItem, answer validation, conditional UpdateItem, SendTaskSuccess, response) against the bare minimum that resumes the same kind of waiting run: one
 * conditional UpdateItem plus one SendTaskSuccess sent directly with the SDK.
 */
import type { BenchStack } from "./lib/bench-stack.ts";
import { type PairedSamples, samplePairs } from "./lib/paired.ts";
import { median, type Summary, summarize } from "./lib/stats.ts";

export const OVERHEAD_TARGET = 1.5;

export interface OverheadSizes {
  pairs: number;
}

export interface OverheadResult {
  pairs: number;
  subject: Summary;
  baseline: Summary;
  ratioMedian: number;
  ratioP99: number;
  target: number;
  met: boolean;
  /** Where the answer path's median goes (medians of each part; the parts' sum is approximate). */
  breakdown: { part: string; medianMs: number }[];
  /**
   * The least this design can reach over the baseline with zero parsing cost: (the HTTP round trip + the
   * pre-read the answer needs + the baseline) / the baseline, from the medians above.
   */
  floorRatio: number;
  /** Every sample, milliseconds, in the order taken. */
  samples: { subject: number[]; baseline: number[]; httpFloor: number[] };
}

/** Pairs between two samples of the HTTP floor. */
const FLOOR_EVERY = 10;

/** The answer path's own DynamoDB requests (the resumed run's transcript requests are left out). */
const ANSWER_PATH_REQUESTS = ["GetItem Q#", "UpdateItem Q#", "DeleteItem SESSION#"];

export async function measureAnswerOverhead(
  bench: BenchStack,
  sizes: OverheadSizes,
): Promise<OverheadResult> {
  const runs = await bench.startWaitingRuns(sizes.pairs * 2);
  const floor: number[] = [];
  const { result: samples, requests } = await bench.timeRequests(async () => {
    const all: PairedSamples = { subject: [], baseline: [] };
    // In chunks, with the HTTP floor sampled between them, so all three see the same drift.
    for (let i = 0; i < runs.length; i += FLOOR_EVERY * 2) {
      const chunk = await samplePairs(bench, runs.slice(i, i + FLOOR_EVERY * 2));
      all.subject.push(...chunk.subject);
      all.baseline.push(...chunk.baseline);
      for (let j = 0; j < chunk.subject.length; j++) floor.push(await bench.unauthorizedRoundTrip());
    }
    return all;
  });
  const subject = summarize(samples.subject);
  const baseline = summarize(samples.baseline.map((b) => b.ms));

  const requestMedian = (label: string) => {
    const times = requests.filter((r) => r.label === label).map((r) => r.ms);
    return times.length > 0 ? median(times) : 0;
  };
  const parts = [
    { part: "HTTP round trip to the handler (a 401 before any work)", medianMs: median(floor) },
    ...ANSWER_PATH_REQUESTS.map((label) => ({
      part: `${label} (in the handler)`,
      medianMs: requestMedian(label),
    })),
    {
      part: "SendTaskSuccess (as timed in the baseline)",
      medianMs: median(samples.baseline.map((b) => b.sendTaskSuccessMs)),
    },
  ];
  const accounted = parts.reduce((sum, p) => sum + p.medianMs, 0);
  parts.push({
    part: "the rest: body and zod parsing, answer validation, response, event-loop sharing",
    medianMs: Math.max(0, subject.median - accounted),
  });
  parts.push({
    part: "(baseline's UpdateItem, for comparison)",
    medianMs: median(samples.baseline.map((b) => b.updateItemMs)),
  });

  const ratioMedian = subject.median / baseline.median;
  const floorRatio = (median(floor) + requestMedian("GetItem Q#") + baseline.median) / baseline.median;
  return {
    floorRatio,
    samples: { subject: samples.subject, baseline: samples.baseline.map((b) => b.ms), httpFloor: floor },
    pairs: sizes.pairs,
    subject,
    baseline,
    ratioMedian,
    ratioP99: subject.p99 / baseline.p99,
    target: OVERHEAD_TARGET,
    met: ratioMedian <= OVERHEAD_TARGET,
    breakdown: parts,
  };
}
