/**
 * The time budget of one interaction. Discord drops an interaction whose response has not arrived within
 * 3 s (cold start and network included), so every platform API call made while one is being answered — a
 * `/question` re-post, a stale copy being healed — must finish by a deadline set when the request came in.
 * Some of those calls are made deep inside the shared inbound pipeline: the deadline travels as the platform
 * client's async context (`withPlatformDeadline`).
 */
import { withPlatformDeadline } from "../platform-http.ts";

export interface InteractionScope {
  /** `performance.now()` by which every Discord API call of this interaction must have finished. */
  deadline: number;
}

export function withinInteraction<T>(scope: InteractionScope, run: () => Promise<T>): Promise<T> {
  // The platform client keeps epoch ms; the webhook measures its budget on the monotonic clock.
  const deadlineMs = Date.now() + Math.floor(scope.deadline - performance.now());
  return withPlatformDeadline(deadlineMs, run, "to answer the interaction");
}
