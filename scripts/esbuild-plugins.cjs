/**
 * esbuild plugins for the Lambda bundles (serverless.yml `custom.esbuild.plugins`).
 *
 * zod re-exports every one of its ~45 message locales (`z.locales`), and because the code uses `z` as a
 * value (`z.object(...)`), tree shaking cannot drop them: they are over half of each bundle. Handraise only
 * uses zod's default English messages, so the locale index is replaced by one that exports `en` alone.
 * test/template/bundles.test.ts holds every bundle to its size budget.
 */
"use strict";

const zodEnglishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: 'export { default as en } from "./en.js";\n',
      loader: "js",
    }));
  },
};

module.exports = [zodEnglishOnly];
