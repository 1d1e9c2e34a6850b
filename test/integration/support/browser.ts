/**
 * A real browser for the answer page's tests: Debian's `chromium`, driven by playwright-core (Playwright's
 * own browser download is not used). Each launch gets a fresh, temporary `--user-data-dir` from Playwright,
 * so no cookie, cache or storage carries over between test files.
 *
 * Without chromium the tests fail, naming what to install: a browser test that skips would let the page
 * break unnoticed.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { PROJECT_ROOT } from "#infra/local/stack.ts";

export const CHROMIUM = "/usr/bin/chromium";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Screenshots for people to look at (gitignored). */
export const ARTIFACTS_DIR = join(PROJECT_ROOT, "test", "artifacts");

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `The browser tests need Debian's chromium at ${CHROMIUM}: install it with ` +
        "`apt-get update && apt-get install -y chromium` (.ci/run does this in CI).",
    );
  }
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 60_000 });
}
