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

module.exports = [zodWithoutLocales, mcpWithoutAjv];
