/**
 * What a command-line script (npm run ask, npm run doctor) gets from its process, injectable so a test can run
 * it in process: its arguments and environment, its two streams, Ctrl-C, and the clock.
 */
import { setTimeout as delay } from "node:timers/promises";

export interface ScriptIo {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  /** What the script answers (JSON, check lines). */
  stdout: (text: string) => void;
  /** Problems with the arguments, and progress for the person watching. */
  stderr: (text: string) => void;
  /** Aborted with the signal's name (`SIGINT`, `SIGTERM`) when the process is asked to stop. */
  interrupt?: AbortSignal;
  fetch?: typeof fetch;
  /** Resolves after `ms`, or early (without throwing) when `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  now?: () => number;
}

/** The default `sleep`: `ms`, or less when `signal` aborts first. */
export async function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  await delay(ms, undefined, { signal }).catch(() => undefined);
}
