/**
 * The Lambda bundles in the packaged zips: size budget, contents, the AWS SDK left to the runtime, and each
 * bundle loading as the ES module Lambda will import.
 */
import { execFile } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { stateMachineDefinition } from "./cfn.ts";
import {
  type CfnTemplate,
  ensurePackage,
  loadTemplate,
  PACKAGE_DIR,
  type PackagedFunction,
  packagedFunctions,
  ROOT,
} from "./packaged.ts";

/**
 * Unzipped JavaScript per function (source maps not counted). Cold start grows with the code Lambda loads;
 * raise this only with a reason in the commit, never to make a test pass. (It began at 250 KB; after the move
 * to zod/mini every bundle was 86–97 KB, so it came down to 128 KB. Powertools for operability — Logger,
 * Metrics, Parameters and Tracer, whose X-Ray SDK with cls-hooked and semver is ≈ 110 KB of it — brought
 * every bundle to 268–280 KB; `npm run bench` measures what that costs a cold start. 320 KB keeps ~40 KB.)
 */
const BUNDLE_BUDGET_BYTES = 320 * 1024;

const isJs = (name: string) => /\.(m?js|cjs)$/.test(name);

function jsBytes(fn: Pick<PackagedFunction, "entries">): number {
  return fn.entries.filter((entry) => isJs(entry.name)).reduce((sum, entry) => sum + entry.size, 0);
}

/** The bundles over budget, with their sizes. */
function bundleBudgetProblems(sizes: Record<string, number>, budget = BUNDLE_BUDGET_BYTES): string[] {
  return Object.entries(sizes)
    .filter(([, bytes]) => bytes > budget)
    .map(
      ([key, bytes]) =>
        `${key}: ${(bytes / 1024).toFixed(1)} KB of JS, budget ${(budget / 1024).toFixed(0)} KB`,
    );
}

let template: CfnTemplate;
let functions: PackagedFunction[];

beforeAll(async () => {
  await ensurePackage();
  template = loadTemplate();
  functions = packagedFunctions(template);
}, 180_000);

/** `functions/ask.handler` → `functions/ask`. */
const handlerModule = (fn: PackagedFunction) => String(fn.properties.Handler).replace(/\.[^.]+$/, "");
const text = (fn: PackagedFunction, name: string) => {
  const entry = fn.entries.find((e) => e.name === name);
  if (!entry) throw new Error(`${fn.key}.zip has no ${name}`);
  return fn.read(entry).toString("utf8");
};

describe("Lambda bundles", () => {
  it(`stay under ${BUNDLE_BUDGET_BYTES / 1024} KB of unzipped JavaScript each`, () => {
    const sizes = Object.fromEntries(functions.map((fn) => [fn.key, jsBytes(fn)]));
    console.info(
      Object.entries(sizes)
        .map(([key, bytes]) => `${key}: ${(bytes / 1024).toFixed(1)} KB`)
        .join(", "),
    );
    expect(bundleBudgetProblems(sizes)).toEqual([]);
  });

  it("the budget check fails for a bundle that grew past it", () => {
    expect(bundleBudgetProblems({ ask: BUNDLE_BUDGET_BYTES + 1, modelStep: 1000 })).toEqual([
      "ask: 320.0 KB of JS, budget 320 KB",
    ]);
  });

  it("hold one ES module per function and its source map, nothing else", () => {
    for (const fn of functions) {
      const module = handlerModule(fn);
      expect(fn.entries.map((e) => e.name).sort(), fn.key).toEqual([`${module}.mjs`, `${module}.mjs.map`]);
    }
  });

  it("leave the AWS SDK to the Lambda runtime and drop zod's unused locales", () => {
    for (const fn of functions) {
      const module = handlerModule(fn);
      const map = JSON.parse(text(fn, `${module}.mjs.map`)) as { sources: string[] };
      const bundled = map.sources.map((source) => source.replace(/^(\.\.\/)+/, ""));
      expect(
        bundled.filter((s) => s.includes("node_modules/@aws-sdk/")),
        fn.key,
      ).toEqual([]);
      expect(
        bundled.filter((s) => /zod\/v4\/locales\/(?!en\.js|index\.js)/.test(s)),
        fn.key,
      ).toEqual([]);
      expect(bundled, fn.key).toContain(`${module}.ts`);
      // The SDK is imported, not inlined.
      expect(text(fn, `${module}.mjs`)).toMatch(/from\s*"@aws-sdk\/client-dynamodb"/);
    }
  });

  it("keep, after minifying, the error names the state machine catches", () => {
    const caught = Object.values(stateMachineDefinition(template, "AgentStateMachine").States)
      .flatMap((state) => state.Catch ?? [])
      .flatMap((c) => c.ErrorEquals)
      .filter((name) => !name.startsWith("States."));
    const code = functions.map((fn) => text(fn, `${handlerModule(fn)}.mjs`)).join("\n");
    for (const name of new Set(caught)) expect(code, name).toContain(`"${name}"`);
  });

  it("load as ES modules, export their handlers, and refuse bad input with zod's English messages", async () => {
    // Unpacked under the project, so `@aws-sdk/*` resolves from node_modules as it does from the runtime.
    const smoke = join(PACKAGE_DIR, ".smoke");
    rmSync(smoke, { recursive: true, force: true });
    try {
      const files = functions.map((fn) => {
        const name = `${handlerModule(fn)}.mjs`;
        const file = join(smoke, fn.key, name);
        mkdirSync(dirname(file), { recursive: true });
        for (const entry of fn.entries) writeFileSync(join(smoke, fn.key, entry.name), fn.read(entry));
        return file;
      });
      // Each bad event must be refused with zod's English messages: zod/mini loads its locale only through
      // lib/zod.ts, a side effect a bundler drops unless package.json "sideEffects" keeps it.
      const script = `for (const f of ${JSON.stringify(files)}) {
        const m = await import(f);
        if (typeof m.handler !== "function") throw new Error(f + " exports no handler");
        if (!f.includes("/ask/")) continue;
        const message = await m.handler({}, {}).then(() => "accepted", (e) => String(e?.message));
        if (!message.includes("Invalid input: expected")) throw new Error("not zod's English messages: " + message);
      }`;
      const { stderr } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
        cwd: ROOT,
        env: {
          ...process.env,
          HANDRAISE_TABLE: "handraise-smoke",
          AWS_REGION: "us-east-1",
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
        },
      });
      expect(stderr).toBe("");
    } finally {
      rmSync(smoke, { recursive: true, force: true });
    }
  });
});
