/**
 * The Lambda bundles in the packaged zips: size budget, contents, the AWS SDK inside each bundle, and each
 * bundle loading as the ES module Lambda will import, with no node_modules in reach.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { CHANNEL_SPECS } from "#lib/channels/channel-specs.ts";
import { stateMachineDefinition } from "./cfn.ts";
import {
  ALL_ON,
  type CfnTemplate,
  ensurePackage,
  loadTemplate,
  PACKAGE_TIMEOUT_MS,
  type PackagedFunction,
  packagedFunctions,
  packagedVariant,
} from "./packaged.ts";

/**
 * Unzipped JavaScript per function (source maps not counted). Cold start grows with the code Lambda loads;
 * raise this only with a reason in the commit, never to make a test pass. (It began at 250 KB; after the move
 * to zod/mini every bundle was 86–97 KB, so it came down to 128 KB. Powertools for operability — Logger,
 * Metrics, Parameters and Tracer, whose X-Ray SDK with cls-hooked and semver is ≈ 110 KB of it — brought
 * every bundle to 268–280 KB; `npm run bench` measures what that costs a cold start. 320 KB kept ~40 KB.
 * Then issue #17 moved the AWS SDK clients into every bundle: the runtime's SDK loaded from node_modules made
 * each function ready in about twice the time of the same function with the SDK bundled (docs/benchmarks.md,
 * row 4), and the SDK inside is ≈ 560 KB of every bundle (the DynamoDB and Step Functions clients alone are
 * 345 KB). With it, the bundles are 795–971 KB; 1,024 KB keeps ~50 KB over the largest, durableAgent, which
 * only `--param="durable=on"` builds. The e-mail channel's SES client (≈ 62 KB, most of it the schemas of
 * every SES operation, which the SDK cannot drop) then took every delivering function up by that much; the
 * stream consumer's and each handler's own use cases moved out of the shared wiring, and the durable agent,
 * which alone carries the durable execution SDK, had a budget of its own for a while. Since
 * scripts/esbuild-plugins.cjs lets esbuild drop the schemas of the SDK operations no function calls and hands
 * the durable SDK only the Lambda client's parts it uses, and the shared wiring no longer imports the durable
 * SDK, every bundle is back under the one budget: the others 733–844 KB, the durable agent about 890 KB.)
 */
const BUNDLE_BUDGET_BYTES = 1024 * 1024;

/** Functions that call no AWS service (the API's description is built from schemas): no SDK client at all. */
const NO_AWS_CLIENT = new Set(["openApi"]);
/** The functions that build no Step Functions client. */
const NO_STEP_FUNCTIONS = new Set([...NO_AWS_CLIENT, "modelStep", "notifier"]);

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

/**
 * The packages a bundle imports statically (`import … from "x"`), Node's built-ins left out: each one would
 * have to come from a node_modules the zip does not have. (The SDK's optional `require("@aws-sdk/signature-v4-crt")`,
 * inside a try, is not a static import; without it the SDK signs SigV4 as always.)
 */
function importedPackages(code: string): string[] {
  const builtins = new Set(builtinModules);
  // An import or export statement, minified or not (`import{a as b}from"x"`, `import"x"`, `export*from"x"`):
  // not any `from"…"` that minified data happens to hold.
  const statements = /(?:^|[;\n}])\s*(?:import|export)\s*(?:[\w$*{},\s]*?\bfrom\s*)?"([^"]+)"/g;
  const specifiers = [...code.matchAll(statements)].map((match) => match[1] ?? "");
  return [...new Set(specifiers)].filter((name) => !name.startsWith("node:") && !builtins.has(name));
}

/** The parts of the Lambda client that only its whole namespace brings: the aggregated client, paginators, waiters. */
const wholeLambdaClient = (sources: string[]) =>
  sources.filter((s) =>
    /node_modules\/@aws-sdk\/client-lambda\/dist-es\/(Lambda\.js|waiters|pagination)/.test(s),
  );

let template: CfnTemplate;
let functions: PackagedFunction[];

beforeAll(async () => {
  await ensurePackage();
  template = loadTemplate();
  functions = packagedFunctions(template);
}, PACKAGE_TIMEOUT_MS);

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

  it(
    "the durable agent's within the same budget, built only with --param=durable=on (the largest bundle)",
    async () => {
      const dir = await packagedVariant(ALL_ON);
      const [durableAgent] = packagedFunctions(loadTemplate(dir), dir).filter(
        (fn) => fn.key === "durableAgent",
      );
      if (!durableAgent) throw new Error("the durable=on package has no durableAgent bundle");
      console.info(`durableAgent: ${(jsBytes(durableAgent) / 1024).toFixed(1)} KB`);
      expect(bundleBudgetProblems({ durableAgent: jsBytes(durableAgent) })).toEqual([]);
      // The durable execution SDK's import() of the Lambda client gets only the parts it uses
      // (scripts/esbuild-plugins.cjs), not every command, paginator and waiter.
      const map = JSON.parse(text(durableAgent, `${handlerModule(durableAgent)}.mjs.map`)) as {
        sources: string[];
      };
      expect(wholeLambdaClient(map.sources)).toEqual([]);
      // Its tool's JSON Schema is data (npm run generate:schemas), not converted by zod at init.
      expect(map.sources.filter((s) => s.endsWith("node_modules/zod/v4/core/to-json-schema.js"))).toEqual([]);
    },
    PACKAGE_TIMEOUT_MS,
  );

  it("the budget check fails for a bundle that grew past it", () => {
    expect(bundleBudgetProblems({ ask: BUNDLE_BUDGET_BYTES + 1, modelStep: 1000 })).toEqual([
      "ask: 1024.0 KB of JS, budget 1024 KB",
    ]);
  });

  it("hold one ES module per function and its source map, nothing else", () => {
    for (const fn of functions) {
      const module = handlerModule(fn);
      expect(fn.entries.map((e) => e.name).sort(), fn.key).toEqual([`${module}.mjs`, `${module}.mjs.map`]);
    }
  });

  it("carry the AWS SDK inside, import nothing but Node's built-ins, and drop zod's unused locales", () => {
    for (const fn of functions) {
      const module = handlerModule(fn);
      const map = JSON.parse(text(fn, `${module}.mjs.map`)) as { sources: string[] };
      const bundled = map.sources.map((source) => source.replace(/^(\.\.\/)+/, ""));
      const sdk = bundled.filter((s) => s.includes("node_modules/@aws-sdk/client-dynamodb/"));
      if (NO_AWS_CLIENT.has(fn.key)) {
        expect(
          bundled.filter((s) => s.includes("node_modules/@aws-sdk/")),
          fn.key,
        ).toEqual([]);
      } else {
        // Every other function builds a DynamoDB client (the question store); its code is in the bundle.
        expect(sdk, fn.key).not.toEqual([]);
      }
      expect(importedPackages(text(fn, `${module}.mjs`)), fn.key).toEqual([]);
      expect(
        bundled.filter((s) => /zod\/v4\/locales\/(?!en\.js|index\.js)/.test(s)),
        fn.key,
      ).toEqual([]);
      expect(bundled, fn.key).toContain(`${module}.ts`);
    }
  });

  it("carry none of the packages only tests use (the platforms' validators of the size tests)", () => {
    for (const fn of functions) {
      const map = JSON.parse(text(fn, `${handlerModule(fn)}.mjs.map`)) as { sources: string[] };
      expect(
        map.sources.filter((s) => /node_modules\/(@discordjs|adaptivecards|discord-api-types)\//.test(s)),
        fn.key,
      ).toEqual([]);
    }
  });

  it("carry only the channels they serve: a webhook its own platform, the answer page none, delivering functions all", () => {
    /** Per channel folder, the files of it a bundle carries beyond its spec (name, settings, secrets). */
    const platformCode = (fn: PackagedFunction) => {
      const map = JSON.parse(text(fn, `${handlerModule(fn)}.mjs.map`)) as { sources: string[] };
      const code: Record<string, string[]> = {};
      for (const source of map.sources) {
        const [, channel, file] = /(?:^|\/)lib\/channels\/([^/]+)\/([^/]+)$/.exec(source) ?? [];
        if (channel === undefined || file === undefined) continue;
        if (file === "manifest.json" || file === `${channel}-spec.ts`) continue;
        code[channel] = [...(code[channel] ?? []), file];
      }
      return code;
    };
    const byKey = new Map(functions.map((fn) => [fn.key, fn]));
    const bundle = (key: string) => {
      const fn = byKey.get(key);
      if (!fn) throw new Error(`no ${key} bundle`);
      return fn;
    };
    for (const spec of CHANNEL_SPECS) {
      const webhook = spec.manifest.webhook;
      if (webhook === undefined) continue;
      expect(Object.keys(platformCode(bundle(webhook))), webhook).toEqual([spec.name]);
    }
    expect(platformCode(bundle("answerPage"))).toEqual({});
    for (const key of ["ask", "questionsApi", "mcp", "questionTimer", "questionEvents"]) {
      const code = platformCode(bundle(key));
      expect(Object.keys(code).sort(), key).toEqual(CHANNEL_SPECS.map((spec) => spec.name).sort());
      // Delivering needs each platform's client and channel, never its webhook.
      for (const [channel, files] of Object.entries(code)) {
        expect(files, `${key}: ${channel}`).toContain(`${channel}-channel.ts`);
        expect(files, `${key}: ${channel}`).not.toContain(`${channel}-webhook.ts`);
      }
    }
  });

  it("carry only what their function runs: no SSM client, no Lambda client but the durable agent's, the asker where asked", () => {
    const askers = new Set(["questionsApi", "ask", "mcp", "durableAgent"]);
    for (const fn of functions) {
      const module = handlerModule(fn);
      const sources = (JSON.parse(text(fn, `${module}.mjs.map`)) as { sources: string[] }).sources;
      const code = text(fn, `${module}.mjs`);
      expect(wholeLambdaClient(sources), fn.key).toEqual([]);
      // Secrets are read through lib/secrets/ssm-parameter-provider.ts, and durable callbacks completed through
      // lib/callbacks/durable-callbacks.ts, on the SDK parts DynamoDB's client brings.
      expect(
        sources.filter((s) => /node_modules\/@aws-sdk\/client-ssm\/|parameters\/lib\/esm\/ssm\//.test(s)),
        fn.key,
      ).toEqual([]);
      if (fn.key !== "durableAgent") {
        expect(
          sources.filter((s) => /node_modules\/@aws-sdk\/client-lambda\//.test(s)),
          fn.key,
        ).toEqual([]);
        // Only the durable agent needs the durable execution SDK.
        expect(
          sources.filter((s) => /node_modules\/@aws\/durable-execution-sdk-js\//.test(s)),
          fn.key,
        ).toEqual([]);
        // scripts/esbuild-plugins.cjs: the schemas of operations no function calls are dropped (ListAliases').
        expect(code, fn.key).not.toContain("/2015-03-31/functions/{FunctionName}/aliases");
      }
      // scripts/esbuild-plugins.cjs: Middy's streamed-response check no longer loads Node's web streams at start.
      expect(code, fn.key).not.toMatch(/from\s*"node:stream\/web"/);
      expect(
        sources.some((s) => s.endsWith("lib/app/ask-question.ts")),
        fn.key,
      ).toBe(askers.has(fn.key));
      // The stored record's schema, with its descriptions, is read by the OpenAPI description alone.
      expect(code.includes("Who may answer, platform-qualified"), fn.key).toBe(fn.key === "openApi");
      // The model step and the notifier never complete a run's waiter (createBaseServices): no Step Functions
      // client is built at their start, nor bundled.
      expect(
        sources.some((s) => s.includes("node_modules/@aws-sdk/client-sfn/")),
        fn.key,
      ).toBe(!NO_STEP_FUNCTIONS.has(fn.key));
      // The tools' JSON Schemas are data (npm run generate:schemas): zod's converter comes only with the OpenAPI
      // description, which converts at init, and with the MCP SDK, which imports it.
      expect(
        sources.some((s) => s.endsWith("node_modules/zod/v4/core/to-json-schema.js")),
        fn.key,
      ).toBe(fn.key === "openApi" || fn.key === "mcp");
    }
  });

  it("the import check names a package a bundle would load from node_modules", () => {
    const code =
      'import{a}from"node:fs";import{b}from"crypto";import{DynamoDBClient as c}from"@aws-sdk/client-dynamodb";';
    expect(importedPackages(code)).toEqual(["@aws-sdk/client-dynamodb"]);
  });

  it("keep, after minifying, the error names the state machine catches", () => {
    const caught = Object.values(stateMachineDefinition(template, "AgentStateMachine").States)
      .flatMap((state) => state.Catch ?? [])
      .flatMap((c) => c.ErrorEquals)
      .filter((name) => !name.startsWith("States."));
    const code = functions.map((fn) => text(fn, `${handlerModule(fn)}.mjs`)).join("\n");
    for (const name of new Set(caught)) expect(code, name).toContain(`"${name}"`);
  });

  it("load as ES modules, export their handlers, and refuse bad input by name, in Handraise's sentences", async () => {
    // Unpacked outside the project, where no node_modules is in reach: a package left out of a bundle fails
    // the import here as it would on Lambda.
    const smoke = mkdtempSync(join(tmpdir(), "handraise-bundles-"));
    try {
      const files = functions.map((fn) => {
        const name = `${handlerModule(fn)}.mjs`;
        const file = join(smoke, fn.key, name);
        mkdirSync(dirname(file), { recursive: true });
        for (const entry of fn.entries) writeFileSync(join(smoke, fn.key, entry.name), fn.read(entry));
        return file;
      });
      // A bad event must be refused as Handraise.InvalidInput in Handraise's sentences: zod/mini takes them
      // only through lib/zod.ts, a side effect a bundler drops unless package.json "sideEffects" keeps it
      // (without it, every message would be "Invalid input").
      const script = `for (const f of ${JSON.stringify(files)}) {
        const m = await import(f);
        if (typeof m.handler !== "function") throw new Error(f + " exports no handler");
        if (!f.includes("/ask/")) continue;
        const refused = await m.handler({}, {}).then(() => "accepted", (e) => e?.name + ": " + e?.message);
        if (!refused.startsWith("Handraise.InvalidInput: Invalid AskUser task input: taskToken is required")) {
          throw new Error("not refused in Handraise's sentences: " + refused);
        }
      }`;
      const { stderr } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
        cwd: smoke,
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
    // Evaluating sixteen bundles, most of ~900 KB, in one process takes seconds, many more on a loaded machine.
  }, 180_000);
});
