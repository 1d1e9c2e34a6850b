/**
 * 6. Model clients: the modelStep bundle as shipped — OpenAI and Anthropic over `fetch` with zod-checked
 * responses (lib/agent/openai-provider.ts, lib/agent/anthropic-provider.ts) — against the same bundle with
 * those two modules swapped for versions on the official SDKs (`openai`, `@anthropic-ai/sdk`;
 * bench/model-sdk/), measured in the cold-start rounds (bench/cold-start.ts). Bedrock is the AWS SDK in
 * either case, bundled like every AWS SDK client (lib/agent/bedrock-sdk.ts) and evaluated on a run's first
 * Bedrock call only.
 *
 * The budget: the bundle budget of every Lambda (test/template/bundles.test.ts), and a cold start in line
 * with the project's other functions (which share its dependencies): an import that costs at most
 * `importCpuRatio` times the CPU time of theirs, as the median over rounds of modelStep's import CPU over the
 * median of the other functions' in the same round. CPU time, not wall time: on a shared machine wall time
 * swings with other processes' load, CPU time hardly moves (both are reported).
 */
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { Plugin } from "esbuild";
import { PROJECT_ROOT } from "#infra/local/stack.ts";
import type { ColdStartBundle, ColdStartResult, ColdStartVariant } from "./cold-start.ts";
import { median } from "./lib/stats.ts";

/** `bytes`: BUNDLE_BUDGET_BYTES of test/template/bundles.test.ts, the budget of every Lambda bundle. */
export const MODEL_STEP_BUDGET = { bytes: 1024 * 1024, importCpuRatio: 1.25 };
export const SDK_VARIANT = "modelStep with the official SDKs";

const SWAPPED = /^\.\/(openai|anthropic)-provider\.ts$/;

/** Resolves lib/agent/providers.ts's imports of the two HTTP providers to their SDK versions. */
const useOfficialSdks: Plugin = {
  name: "model-clients-official-sdks",
  setup(build) {
    build.onResolve({ filter: SWAPPED }, (args) =>
      args.importer.endsWith(join("lib", "agent", "providers.ts"))
        ? { path: join(PROJECT_ROOT, "bench", "model-sdk", basename(args.path)) }
        : undefined,
    );
  },
};

export const MODEL_CLIENT_VARIANTS: ColdStartVariant[] = [
  { name: SDK_VARIANT, function: "modelStep", plugins: [useOfficialSdks] },
];

export interface ModelClientOption {
  name: string;
  bundle: ColdStartBundle;
  /** Median import CPU time (ms). */
  importCpuMs: number;
  /** Import CPU time over the other functions' (see the budget). */
  importCpuRatio: number;
  withinBytes: boolean;
  withinImport: boolean;
}

export interface ModelClientsResult {
  budget: typeof MODEL_STEP_BUDGET;
  sdkVersions: { openai: string; anthropic: string };
  shipped: ModelClientOption;
  officialSdks: ModelClientOption;
  /** Official SDKs over shipped: bytes and import time. */
  bytesRatio: number;
  importRatio: number;
}

export function modelClients(coldStart: ColdStartResult): ModelClientsResult {
  const others = coldStart.functions.filter((fn) => fn.function !== "modelStep");
  if (others.length === 0) throw new Error("cold start measured no function besides modelStep");
  const option = (name: string, bundle: ColdStartBundle | undefined): ModelClientOption => {
    if (!bundle) throw new Error(`cold start measured no ${name}`);
    // Paired by round (the same machine load on all), then the median over rounds.
    const importCpuRatio = median(
      bundle.importCpuSamples.map(
        (cpu, round) => cpu / median(others.map((fn) => fn.importCpuSamples[round] ?? Number.NaN)),
      ),
    );
    return {
      name,
      bundle,
      importCpuMs: median(bundle.importCpuSamples),
      importCpuRatio,
      withinBytes: bundle.bytes <= MODEL_STEP_BUDGET.bytes,
      withinImport: importCpuRatio <= MODEL_STEP_BUDGET.importCpuRatio,
    };
  };
  const shipped = option(
    "modelStep (fetch + zod)",
    coldStart.functions.find((fn) => fn.function === "modelStep"),
  );
  const officialSdks = option(
    SDK_VARIANT,
    coldStart.variants.find((fn) => fn.function === SDK_VARIANT),
  );
  return {
    budget: MODEL_STEP_BUDGET,
    sdkVersions: { openai: versionOf("openai"), anthropic: versionOf("@anthropic-ai/sdk") },
    shipped,
    officialSdks,
    bytesRatio: officialSdks.bundle.bytes / shipped.bundle.bytes,
    importRatio: officialSdks.bundle.importMs / shipped.bundle.importMs,
  };
}

function versionOf(name: string): string {
  const file = join(PROJECT_ROOT, "node_modules", name, "package.json");
  return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
}
