/**
 * `npm run bench`: runs the benchmarks against the local stack, prints the table and writes
 * bench/results/latest.json. `npm run bench -- --smoke` (or BENCH_SMOKE=1) runs every measurement on a
 * tiny size and writes bench/results/smoke.json instead.
 *
 * `--only scale,cost` (or BENCH_ONLY=scale,cost) measures only those sections (bench/lib/sections.ts) and
 * writes them into the results file over the earlier run's, keeping every other section's figures.
 * `--results <file>` reads and writes another results file than bench/results/latest.json (or smoke.json).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type BenchResults, runBench } from "./bench.ts";
import { SECTION_NAMES, type Section } from "./lib/sections.ts";
import { renderDetails, renderTable } from "./report.ts";

const { values: args } = parseArgs({
  options: { smoke: { type: "boolean" }, only: { type: "string" }, results: { type: "string" } },
});
const smoke = args.smoke === true || process.env.BENCH_SMOKE === "1";
const onlyList = args.only ?? process.env.BENCH_ONLY;
const only = onlyList?.split(",").map((name) => name.trim());
const unknown = only?.filter((name) => !(SECTION_NAMES as string[]).includes(name)) ?? [];
if (unknown.length > 0 || only?.length === 0) {
  throw new Error(`--only takes sections among ${SECTION_NAMES.join(", ")} (got ${onlyList})`);
}
const file = resolve(
  args.results ??
    process.env.BENCH_RESULTS ??
    fileURLToPath(new URL(`./results/${smoke ? "smoke" : "latest"}.json`, import.meta.url)),
);
/** The results `--only` completes: the ones already in the file. */
function earlierResults(): BenchResults {
  if (!existsSync(file)) {
    throw new Error(
      `--only completes an earlier run's results, and ${file} has none: run every section first`,
    );
  }
  return JSON.parse(readFileSync(file, "utf8")) as BenchResults;
}

const results = await runBench({
  smoke,
  ...(only && { only: only as Section[], previous: earlierResults() }),
  log: (line) => process.stderr.write(`[bench] ${line}\n`),
});
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`\n${renderTable(results)}\n\n${renderDetails(results)}\n\nWritten: ${file}\n`);
