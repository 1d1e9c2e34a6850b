/**
 * Runs a document's runnable examples the way a reader does: one after another in one shell (`bash`, with
 * `set -euo pipefail`), so a variable one block sets is there in the next. The shell gets only PATH, HOME,
 * the locale and the variables given (`HANDRAISE_URL`, …), in a directory of its own.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CodeBlock } from "./markdown.ts";

export type ExamplesResult =
  | { ok: true; output: string }
  | { ok: false; failed: CodeBlock; reason: string; output: string };

/** Where the shell reports which block it is in: a file descriptor of its own, apart from the output. */
const PROGRESS_FD = 3;

export async function runExamples(
  blocks: readonly CodeBlock[],
  variables: Record<string, string>,
  { timeoutMs = 20_000 } = {},
): Promise<ExamplesResult> {
  const first = blocks[0];
  if (!first) return { ok: true, output: "" };
  const script = [
    "set -euo pipefail",
    ...blocks.flatMap((block, index) => [`echo ${index} >&${PROGRESS_FD}`, block.code]),
    `echo done >&${PROGRESS_FD}`,
  ].join("\n");
  const cwd = mkdtempSync(join(tmpdir(), "handraise-docs-"));
  const child = spawn("bash", ["-c", script], {
    cwd,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? cwd,
      LANG: "C.UTF-8",
      ...variables,
    },
    stdio: ["ignore", "pipe", "pipe", "pipe"],
    // Its own process group, so a timeout stops everything the examples started.
    detached: true,
  });
  let output = "";
  let progress = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  (child.stdio[PROGRESS_FD] as NodeJS.ReadableStream | null)?.on("data", (chunk: Buffer) => {
    progress += chunk.toString();
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    if (child.pid) process.kill(-child.pid, "SIGKILL");
  }, timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  clearTimeout(timer);
  rmSync(cwd, { recursive: true, force: true });

  const reported = progress.trim().split("\n");
  if (code === 0 && !timedOut && reported.at(-1) === "done") return { ok: true, output };
  const index = Number(reported.filter((line) => line !== "done").at(-1) ?? 0);
  return {
    ok: false,
    failed: blocks[index] ?? first,
    reason: timedOut ? `still running after ${timeoutMs} ms` : `exit code ${code}`,
    output,
  };
}
