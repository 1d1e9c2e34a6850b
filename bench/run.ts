/**
 * `npm run bench`: runs the benchmarks against the local stack, prints the table and writes
 * bench/results/latest.json. `npm run bench -- --smoke` (or BENCH_SMOKE=1) runs every measurement on a
 * tiny size and writes bench/results/smoke.json instead.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runBench } from "./bench.ts";
import { renderDetails, renderTable } from "./report.ts";

const smoke = process.argv.includes("--smoke") || process.env.BENCH_SMOKE === "1";
const results = await runBench({ smoke, log: (line) => process.stderr.write(`[bench] ${line}\n`) });
const dir = fileURLToPath(new URL("./results/", import.meta.url));
mkdirSync(dir, { recursive: true });
const file = join(dir, smoke ? "smoke.json" : "latest.json");
writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`\n${renderTable(results)}\n\n${renderDetails(results)}\n\nWritten: ${file}\n`);
