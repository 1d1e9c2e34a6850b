import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Integration suites share one local stack per file; keep files in separate workers.
    pool: "forks",
    testTimeout: 20_000,
  },
});
