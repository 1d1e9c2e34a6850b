import { defineConfig } from "vitest/config";

/**
 * Files that load the machine on their own and time what they do: the 2,000-run load test and the bench
 * smoke test (cold starts in fresh processes). They run after everything else, one at a time, so that
 * neither they nor the rest measure each other.
 */
const ALONE = ["test/integration/lifecycle-load.test.ts", "test/bench/**/*.test.ts"];

const shared = {
  // Each integration file starts its own local stack (handlers read their configuration at import), so
  // files run in separate processes.
  pool: "forks",
  testTimeout: 30_000,
  hookTimeout: 30_000,
  // The console channel prints every prompt; show output only for failing tests.
  silent: "passed-only",
  env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
} as const;

/**
 * Unit tests start no stack and hold no state between files: they share one worker thread and its module
 * cache (`isolate: false`), where a process per file spent four times their own CPU starting processes and
 * loading the same modules again.
 */
const UNIT = ["test/unit/**/*.test.ts"];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...shared,
          name: "unit",
          include: UNIT,
          pool: "threads",
          isolate: false,
          maxWorkers: 1,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: "suite",
          include: ["test/**/*.test.ts"],
          exclude: [...ALONE, ...UNIT],
          // Most files wait on I/O (HTTP to the local stack, timers, a browser) far more than they compute:
          // on 2 cores, three at a time finish the suite in a fraction of one at a time (vitest's default
          // is one fewer than the cores).
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: "alone",
          include: ALONE,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
