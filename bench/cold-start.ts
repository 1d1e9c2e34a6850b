/**
 * 4. Cold start: each function of serverless.yml is bundled the way it deploys (serverless.yml
 * `custom.esbuild`, with scripts/esbuild-plugins.cjs: one minified, tree-shaken ES module with the
 * createRequire banner) in two builds — the AWS SDK external (`@aws-sdk/*` excluded: loaded from node_modules
 * here, from the runtime's own copy on Lambda) and the AWS SDK bundled into the module, as serverless.yml
 * ships it (no exclude; issue #17) —
 * then loaded in fresh Node processes with the deployed NODE_OPTIONS and the environment its configuration
 * needs. Measured per process: the import of the bundle (load, evaluate, build clients at module scope) and
 * the time from process start until the handler is ready. Each build has its own references — the DynamoDB and
 * Step Functions clients alone, and with Powertools — so a function is compared with the reference built the
 * same way (the same esbuild options, plugins and banner, the same environment and NODE_OPTIONS); an empty
 * handler is the floor of both. A function's ratio is over the "+ Powertools" reference: every function loads
 * Powertools for operating it, so what the ratio weighs is what Handraise adds to that.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { type BuildOptions, build, type Plugin } from "esbuild";
import { parse } from "yaml";
import { readServerlessFunctions } from "#infra/local/serverless-functions.ts";
import { PROJECT_ROOT } from "#infra/local/stack.ts";
import { secondsSince } from "./lib/progress.ts";
import { median } from "./lib/stats.ts";

const run = promisify(execFile);
const EMPTY = "(empty handler)";
/** A reference: what the AWS SDK clients alone cost to load and build, the part no handler code can avoid. */
const SDK_ONLY = "(AWS SDK clients only)";
const SDK_ONLY_SOURCE = `import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { SFNClient } from "@aws-sdk/client-sfn";
const dynamodb = new DynamoDBClient({});
const sfn = new SFNClient({});
export const handler = async () => ({ statusCode: 200, clients: [typeof dynamodb, typeof sfn] });
`;

/**
 * The same, plus what every function loads for operating it (Powertools Logger, Metrics and Tracer with the
 * SDK clients captured): against SDK_ONLY, what Powertools adds to a cold start; each function's ratio is
 * over this one.
 */
const SDK_POWERTOOLS = "(AWS SDK clients + Powertools)";
const SDK_POWERTOOLS_SOURCE = `import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics } from "@aws-lambda-powertools/metrics";
import { Tracer } from "@aws-lambda-powertools/tracer";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { SFNClient } from "@aws-sdk/client-sfn";
const logger = new Logger({ serviceName: "bench" });
const metrics = new Metrics({ namespace: "Bench", serviceName: "bench" });
const tracer = new Tracer({ serviceName: "bench" });
const dynamodb = tracer.captureAWSv3Client(new DynamoDBClient({}));
const sfn = tracer.captureAWSv3Client(new SFNClient({}));
export const handler = async () => ({ statusCode: 200, clients: [typeof dynamodb, typeof sfn, typeof logger, typeof metrics] });
`;

const REFERENCES = [EMPTY, SDK_ONLY, SDK_POWERTOOLS];

export interface ColdStartSizes {
  warmupRounds: number;
  rounds: number;
  /**
   * The functions of serverless.yml to bundle and start (keys, e.g. `questionsApi`); every function when
   * absent. The smoke run takes a few, since each costs a build of its own in both builds.
   */
  functions?: readonly string[];
}

export interface ColdStartBundle {
  function: string;
  /** The bundled JavaScript (the .mjs file; its source map is not loaded unless an error is printed). */
  bytes: number;
  gzipBytes: number;
  /** Median milliseconds of `await import(bundle)` in a fresh process. */
  importMs: number;
  /** Median milliseconds from process start until the handler is ready (Node's own start included). */
  readyMs: number;
  /** Every round's ready, in round order (as importSamples). */
  readySamples: number[];
  importRatio: number;
  readyRatio: number;
  /** Every round's import, in round order: index i of any two bundles was measured in the same round. */
  importSamples: number[];
  /**
   * CPU time (user + system, all threads) of each import, in round order: unlike wall time, it hardly moves
   * when other processes load the machine.
   */
  importCpuSamples: number[];
  /**
   * CPU time of the whole process from its start until the handler is ready (Node's own start included), in
   * round order: the work behind `readyMs`, which a busy machine hardly moves.
   */
  readyCpuSamples: number[];
}

/** A function of serverless.yml bundled with extra esbuild plugins (e.g. a module swapped for another). */
export interface ColdStartVariant {
  name: string;
  /** The function (key in serverless.yml) whose handler it bundles. */
  function: string;
  plugins: Plugin[];
}

/**
 * How the AWS SDK clients reach a function: `external` — left out of the bundle, loaded from node_modules (on
 * Lambda, the runtime's own copy); `bundled` — inside the bundle, minified and tree-shaken with the rest.
 */
export type SdkBuild = "external" | "bundled";

/**
 * A function measured against its build's "+ Powertools" reference: `referenceRatio` is the ratio of the
 * medians of ready; `roundRatios` the ratio in each round (the two processes started moments apart), whose
 * spread shows how much the machine moved the figure.
 */
export type ColdStartFunction = ColdStartBundle & {
  referenceRatio: number;
  roundRatios: number[];
  /** The same ratio on CPU time to ready (medians): what a loaded machine moves least. */
  cpuRatio: number;
};

/** One build's references and functions; each function's ratio is over this build's "+ Powertools" reference. */
export interface ColdStartBuild {
  build: SdkBuild;
  sdkOnly: ColdStartBundle;
  sdkPowertools: ColdStartBundle;
  functions: ColdStartFunction[];
}

export interface ColdStartResult {
  rounds: number;
  nodeOptions: string;
  /**
   * The build serverless.yml deploys: `external` if its `custom.esbuild.exclude` lists `@aws-sdk/*`, else
   * `bundled`; the top-level figures are that build's.
   */
  shipped: SdkBuild;
  /** Both builds, measured in the same rounds. */
  builds: ColdStartBuild[];
  /**
   * Every function within this factor of its build's "AWS SDK clients + Powertools" reference, judged on the
   * CPU time to ready (`cpuRatio`): on a machine other work loads, wall-clock ready moves by more than the gap
   * the target is about, CPU time hardly.
   */
  target: number;
  empty: ColdStartBundle;
  /** The DynamoDB and Step Functions clients alone, built at module scope as the handlers do (shipped build). */
  sdkOnly: ColdStartBundle;
  /** The same clients with Powertools Logger, Metrics and Tracer: what operability adds. */
  sdkPowertools: ColdStartBundle;
  functions: ColdStartFunction[];
  /** The variants asked for, measured in the same rounds (bench/model-clients.ts). */
  variants: ColdStartBundle[];
  /** Functions that did not bundle or load (e.g. still being written), with the reason. */
  failed: { function: string; error: string }[];
}

interface ServerlessDoc {
  provider?: { environment?: Record<string, unknown> };
  custom?: { esbuild?: Record<string, unknown> };
}

/** esbuild's options from serverless.yml `custom.esbuild`, as serverless-esbuild passes them on. */
function esbuildOptions(doc: ServerlessDoc): BuildOptions {
  const config = doc.custom?.esbuild;
  if (!config) throw new Error("serverless.yml has no custom.esbuild");
  const { exclude, plugins, outputFileExtension, ...rest } = config as {
    exclude?: string[];
    plugins?: string;
    outputFileExtension?: string;
  } & Record<string, unknown>;
  const passThrough = [
    "bundle",
    "minify",
    "treeShaking",
    "sourcemap",
    "sourcesContent",
    "platform",
    "target",
    "format",
    "mainFields",
    "banner",
    "footer",
    "define",
    "keepNames",
    "conditions",
  ];
  const unknown = Object.keys(rest).filter((key) => !passThrough.includes(key));
  if (unknown.length > 0)
    throw new Error(`custom.esbuild has options the benchmark does not pass on: ${unknown}`);
  return {
    ...(rest as BuildOptions),
    ...(exclude && { external: exclude }),
    ...(outputFileExtension && { outExtension: { ".js": outputFileExtension } }),
    ...(plugins && {
      plugins: createRequire(import.meta.url)(join(PROJECT_ROOT, plugins)) as Plugin[],
    }),
    absWorkingDir: PROJECT_ROOT,
    logLevel: "silent",
  };
}

const MEASURE_SCRIPT = `
const cpu = process.cpuUsage();
const started = performance.now();
const module = await import(process.argv[2]);
const ready = performance.now();
const used = process.cpuUsage(cpu);
if (typeof module[process.argv[3]] !== "function") throw new Error("the bundle exports no " + process.argv[3]);
const total = process.cpuUsage();
process.stdout.write(JSON.stringify({ importMs: ready - started, readyMs: ready, importCpuMs: (used.user + used.system) / 1000, readyCpuMs: (total.user + total.system) / 1000 }));
`;

interface Bundle {
  function: string;
  file: string;
  exportName: string;
  build: SdkBuild;
  variant?: boolean;
}

export const COLD_START_TARGET = 1.2;
const SDK_PATTERN = "@aws-sdk/*";

export async function measureColdStart(
  sizes: ColdStartSizes,
  outDir: string,
  variants: readonly ColdStartVariant[] = [],
  log: (line: string) => void = () => undefined,
): Promise<ColdStartResult> {
  const doc = parse(readFileSync(join(PROJECT_ROOT, "serverless.yml"), "utf8"), {
    logLevel: "error",
  }) as ServerlessDoc;
  const options = esbuildOptions(doc);
  const nodeOptions = String(doc.provider?.environment?.NODE_OPTIONS ?? "");
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(join(outDir, "src"), { recursive: true });
  const measure = join(outDir, "measure.mjs");
  writeFileSync(measure, MEASURE_SCRIPT);
  const emptyEntry = join(outDir, "src", "empty-handler.ts");
  writeFileSync(emptyEntry, "export const handler = async () => ({ statusCode: 200 });\n");
  const sdkEntry = join(outDir, "src", "sdk-only-handler.ts");
  writeFileSync(sdkEntry, SDK_ONLY_SOURCE);
  const powertoolsEntry = join(outDir, "src", "sdk-powertools-handler.ts");
  writeFileSync(powertoolsEntry, SDK_POWERTOOLS_SOURCE);

  const failed: ColdStartResult["failed"] = [];
  const bundles: Bundle[] = [];
  const declared = readServerlessFunctions(PROJECT_ROOT);
  const unknownFunctions = (sizes.functions ?? []).filter((key) => !declared.some((fn) => fn.key === key));
  if (unknownFunctions.length > 0) throw new Error(`no function ${unknownFunctions} in serverless.yml`);
  const functions = sizes.functions ? declared.filter((fn) => sizes.functions?.includes(fn.key)) : declared;
  const shipped: SdkBuild = (options.external ?? []).includes(SDK_PATTERN) ? "external" : "bundled";
  const externalFor = (build: SdkBuild) => {
    const others = (options.external ?? []).filter((name) => name !== SDK_PATTERN);
    return build === "external" ? [...others, SDK_PATTERN] : others;
  };
  const entries: {
    function: string;
    entry: string;
    out: string;
    exportName: string;
    build: SdkBuild;
    plugins?: Plugin[];
    variant?: boolean;
  }[] = [
    // The empty handler has no imports: one build is both.
    { function: EMPTY, entry: emptyEntry, out: "empty/handler", exportName: "handler", build: shipped },
    ...(["external", "bundled"] as const).flatMap((build) => [
      { function: SDK_ONLY, entry: sdkEntry, out: `${build}/sdk-only/handler`, exportName: "handler", build },
      {
        function: SDK_POWERTOOLS,
        entry: powertoolsEntry,
        out: `${build}/sdk-powertools/handler`,
        exportName: "handler",
        build,
      },
      ...functions.map((fn) => ({
        function: fn.key,
        entry: join(PROJECT_ROOT, `${fn.module}.ts`),
        out: `${build}/${fn.key}/${fn.module}`,
        exportName: fn.exportName,
        build,
      })),
    ]),
    ...variants.map((variant, i) => {
      const fn = declared.find((f) => f.key === variant.function);
      if (!fn) throw new Error(`variant ${variant.name}: no function ${variant.function} in serverless.yml`);
      return {
        function: variant.name,
        entry: join(PROJECT_ROOT, `${fn.module}.ts`),
        out: `variant-${i}/${fn.module}`,
        exportName: fn.exportName,
        build: shipped,
        plugins: variant.plugins,
        variant: true,
      };
    }),
  ];
  // One esbuild call per build (and per variant, which has plugins of its own) rather than one per bundle:
  // without code splitting esbuild bundles every entry point on its own, so each output is what a build of
  // that entry alone gives (as serverless-esbuild builds them), but the calls share the parsing of the
  // dependencies every function imports. A call that fails is made again entry by entry, to tell which
  // function failed.
  const groups = new Map<SdkBuild | Plugin[], typeof entries>();
  for (const entry of entries) {
    const key = entry.plugins ?? entry.build;
    groups.set(key, [...(groups.get(key) ?? []), entry]);
  }
  const buildTogether = (group: typeof entries) => {
    const [first] = group;
    if (!first) return Promise.resolve();
    return build({
      ...options,
      ...(first.plugins && { plugins: [...first.plugins, ...(options.plugins ?? [])] }),
      external: externalFor(first.build),
      entryPoints: group.map((entry) => ({ in: entry.entry, out: entry.out })),
      outdir: outDir,
    });
  };
  const built = new Set<(typeof entries)[number]>();
  const buildStarted = performance.now();
  for (const group of groups.values()) {
    try {
      await buildTogether(group);
      for (const entry of group) built.add(entry);
    } catch {
      for (const entry of group) {
        try {
          await buildTogether([entry]);
          built.add(entry);
        } catch (error) {
          if (REFERENCES.includes(entry.function)) throw error;
          failed.push({ function: `${entry.function} (${entry.build})`, error: firstLine(error) });
        }
      }
    }
  }
  // In the order of `entries`, which the rounds below rotate through.
  for (const entry of entries.filter((e) => built.has(e))) {
    bundles.push({
      function: entry.function,
      file: join(outDir, `${entry.out}${options.outExtension?.[".js"] ?? ".js"}`),
      exportName: entry.exportName,
      build: entry.build,
      ...(entry.variant && { variant: true }),
    });
  }
  log(`cold start: ${bundles.length} of ${entries.length} bundles built in ${secondsSince(buildStarted)} s`);

  const env = {
    PATH: process.env.PATH ?? "",
    NODE_OPTIONS: nodeOptions,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "local",
    AWS_SECRET_ACCESS_KEY: "local",
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    HANDRAISE_TABLE: "handraise-bench",
    HANDRAISE_API_KEY: "bench-api-key-0123456789",
  };
  const spawnOnce = async (bundle: Bundle) => {
    const { stdout } = await run(process.execPath, [measure, bundle.file, bundle.exportName], {
      cwd: PROJECT_ROOT,
      env,
    });
    return JSON.parse(stdout) as {
      importMs: number;
      readyMs: number;
      importCpuMs: number;
      readyCpuMs: number;
    };
  };

  const samples = new Map<
    Bundle,
    { importMs: number[]; readyMs: number[]; importCpuMs: number[]; readyCpuMs: number[] }
  >();
  let live = bundles;
  const roundsStarted = performance.now();
  for (let round = 0; round < sizes.warmupRounds + sizes.rounds; round++) {
    // Round robin, starting one further each round, so drift of the machine is shared by every bundle.
    const order = live.map((_, i) => live[(i + round) % live.length]).filter((b): b is Bundle => !!b);
    for (const bundle of order) {
      try {
        const sample = await spawnOnce(bundle);
        if (round < sizes.warmupRounds) continue;
        const list = samples.get(bundle) ?? { importMs: [], readyMs: [], importCpuMs: [], readyCpuMs: [] };
        list.importMs.push(sample.importMs);
        list.readyMs.push(sample.readyMs);
        list.importCpuMs.push(sample.importCpuMs);
        list.readyCpuMs.push(sample.readyCpuMs);
        samples.set(bundle, list);
      } catch (error) {
        if (REFERENCES.includes(bundle.function)) throw error;
        failed.push({ function: `${bundle.function} (${bundle.build})`, error: firstLine(error) });
        live = live.filter((b) => b !== bundle);
      }
    }
  }

  log(
    `cold start: ${sizes.warmupRounds + sizes.rounds} rounds of ${bundles.length} fresh processes in ${secondsSince(roundsStarted)} s`,
  );

  const describe = (bundle: Bundle, empty?: ColdStartBundle): ColdStartBundle => {
    const list = samples.get(bundle);
    if (!list) throw new Error(`no samples for ${bundle.function}`);
    const code = readFileSync(bundle.file);
    const importMs = median(list.importMs);
    const readyMs = median(list.readyMs);
    return {
      function: bundle.function,
      bytes: statSync(bundle.file).size,
      gzipBytes: gzipSync(code).length,
      importMs,
      readyMs,
      readySamples: list.readyMs,
      importRatio: empty ? importMs / empty.importMs : 1,
      readyRatio: empty ? readyMs / empty.readyMs : 1,
      importSamples: list.importMs,
      importCpuSamples: list.importCpuMs,
      readyCpuSamples: list.readyCpuMs,
    };
  };
  const reference = (name: string, build: SdkBuild) => {
    const bundle = live.find((b) => b.function === name && (name === EMPTY || b.build === build));
    if (!bundle) throw new Error(`the reference bundle ${name} (${build}) is missing`);
    return bundle;
  };
  const empty = describe(reference(EMPTY, shipped));
  const builds: ColdStartBuild[] = (["external", "bundled"] as const).map((build) => {
    const sdkPowertools = describe(reference(SDK_POWERTOOLS, build), empty);
    return {
      build,
      sdkOnly: describe(reference(SDK_ONLY, build), empty),
      sdkPowertools,
      functions: live
        .filter((b) => !REFERENCES.includes(b.function) && !b.variant && b.build === build)
        .map((b) => {
          const described = describe(b, empty);
          return {
            ...described,
            referenceRatio: described.readyMs / sdkPowertools.readyMs,
            cpuRatio: median(described.readyCpuSamples) / median(sdkPowertools.readyCpuSamples),
            roundRatios: described.readySamples.map(
              (ms, i) => ms / (sdkPowertools.readySamples[i] ?? Number.NaN),
            ),
          };
        }),
    };
  });
  const mine = builds.find((b) => b.build === shipped) as ColdStartBuild;
  return {
    rounds: sizes.rounds,
    nodeOptions,
    shipped,
    builds,
    target: COLD_START_TARGET,
    empty,
    sdkOnly: mine.sdkOnly,
    sdkPowertools: mine.sdkPowertools,
    functions: mine.functions,
    variants: live.filter((b) => b.variant).map((b) => describe(b, empty)),
    failed,
  };
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n").find((line) => line.trim() !== "") ?? text;
}
