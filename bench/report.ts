/** The benchmark results as the Markdown table docs/benchmarks.md shows, and the details under it. */
import type { BenchResults } from "./bench.ts";
import type { ColdStartBundle } from "./cold-start.ts";
import type { ModelClientOption } from "./model-clients.ts";

const ms = (value: number) => `${value.toFixed(2)} ms`;
const x = (value: number) => `${value.toFixed(2)}×`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(bytes < 10_240 ? 1 : 0)} KB`;
const dollars = (value: number) => `$${value.toFixed(4)}`;
const count = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(2));
const met = (ok: boolean) => (ok ? "**met**" : "**not met**");
const thousands = (value: number) => value.toLocaleString("en-US");

type Row = [measurement: string, result: string, baseline: string, ratio: string, target: string];

export function renderTable(results: BenchResults): string {
  const { overhead, answerPaths, throughput, scale, coldStart, cost, modelClients } = results;
  const { budget, shipped, officialSdks } = modelClients;
  const modelTarget = (option: ModelClientOption) =>
    `≤ ${kb(budget.bytes)}, ≤ ${budget.importCpuRatio}× ${met(option.withinBytes && option.withinImport)}`;
  const rows: Row[] = [
    [
      "1. Answer → resume, median",
      ms(overhead.subject.median),
      `${ms(overhead.baseline.median)} (UpdateItem + SendTaskSuccess)`,
      x(overhead.ratioMedian),
      `≤ ${overhead.target}× ${met(overhead.met)}${overhead.met ? "" : ` (floor of the design: ${x(overhead.floorRatio)})`}`,
    ],
    [
      "1. Answer → resume, p99",
      ms(overhead.subject.p99),
      ms(overhead.baseline.p99),
      x(overhead.ratioP99),
      "—",
    ],
    ...answerPaths.paths.map(
      (path): Row => [
        `1. Round trips before the response, ${path.path} (${path.function})`,
        `${path.sequentialAws} sequential AWS calls, ${path.chatCalls.length === 0 ? "no chat call" : path.chatCalls.join(", ")}: ${path.shapes.join(" / ")}`,
        "2 (UpdateItem → SendTaskSuccess)",
        "—",
        `${path.target} ${met(path.met)}`,
      ],
    ),
    [
      "1. Telegram tap → run resumed (SendTaskSuccess accepted), median",
      ms(answerPaths.telegramTap.resume.median),
      `${ms(answerPaths.telegramTap.baseline.median)} (UpdateItem + SendTaskSuccess)`,
      x(answerPaths.telegramTap.ratioMedian),
      `≤ ${answerPaths.telegramTap.target}× ${met(answerPaths.telegramTap.met)}`,
    ],
    [
      "1. Telegram tap → run resumed, p99",
      ms(answerPaths.telegramTap.resume.p99),
      ms(answerPaths.telegramTap.baseline.p99),
      x(answerPaths.telegramTap.ratioP99),
      "—",
    ],
    ["2. Throughput, 1 in flight", `${throughput.serial.perSecond.toFixed(0)} answers/s`, "—", "—", "—"],
    [
      `2. Throughput, ${throughput.concurrency} in flight`,
      `${throughput.concurrent.perSecond.toFixed(0)} answers/s`,
      `${throughput.serial.perSecond.toFixed(0)} answers/s (1 in flight)`,
      x(throughput.ratio),
      "—",
    ],
    ...scale.levels.map(
      (level, i): Row => [
        `3. Scale, ${thousands(level.pending)} pending: answer median`,
        ms(level.subject.median),
        i === 0
          ? "(smallest)"
          : `${ms(scale.levels[0]?.subject.median ?? 0)} (${thousands(scale.levels[0]?.pending ?? 0)} pending)`,
        i === 0 ? "1.00×" : x(level.ratioToSmallest),
        i === scale.levels.length - 1 ? `≤ ${scale.target}× ${met(scale.met)}` : "—",
      ],
    ),
    ...coldStart.functions.map(
      (fn): Row => [
        `4. Cold start, ${fn.function} (${kb(fn.bytes)}, ${kb(fn.gzipBytes)} gzip)`,
        `import ${ms(fn.importMs)} · ready ${ms(fn.readyMs)}`,
        `empty handler: import ${ms(coldStart.empty.importMs)} · ready ${ms(coldStart.empty.readyMs)}`,
        `${x(fn.importRatio)} · ${x(fn.readyRatio)}`,
        "—",
      ],
    ),
    coldStartRow("4. Cold start, reference: AWS SDK clients only", coldStart.sdkOnly, coldStart.empty),
    coldStartRow(
      "4. Cold start, reference: AWS SDK clients + Powertools (Logger, Metrics, Tracer)",
      coldStart.sdkPowertools,
      coldStart.empty,
    ),
    ["5. Cost per 1,000 questions, task token", dollars(cost.usdPer1000), "—", "—", "—"],
    [
      `5. Cost per 1,000 questions, naive polling (every ${cost.naive.pollSeconds} s, ${cost.naive.averageWaitSeconds / 60} min average wait)`,
      dollars(cost.naive.usdPer1000),
      `${dollars(cost.usdPer1000)} (task token)`,
      x(cost.naive.ratio),
      "—",
    ],
    [
      `6. Model clients, modelStep with fetch + zod (shipped) (${kb(shipped.bundle.bytes)}, ${kb(shipped.bundle.gzipBytes)} gzip)`,
      `import ${ms(shipped.bundle.importMs)} (CPU ${ms(shipped.importCpuMs)})`,
      "import CPU of the other functions (median)",
      x(shipped.importCpuRatio),
      modelTarget(shipped),
    ],
    [
      `6. Model clients, modelStep with the official SDKs (openai ${modelClients.sdkVersions.openai}, @anthropic-ai/sdk ${modelClients.sdkVersions.anthropic}) (${kb(officialSdks.bundle.bytes)}, ${kb(officialSdks.bundle.gzipBytes)} gzip)`,
      `import ${ms(officialSdks.bundle.importMs)} (CPU ${ms(officialSdks.importCpuMs)})`,
      `fetch + zod: ${kb(shipped.bundle.bytes)}, import ${ms(shipped.bundle.importMs)}`,
      `${x(modelClients.bytesRatio)} size · ${x(modelClients.importRatio)} import · ${x(officialSdks.importCpuRatio)} CPU vs other functions`,
      modelTarget(officialSdks),
    ],
  ];
  return [
    "| measurement | result | baseline | ratio | target |",
    "| --- | --- | --- | --- | --- |",
    ...rows.map((row) => `| ${row.join(" | ")} |`),
  ].join("\n");
}

function coldStartRow(label: string, bundle: ColdStartBundle, empty: ColdStartBundle): Row {
  return [
    `${label} (${kb(bundle.bytes)})`,
    `import ${ms(bundle.importMs)} · ready ${ms(bundle.readyMs)}`,
    `empty handler: import ${ms(empty.importMs)} · ready ${ms(empty.readyMs)}`,
    `${x(bundle.importRatio)} · ${x(bundle.readyRatio)}`,
    "—",
  ];
}

/** What stands behind the table: samples, breakdowns, counts and assumptions. */
export function renderDetails(results: BenchResults): string {
  const { overhead, throughput, scale, coldStart, cost } = results;
  const lines: string[] = [];
  lines.push(
    `Machine: ${results.machine.cpus} × ${results.machine.cpuModel}, Node ${results.machine.node}; ${results.mode} run, ${results.seconds.toFixed(0)} s.`,
  );
  lines.push(
    `1. ${overhead.pairs} interleaved pairs (answer over HTTP, baseline over the SDK), each on its own waiting run. Answer path median, by part (medians; approximate):`,
  );
  for (const part of overhead.breakdown) lines.push(`   - ${part.part}: ${ms(part.medianMs)}`);
  lines.push(
    `   Floor of this design (HTTP round trip + the GetItem the answer's validation needs + the baseline) / the baseline: ${x(overhead.floorRatio)}.`,
  );
  const tap = results.answerPaths.telegramTap;
  lines.push(
    `1. Round trips: ${results.answerPaths.paths.map((p) => `${p.path}: ${p.shapes.join(" / ")}`).join("; ")} (∥ side by side, → one after another; ${results.answerPaths.paths[0]?.samples ?? 0} answers per path, counted at the handler's HTTP requests). Telegram tap: ${tap.pairs} pairs; the whole webhook request (with answerCallbackQuery) median ${ms(tap.response.median)}, p99 ${ms(tap.response.p99)}.`,
  );
  lines.push(
    `2. ${throughput.serial.answers} answers 1 at a time in ${throughput.serial.seconds.toFixed(2)} s; ${throughput.concurrent.answers} answers ${throughput.concurrency} at a time in ${throughput.concurrent.seconds.toFixed(2)} s.`,
  );
  lines.push(
    `3. Per level: ${scale.levels[0]?.subject.n ?? 0} answers and as many baseline answers. Baseline medians: ${scale.levels.map((l) => `${thousands(l.pending)}: ${ms(l.baseline.median)}`).join(", ")} (largest/smallest ${x(scale.baselineRatio)}; the answer path relative to it: ${x(scale.relativeRatio)}). For scale, one Scan of the table at the largest level (${thousands(scale.scan.items)} items) takes ${ms(scale.scan.ms)}. Medians per visit, in order: ${scale.visits.map((v) => `${thousands(v.pending)}: ${v.subjectMedian.toFixed(1)}`).join(" → ")} ms. Filler questions written: ${thousands(scale.fill.questions)} (+ their session slots) in ${scale.fill.seconds.toFixed(1)} s.`,
  );
  lines.push(
    `4. Powertools (Logger, Metrics, Tracer with the clients captured) over the AWS SDK clients alone: import ${x(coldStart.sdkPowertools.importMs / coldStart.sdkOnly.importMs)}, ready ${x(coldStart.sdkPowertools.readyMs / coldStart.sdkOnly.readyMs)} (${ms(coldStart.sdkPowertools.importMs - coldStart.sdkOnly.importMs)} more to import).`,
  );
  lines.push(
    `4. Median of ${coldStart.rounds} fresh processes per bundle, NODE_OPTIONS="${coldStart.nodeOptions}". import = \`await import(bundle)\`; ready = process start → handler ready.${coldStart.failed.length > 0 ? ` Not measured: ${coldStart.failed.map((f) => `${f.function} (${f.error})`).join("; ")}.` : ""}`,
  );
  const q = cost.perQuestion;
  lines.push(
    `5. Per question (${cost.runs} runs): ${count(q.transitions)} transitions, ${count(q.lambdaInvocations)} Lambda invocations (${Object.entries(
      cost.lambdaByFunction,
    )
      .map(([k, v]) => `${k} ${count(v)}`)
      .join(
        ", ",
      )}; ${q.lambdaGbSeconds.toFixed(3)} GB-s at assumed durations), ${count(q.writeUnits)} write units, ${count(q.readUnits)} read units, ${count(q.apiRequests)} HTTP API request.`,
  );
  lines.push(
    `   Per 1,000: ${Object.entries(cost.breakdownUsdPer1000)
      .map(([k, v]) => `${k} ${dollars(v)}`)
      .join(", ")}.`,
  );
  lines.push(
    `   Naive: ${cost.naive.polls} polls × (3 transitions + 1 Lambda of ${cost.naive.pollAssumedMs} ms assumed + ${cost.naive.pollReadUnits} read unit). Naive/task token at other average waits: ${cost.ratioByWait.map((r) => `${r.averageWaitSeconds / 60} min ${x(r.ratio)}`).join(", ")}.`,
  );
  const models = results.modelClients;
  lines.push(
    `6. The modelStep bundle as shipped (OpenAI and Anthropic over fetch, responses checked with zod) and the same bundle with those two adapters on the official SDKs (bench/model-sdk/), in the rounds of 4. Budget: ≤ ${kb(models.budget.bytes)} of JavaScript (test/template/bundles.test.ts) and import CPU ≤ ${models.budget.importCpuRatio}× the median of the other functions' in the same round (median over rounds). Bedrock is the AWS SDK either way (in the Lambda runtime, loaded on the first Bedrock call).`,
  );
  return lines.join("\n");
}
