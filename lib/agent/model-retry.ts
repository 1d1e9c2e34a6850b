/**
 * Retries of one model call: 429s, 5xx, time-outs and lost connections are tried again with exponential
 * backoff (or after the provider's `retry-after`), as long as the model step's own time allows; anything
 * else, or a fault that is still there after the last attempt, ends the call with a ModelError whose message
 * says what happened. Provider text goes into it only through `redact`.
 */

import { retryAfterValueMs } from "../http/outbound.ts";
import { ModelError } from "./model-error.ts";

export interface RetryPolicy {
  /** Attempts per model call, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 8_000 };

/** An attempt shorter than this is not worth starting: the step gives up instead. */
export const MIN_ATTEMPT_MS = 1_000;

/** One failed attempt as an adapter read it: what went wrong, and whether trying again may help. */
export class ProviderFault extends Error {
  constructor(
    readonly summary: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
    readonly status?: number,
  ) {
    super(summary);
  }
}

/** What is logged before each retry: no request, no response body, no key. */
export interface RetryInfo {
  provider: string;
  attempt: number;
  delayMs: number;
  status?: number;
  reason: string;
}

export interface RetryDeps {
  now(): number;
  sleep(ms: number): Promise<void>;
  /** In [0, 1): the jitter of the backoff. */
  random(): number;
  policy?: RetryPolicy;
  onRetry?(info: RetryInfo): void;
}

export interface RetryCall {
  /** The provider, for logs (`openai`). */
  provider: string;
  /** Who failed, for the error message (`openai gpt-4o at api.openai.com`). */
  label: string;
  deadlineMs: number;
  /** The longest one attempt may take. */
  requestTimeoutMs: number;
  /** Removes anything secret from provider text before it is logged or thrown. */
  redact(text: string): string;
}

/**
 * Runs `attempt` (given its time-out in ms) until it succeeds, fails for good, or the step's time is up.
 *
 * @throws ModelError with a readable message once no further attempt is allowed.
 */
export async function withRetries<T>(
  call: RetryCall,
  deps: RetryDeps,
  attempt: (timeoutMs: number) => Promise<T>,
): Promise<T> {
  const policy = deps.policy ?? DEFAULT_RETRY_POLICY;
  for (let n = 1; ; n++) {
    const remaining = call.deadlineMs - deps.now();
    if (remaining < MIN_ATTEMPT_MS) {
      throw new ModelError(`${call.label}: this model step has no time left for another attempt.`);
    }
    try {
      return await attempt(Math.min(call.requestTimeoutMs, remaining));
    } catch (error) {
      if (!(error instanceof ProviderFault)) throw error;
      const reason = call.redact(error.summary);
      if (!error.retryable) throw new ModelError(`${call.label} failed: ${reason}`);
      if (n >= policy.maxAttempts) {
        throw new ModelError(`${call.label} failed ${n} times in a row; the last time: ${reason}`);
      }
      const delayMs = error.retryAfterMs ?? backoffMs(n, policy, deps.random());
      if (call.deadlineMs - deps.now() - delayMs < MIN_ATTEMPT_MS) {
        const wait =
          error.retryAfterMs === undefined
            ? "the next attempt would start"
            : `it asks to wait ${seconds(delayMs)}, which ends`;
        throw new ModelError(
          `${call.label} failed (${reason}) and ${wait} after this model step's time is up (attempt ${n}).`,
        );
      }
      deps.onRetry?.({
        provider: call.provider,
        attempt: n,
        delayMs,
        ...(error.status !== undefined && { status: error.status }),
        reason,
      });
      await deps.sleep(delayMs);
    }
  }
}

/** Exponential with "equal jitter": half the doubled delay for sure, the other half at random. */
export function backoffMs(attempt: number, policy: RetryPolicy, random: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (random * ceiling) / 2);
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/**
 * The wait a response asks for: `retry-after-ms` (OpenAI), else `retry-after` in seconds or as an HTTP date.
 * Undefined when absent or unreadable.
 */
export function retryAfterMs(
  header: (name: string) => string | null | undefined,
  nowMs: number,
): number | undefined {
  const ms = Number.parseFloat(header("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return Math.ceil(ms);
  return retryAfterValueMs(header("retry-after"), nowMs);
}

/**
 * Whether a failed HTTP response is worth trying again: the provider's own `x-should-retry` when it sends
 * one (OpenAI and Anthropic do), else 408, 409, 429 and every 5xx (Anthropic's 529 "overloaded" included).
 */
export function isRetryableStatus(status: number, shouldRetry: string | null | undefined): boolean {
  if (shouldRetry === "true") return true;
  if (shouldRetry === "false") return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}
