import { StandardRetryStrategy } from "@smithy/core/retry";

/** The SDK's standard strategy with `maxAttempts` and no wait between attempts: retries without a clock. */
export const noWaitRetries = (maxAttempts = 3) =>
  new StandardRetryStrategy({
    maxAttempts,
    baseDelay: 0,
    backoff: { computeNextBackoffDelay: () => 0, setDelayBase: () => undefined },
  });
