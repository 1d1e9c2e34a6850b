/**
 * esbuild plugins for the Lambda bundles (serverless.yml `custom.esbuild.plugins`).
 *
 * zod re-exports every one of its ~45 message locales (`z.locales`), and because the code uses `z` as a
 * value (`z.object(...)`), tree shaking cannot drop them: they are over half of each bundle. Handraise words
 * its messages itself (lib/validation-messages.ts, installed by lib/zod.ts), so the locale index is replaced
 * by an empty one (zod's classic API, which the MCP SDK uses, imports its English file directly).
 * test/template/bundles.test.ts holds every bundle to its size budget.
 */
"use strict";

const zodWithoutLocales = {
  name: "zod-without-locales",
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: "export {};\n",
      loader: "js",
    }));
  },
};

/**
 * The MCP SDK's server builds an ajv JSON Schema validator (≈ 130 KB with its formats) unless given one; it
 * only checks tool output and elicitation schemas, which Handraise's server declares none of, and
 * lib/mcp/mcp-http.ts passes its own. The default is replaced by a stand-in that refuses to be used.
 */
const mcpWithoutAjv = {
  name: "mcp-without-ajv",
  setup(build) {
    build.onLoad(
      { filter: /@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]validation[\\/]ajv-provider\.js$/ },
      () => ({
        contents:
          'export class AjvJsonSchemaValidator { getValidator() { throw new Error("no JSON Schema validator in this bundle"); } }\n',
        loader: "js",
      }),
    );
  },
};

/**
 * An AWS SDK client's schemas (`dist-es/schemas/schemas_0.js`) describe every operation of its API, each as
 * an array whose HTTP binding is an object with a computed key (`{ [_h]: ["POST", "/path", 200] }`, `_h`
 * being `const _h = "http"` of the same file). A computed key might run code, so esbuild keeps every such
 * statement, and with it the shapes of every operation the function never calls: about 50 KB of the Lambda
 * client's schemas for its three callback commands. Writing each key whose name is a string constant of
 * the file as that string (`{ "http": … }`) changes nothing at run time and lets tree shaking drop them.
 */
const sdkSchemasWithLiteralKeys = {
  name: "sdk-schemas-with-literal-keys",
  setup(build) {
    const { readFile } = require("node:fs/promises");
    build.onLoad({ filter: /[\\/]@aws-sdk[\\/].+[\\/]schemas[\\/]schemas_\d+\.js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const strings = new Map();
      for (const [, name, literal] of source.matchAll(/^const (_\w+) = ("(?:[^"\\\n]|\\.)*");$/gm)) {
        strings.set(name, literal);
      }
      return {
        contents: source.replace(/\[(_\w+)\]:/g, (key, name) =>
          strings.has(name) ? `${strings.get(name)}:` : key,
        ),
        loader: "js",
      };
    });
  },
};

/**
 * The durable execution SDK (the durable agent's) loads the Lambda client with `import("@aws-sdk/client-lambda")`.
 * A dynamic import hands over the package's whole namespace, so esbuild keeps every command, paginator and
 * waiter of Lambda's API (≈ 90 KB, parsed at every start). That import is answered here by a module exporting
 * only what the SDK reads from it (`module.LambdaClient`, `module.<Command>`, found in its source), each from
 * its own file of the client: a name the SDK starts to use is found the same way, and one without such a file
 * fails the build rather than the run.
 */
const durableSdkLambdaParts = {
  name: "durable-sdk-lambda-parts",
  setup(build) {
    // With the SDK left out of the bundle (the benchmark's other build), the package is loaded whole anyway,
    // and its files could not be imported one by one (their own imports name no extensions).
    const external = build.initialOptions.external ?? [];
    if (external.some((pattern) => ["*", "@aws-sdk/*", "@aws-sdk/client-lambda"].includes(pattern))) return;
    const { readFile } = require("node:fs/promises");
    const durableSdk = /[\\/]@aws[\\/]durable-execution-sdk-js[\\/]/;
    build.onResolve({ filter: /^@aws-sdk\/client-lambda$/ }, (args) =>
      args.kind === "dynamic-import" && durableSdk.test(args.importer)
        ? { path: args.importer, namespace: "durable-sdk-lambda-parts" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "durable-sdk-lambda-parts" }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const names = [...new Set([...source.matchAll(/\bmodule\.([A-Z]\w*)/g)].map((match) => match[1]))];
      if (!names.includes("LambdaClient")) throw new Error(`${args.path} no longer builds LambdaClient`);
      const file = (name) => (name === "LambdaClient" ? "LambdaClient.js" : `commands/${name}.js`);
      return {
        contents: names
          .map((name) => `export { ${name} } from "@aws-sdk/client-lambda/dist-es/${file(name)}";`)
          .join("\n"),
        loader: "js",
        resolveDir: require("node:path").dirname(args.path),
      };
    });
  },
};

/**
 * Middy imports `ReadableStream` from `node:stream/web` at its top for one check of a streamed response
 * (`streamifyResponse`), which no Handraise handler uses; the import makes Node compile its whole web-streams
 * implementation at every start. The check reads Node's global `ReadableStream` instead — the same class,
 * which Node loads only when it is first read. A Middy whose file no longer has that import or that check
 * fails the build, so the plugin is looked at again rather than silently left doing nothing.
 */
const middyWithoutEagerWebStreams = {
  name: "middy-without-eager-web-streams",
  setup(build) {
    const { readFile } = require("node:fs/promises");
    build.onLoad({ filter: /[\\/]@middy[\\/]core[\\/]index\.js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const importLine = 'import { ReadableStream } from "node:stream/web";\n';
      const check = "instanceof ReadableStream";
      if (!source.includes(importLine) || !source.includes(check)) {
        throw new Error(`${args.path} no longer imports ReadableStream for its streamed-response check`);
      }
      return {
        contents: source.replace(importLine, "").replaceAll(check, "instanceof globalThis.ReadableStream"),
        loader: "js",
      };
    });
  },
};

module.exports = [
  zodWithoutLocales,
  mcpWithoutAjv,
  sdkSchemasWithLiteralKeys,
  durableSdkLambdaParts,
  middyWithoutEagerWebStreams,
];
