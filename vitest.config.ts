import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Each integration file starts its own local stack (handlers read their configuration at import), so
    // files run in separate processes.
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The console channel prints every prompt; show output only for failing tests.
    silent: "passed-only",
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
  },
});
