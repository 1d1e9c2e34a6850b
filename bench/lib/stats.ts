/** Order statistics of timing samples (milliseconds). */

export interface Summary {
  n: number;
  median: number;
  p99: number;
  min: number;
  max: number;
}

/** The q-quantile by linear interpolation between closest ranks (q = 0.5: the median). */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) throw new Error("no samples");
  const sorted = [...samples].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const low = sorted[lower] ?? Number.NaN;
  const high = sorted[upper] ?? Number.NaN;
  return low + (high - low) * (position - lower);
}

export const median = (samples: readonly number[]) => quantile(samples, 0.5);

export function summarize(samples: readonly number[]): Summary {
  return {
    n: samples.length,
    median: median(samples),
    p99: quantile(samples, 0.99),
    min: Math.min(...samples),
    max: Math.max(...samples),
  };
}
