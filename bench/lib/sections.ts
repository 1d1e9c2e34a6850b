/**
 * The benchmark's sections, and how a run of only some of them (`npm run bench -- --only scale`, bench/run.ts)
 * completes an earlier run's results: the sections it measured replace theirs, every other one is kept.
 */
import type { BenchResults } from "../bench.ts";

/**
 * The sections of the table, by the names `--only` takes, each with the parts of the results (and of the
 * sizes, where they have one) it measures. `cold-start` is rows 4 and 6: the model clients are measured in
 * the cold-start rounds.
 */
export const SECTIONS = {
  answer: ["overhead", "answerPaths"],
  throughput: ["throughput"],
  scale: ["scale"],
  "cold-start": ["coldStart", "modelClients"],
  cost: ["cost"],
} as const satisfies Record<string, readonly (keyof BenchResults)[]>;
export type Section = keyof typeof SECTIONS;
export const SECTION_NAMES = Object.keys(SECTIONS) as Section[];

/** What the sections measure, part by part. */
export type SectionResults = Pick<BenchResults, (typeof SECTIONS)[Section][number]>;
/** What describes a run rather than measures. */
export type RunInfo = Omit<BenchResults, keyof SectionResults | "measuredAt">;

/**
 * Refuses, before anything is measured, earlier results that a run of some sections cannot complete: a
 * smoke run's figures beside a full run's, or another machine's, would make one table of two different runs.
 */
export function checkEarlierResults(previous: BenchResults, run: Pick<RunInfo, "mode" | "machine">): void {
  if (previous.mode !== run.mode) {
    throw new Error(`the earlier results are of a ${previous.mode} run, not a ${run.mode} one`);
  }
  const fields = Object.keys(run.machine) as (keyof RunInfo["machine"])[];
  if (fields.some((field) => previous.machine[field] !== run.machine[field])) {
    throw new Error(`the earlier results are from another machine (${JSON.stringify(previous.machine)})`);
  }
}

/**
 * A run's results: the parts it measured, and — when it measured `only` some sections — every other part,
 * with its sizes, as `previous` had it. A run of some sections keeps the earlier run's date and length
 * (the summary line reports them) and dates the sections it measured in `measuredAt`.
 */
export function completeResults(
  run: RunInfo,
  measured: Partial<SectionResults>,
  only: readonly Section[] = SECTION_NAMES,
  earlier?: BenchResults,
): BenchResults {
  // A run of every section is a whole run of its own: nothing of an earlier one is kept.
  const previous = SECTION_NAMES.every((section) => only.includes(section)) ? undefined : earlier;
  const parts: Partial<SectionResults> = { ...(previous && pickParts(previous)), ...measured };
  const missing = SECTION_NAMES.flatMap((section) => SECTIONS[section]).filter((part) => !parts[part]);
  if (missing.length > 0) throw new Error(`no results for ${missing.join(", ")}`);
  const measuredSizes = Object.fromEntries(
    only.flatMap((section) =>
      SECTIONS[section].flatMap((part) =>
        part in run.sizes ? [[part, run.sizes[part as keyof RunInfo["sizes"]]]] : [],
      ),
    ),
  );
  return {
    ...run,
    startedAt: previous?.startedAt ?? run.startedAt,
    seconds: previous?.seconds ?? run.seconds,
    measuredAt: Object.fromEntries(
      SECTION_NAMES.map((section) => [
        section,
        only.includes(section)
          ? run.startedAt
          : (previous?.measuredAt?.[section] ?? previous?.startedAt ?? run.startedAt),
      ]),
    ) as Record<Section, string>,
    sizes: previous ? { ...previous.sizes, warmupPairs: run.sizes.warmupPairs, ...measuredSizes } : run.sizes,
    ...(parts as SectionResults),
  };
}

function pickParts(results: BenchResults): SectionResults {
  const { overhead, answerPaths, throughput, scale, coldStart, modelClients, cost } = results;
  return { overhead, answerPaths, throughput, scale, coldStart, modelClients, cost };
}
