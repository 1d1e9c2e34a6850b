import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that take longest, started first. Without a record of earlier runs (a clean checkout, as in CI)
 * vitest starts the largest files first, and the 2,000-run load test, a short file, would start last and
 * keep the run going alone for a minute and a half after everything else.
 */
const START_FIRST = [
  "test/integration/lifecycle-load.test.ts",
  "test/e2e/scripts.test.ts",
  "test/integration/answer-page.test.ts",
  "test/template/template.test.ts",
  "test/bench/bench-smoke.test.ts",
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const at = START_FIRST.findIndex((path) => file.moduleId.endsWith(`/${path}`));
      return at === -1 ? START_FIRST.length : at;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

const shared = {
  // Each integration file starts its own local stack (handlers read their configuration at import), so
  // files run in separate processes.
  pool: "forks",
  testTimeout: 30_000,
  hookTimeout: 30_000,
  // The console channel prints every prompt; show output only for failing tests.
  silent: "passed-only",
  env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
  // Most files wait on I/O (HTTP to the local stack, timers, a browser) far more than they compute: on 2
  // cores, three at a time finish the suite in a fraction of one at a time (vitest's default is one fewer
  // than the cores). The 2,000-run load test and the bench smoke test run among the others: neither judges
  // a timing, and every test here is written to pass on a loaded machine.
  maxWorkers: 3,
} as const;

/**
 * Unit tests start no stack and hold no state between files: they share worker threads and their module
 * cache (`isolate: false`), where a process per file spent four times their own CPU starting processes and
 * loading the same modules again. Both projects run in one group, so they share its three workers.
 */
const UNIT = ["test/unit/**/*.test.ts"];

export default defineConfig({
  test: {
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        test: { ...shared, name: "unit", include: UNIT, pool: "threads", isolate: false },
      },
      {
        test: { ...shared, name: "suite", include: ["test/**/*.test.ts"], exclude: UNIT },
      },
    ],
  },
});
