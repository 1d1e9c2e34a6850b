/**
 * Lets one serverless.yml serve both Serverless v4 and osls (the open-source v3 line).
 *
 * Serverless v4 bundles TypeScript handlers with its own esbuild unless `build: { esbuild: false }` is set,
 * and that built-in build conflicts with serverless-esbuild. osls does not know the top-level `build` key
 * and refuses the file. This plugin declares the key for osls (v4 declares it already, so there it does
 * nothing); osls ignores the value.
 */
"use strict";

class ServerlessV4BuildKey {
  constructor(serverless) {
    const schemaHandler = serverless.configSchemaHandler;
    if (schemaHandler && !schemaHandler.schema?.properties?.build) {
      schemaHandler.defineTopLevelProperty("build", {
        type: "object",
        properties: { esbuild: { const: false } },
        additionalProperties: false,
      });
    }
  }
}

module.exports = ServerlessV4BuildKey;
