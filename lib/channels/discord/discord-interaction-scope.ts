/**
 * The time budget of one interaction. Discord drops an interaction whose response has not arrived within
 * 3 s (cold start and network included), so every Discord API call made while one is being answered — a
 * `/question` re-post, a stale copy being healed — must finish by a deadline set when the request came in.
 * Some of those calls are made deep inside the shared inbound pipeline; an AsyncLocalStorage scope carries
 * the deadline there without widening any shared interface, and keeps concurrent requests in one process
 * (the local stack) apart.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { PLATFORM_CALL_TIMEOUT_MS } from "../platform-api-error.ts";

export interface InteractionScope {
  /** `performance.now()` by which every Discord API call of this interaction must have finished. */
  deadline: number;
}

const storage = new AsyncLocalStorage<InteractionScope>();

export function withinInteraction<T>(scope: InteractionScope, run: () => Promise<T>): Promise<T> {
  return storage.run(scope, run);
}

/**
 * How long the next Discord API call may take: PLATFORM_CALL_TIMEOUT_MS, cut to what is left of the current
 * interaction's budget. 0 when the budget is spent (the call is not made).
 */
export function callTimeoutMs(): number {
  const scope = storage.getStore();
  if (!scope) return PLATFORM_CALL_TIMEOUT_MS;
  return Math.max(0, Math.min(PLATFORM_CALL_TIMEOUT_MS, Math.floor(scope.deadline - performance.now())));
}
