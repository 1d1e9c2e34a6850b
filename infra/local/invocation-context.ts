/**
 * Which local Lambda invocation the running code belongs to. The HTTP gateway runs each handler inside
 * `invocationContext.run(...)`, so anything the handler does — including the HTTP requests its SDK clients
 * and `fetch` send — can ask `invocationContext.getStore()` whose it is. The benchmark uses it to count the
 * round trips one request makes (bench/lib/round-trips.ts) apart from the work the resumed run does at the
 * same time in this process.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export interface Invocation {
  /** `handraise-local-<function key>`. */
  functionName: string;
  /** Increases with every invocation this process makes. */
  sequence: number;
  /** `performance.now()` when the handler was called, and when it returned (unset while it runs). */
  startedAt: number;
  endedAt?: number;
}

export const invocationContext = new AsyncLocalStorage<Invocation>();

let sequence = 0;

/** Runs `work` as one invocation of `functionName`. */
export async function asInvocation<T>(functionName: string, work: () => Promise<T>): Promise<T> {
  const invocation: Invocation = { functionName, sequence: ++sequence, startedAt: performance.now() };
  try {
    return await invocationContext.run(invocation, work);
  } finally {
    invocation.endedAt = performance.now();
  }
}
