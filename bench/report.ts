/** The benchmark results as the Markdown table docs/benchmarks.md shows, and the details under it. */
import type { BenchResults } from "./bench.ts";
import { median, quantile } from "./lib/stats.ts";
import type { ModelClientOption } from "./model-clients.ts";

const ms = (value: number) => `${value.toFixed(2)} ms`;
const x = (value: number) => `${value.toFixed(2)}×`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(bytes < 10_240 ? 1 : 0)} KB`;
const dollars = (value: number) => `$${value.toFixed(4)}`;
const count = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(2));
const met = (ok: boolean) => (ok ? "**met**" : "**not met**");
const thousands = (value: number) => value.toLocaleString("en-US");

/**
 * The sections measured after the run itself (`npm run bench -- --only`), with their dates, to follow the
 * run's own date: "" when every figure is from the run.
 */
export function laterSections(results: BenchResults): string {
  const later = Object.entries(results.measuredAt ?? {}).filter(([, at]) => at !== results.startedAt);
  return later.map(([section, at]) => `; ${section} measured again on ${at.slice(0, 10)} (--only)`).join("");
}

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
    [
      `3. GET /questions?owner= of an owner with ${thousands(scale.listing.pending)} pending, in pages of ${scale.listing.limit}`,
      `${scale.listing.pages} pages, ${thousands(scale.listing.listed)} listed, ≤ ${scale.listing.maxQueriesPerPage} Query per page; page median ${ms(scale.listing.pageMs.median)}, p99 ${ms(scale.listing.pageMs.p99)}`,
      "—",
      "—",
      `every question once, each page one bounded read ${met(scale.listing.bounded)}`,
    ],
    [
      `3. GET /questions?owner=, first page with ${scale.listing.firstPage.map((f) => thousands(f.pending)).join(" vs ")} pending`,
      ms(scale.listing.firstPage.at(-1)?.medianMs ?? Number.NaN),
      ms(scale.listing.firstPage[0]?.medianMs ?? Number.NaN),
      x(scale.listing.firstPageRatio),
      "—",
    ],
    ...coldStart.builds.flatMap((build): Row[] => [
      [
        `4. Cold start, reference: AWS SDK clients only, SDK ${build.build} (${kb(build.sdkOnly.bytes)})`,
        `ready ${ms(build.sdkOnly.readyMs)} · import ${ms(build.sdkOnly.importMs)}`,
        `empty handler: ready ${ms(coldStart.empty.readyMs)}`,
        x(build.sdkOnly.readyRatio),
        build.build === coldStart.shipped
          ? `the faster build ${met(build.sdkOnly.readyMs <= Math.min(...coldStart.builds.map((b) => b.sdkOnly.readyMs)))}`
          : "—",
      ],
      [
        `4. Cold start, reference: + Powertools (Logger, Metrics, Tracer), SDK ${build.build} (${kb(build.sdkPowertools.bytes)})`,
        `ready ${ms(build.sdkPowertools.readyMs)} · import ${ms(build.sdkPowertools.importMs)}`,
        `SDK clients only: ready ${ms(build.sdkOnly.readyMs)}`,
        x(build.sdkPowertools.readyMs / build.sdkOnly.readyMs),
        "—",
      ],
    ]),
    ...coldStart.builds.flatMap((build) =>
      build.functions.map((fn): Row => {
        const shipped = build.build === coldStart.shipped;
        const sizeOk = fn.bytes <= 250 * 1024;
        return [
          `4. Cold start, ${fn.function}, SDK ${build.build}${shipped ? " (shipped)" : ""} (${kb(fn.bytes)}, ${kb(fn.gzipBytes)} gzip)`,
          `ready ${ms(fn.readyMs)} · import ${ms(fn.importMs)}`,
          `AWS SDK clients + Powertools, SDK ${build.build}: ready ${ms(build.sdkPowertools.readyMs)}`,
          fn.cpuRatio === undefined
            ? x(fn.referenceRatio)
            : `${x(fn.referenceRatio)} · CPU ${x(fn.cpuRatio)}`,
          shipped
            ? `CPU ≤ ${coldStart.target}× ${met((fn.cpuRatio ?? fn.referenceRatio) <= coldStart.target)}; ${build.build === "bundled" ? `SDK inside: ${kb(fn.bytes)}` : `≤ 250 KB ${met(sizeOk)}`}`
            : "—",
        ];
      }),
    ),
    ...cost.table.map(
      (row, i): Row => [
        `5. Cost per 1,000 runs that ask once: ${row.way}`,
        `${dollars(row.perRun.usd * 1000)} · with timers ${dollars(row.perRun.usdWithTimers * 1000)}`,
        `per 1,000 additional questions: ${dollars(row.perAdditionalQuestion.usd * 1000)} · with timers ${dollars(row.perAdditionalQuestion.usdWithTimers * 1000)}`,
        i === 0 ? "1.00×" : x(row.perRun.usd / (cost.table[0]?.perRun.usd ?? Number.NaN)),
        "—",
      ],
    ),
    [
      "5. Cost per 1,000 questions, task token with the timers (answered in time)",
      dollars(cost.timers.answeredUsdPer1000),
      `${dollars(cost.usdPer1000)} (without)`,
      x(cost.timers.answeredUsdPer1000 / cost.usdPer1000),
      "—",
    ],
    [
      "5. What the timers add per 1,000 unanswered questions (expiry + 1 reminder fired)",
      dollars(cost.timers.addedUsdPer1000.unanswered),
      "—",
      "—",
      "—",
    ],
    [
      `5. Cost per 1,000 questions, naive polling (every ${cost.naive.pollSeconds} s, ${cost.naive.averageWaitSeconds / 60} min average wait)`,
      dollars(cost.naive.usdPer1000),
      `${dollars(cost.usdPer1000)} (task token)`,
      x(cost.naive.ratio),
      "—",
    ],
    [
      "5. The closing write drops the task token (the stream reads the old image)",
      cost.closeDropsToken ? "yes: no UpdateItem of its own" : "no",
      "—",
      "—",
      `verified ${met(cost.closeDropsToken)}`,
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

/** What stands behind the table: samples, breakdowns, counts and assumptions. */
export function renderDetails(results: BenchResults): string {
  const { overhead, throughput, scale, coldStart, cost } = results;
  const lines: string[] = [];
  lines.push(
    `Machine: ${results.machine.cpus} × ${results.machine.cpuModel}, Node ${results.machine.node}; ${results.mode} run, ${results.seconds.toFixed(0)} s${laterSections(results)}.`,
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
    `4. Powertools (Logger, Metrics, Tracer with the clients captured) over the AWS SDK clients alone: ${coldStart.builds.map((b) => `SDK ${b.build}: ready ${x(b.sdkPowertools.readyMs / b.sdkOnly.readyMs)}, ${ms(b.sdkPowertools.readyMs - b.sdkOnly.readyMs)} more`).join("; ")}.`,
  );
  const byBuild = (build: string) => coldStart.builds.find((b) => b.build === build);
  const bundledFns = byBuild("bundled")?.functions ?? [];
  const externalFns = byBuild("external")?.functions ?? [];
  lines.push(
    `4. Bundled over external, ready, per function: ${bundledFns
      .map((fn) => {
        const other = externalFns.find((e) => e.function === fn.function);
        return other ? `${fn.function} ${x(fn.readyMs / other.readyMs)}` : `${fn.function} —`;
      })
      .join(
        ", ",
      )}. Shipped: SDK ${coldStart.shipped} (serverless.yml custom.esbuild ${coldStart.shipped === "external" ? "excludes @aws-sdk/*" : "excludes nothing: the SDK is in every bundle"}).`,
  );
  const shippedFns = byBuild(coldStart.shipped)?.functions ?? [];
  const spread = (ratios: number[]) =>
    ratios.length > 0 ? `${x(quantile(ratios, 0.25))}–${x(quantile(ratios, 0.75))}` : "—";
  lines.push(
    `4. Ready over the "+ Powertools" reference of the shipped build, round by round (each function and the reference started moments apart in every round), middle half of the rounds: ${shippedFns.map((fn) => `${fn.function} ${spread(fn.roundRatios ?? [])}`).join(", ")}.`,
  );
  const referenceCpu = byBuild(coldStart.shipped)?.sdkPowertools.readyCpuSamples;
  if (referenceCpu && referenceCpu.length > 0) {
    lines.push(
      `4. CPU (all threads) from process start until ready, the ratio column's second figure and the one the target judges: the work behind "ready", which load from other processes hardly moves (wall-clock ready does: see the rounds above) (the reference's median ${ms(median(referenceCpu))}; the empty handler's ${ms(median(coldStart.empty.readyCpuSamples ?? [Number.NaN]))}).`,
    );
  }
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
  const timer = (label: string, t: BenchResults["cost"]["timers"]["answered"]) =>
    `   Timers, ${label} (${t.questions} questions): per question ${count(t.createSchedule)} CreateSchedule + ${count(t.deleteSchedule)} DeleteSchedule (not billed), ${count(t.invocations)} schedules fired (Scheduler $1.00 per million after 14 million free a month; one timer-function invocation each), ${count(t.writeUnits)} write / ${count(t.readUnits)} read units, ${t.lambdaGbSeconds.toFixed(4)} GB-s at assumed durations: ${dollars(t.usdPer1000)} per 1,000.`;
  lines.push(timer("answered in time", cost.timers.answered));
  lines.push(timer("unanswered with one reminder", cost.timers.unanswered));
  lines.push(
    `   Naive: ${cost.naive.polls} polls × (3 transitions + 1 Lambda of ${cost.naive.pollAssumedMs} ms assumed + ${cost.naive.pollReadUnits} read unit). Naive/task token at other average waits: ${cost.ratioByWait.map((r) => `${r.averageWaitSeconds / 60} min ${x(r.ratio)}`).join(", ")}.`,
  );
  const models = results.modelClients;
  lines.push(
    `6. The modelStep bundle as shipped (OpenAI and Anthropic over fetch, responses checked with zod) and the same bundle with those two adapters on the official SDKs (bench/model-sdk/), in the rounds of 4. Budget: ≤ ${kb(models.budget.bytes)} of JavaScript (test/template/bundles.test.ts) and import CPU ≤ ${models.budget.importCpuRatio}× the median of the other functions' in the same round (median over rounds). Bedrock is the AWS SDK either way (bundled, evaluated on the first Bedrock call).`,
  );
  return lines.join("\n");
}
