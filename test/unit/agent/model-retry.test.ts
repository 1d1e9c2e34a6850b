/**
 * withRetries: what is retried (429, 5xx, time-outs), how long it waits (retry-after, exponential backoff
 * with jitter), when it gives up (attempts, the step's deadline), and that nothing secret reaches a message.
 */
import { describe, expect, it } from "vitest";
import { ModelError, redactSecret, StepLimitError } from "#lib/agent/model-error.ts";
import {
  backoffMs,
  DEFAULT_RETRY_POLICY,
  isRetryableStatus,
  ProviderFault,
  type RetryInfo,
  retryAfterMs,
  withRetries,
} from "#lib/agent/model-retry.ts";

const KEY = "sk-test-0123456789abcdefghij";

/** A clock that sleeping moves forward, and the retry deps around it. */
function fakeTime(random = 0.5) {
  let t = 1_000_000;
  const sleeps: number[] = [];
  const retries: RetryInfo[] = [];
  return {
    sleeps,
    retries,
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
    deps: {
      now: () => t,
      sleep: async (ms: number) => {
        sleeps.push(ms);
        t += ms;
      },
      random: () => random,
      onRetry: (info: RetryInfo) => retries.push(info),
    },
  };
}

function call(time: { now(): number }, overrides: Partial<Parameters<typeof withRetries>[0]> = {}) {
  return {
    provider: "openai",
    label: "openai gpt-test at api.openai.com",
    deadlineMs: time.now() + 55_000,
    requestTimeoutMs: 30_000,
    redact: (text: string) => redactSecret(text, KEY),
    ...overrides,
  };
}

/** An attempt that fails with the given faults in turn, then returns "ok". */
function failing(...faults: ProviderFault[]) {
  const timeouts: number[] = [];
  return {
    timeouts,
    attempt: async (timeoutMs: number) => {
      timeouts.push(timeoutMs);
      const fault = faults.shift();
      if (fault) throw fault;
      return "ok";
    },
  };
}

const serverError = () => new ProviderFault("HTTP 500 server_error: oops", true, undefined, 500);

describe("withRetries", () => {
  it("waits exactly what retry-after asks, then succeeds", async () => {
    const time = fakeTime();
    const { attempt } = failing(new ProviderFault("HTTP 429 rate_limit_exceeded", true, 1000, 429));
    await expect(withRetries(call(time), time.deps, attempt)).resolves.toBe("ok");
    expect(time.sleeps).toEqual([1000]);
    expect(time.retries).toEqual([
      { provider: "openai", attempt: 1, delayMs: 1000, status: 429, reason: "HTTP 429 rate_limit_exceeded" },
    ]);
  });

  it("backs off exponentially with jitter between attempts, and gives up after the fifth", async () => {
    const time = fakeTime(0.5);
    const { attempt, timeouts } = failing(...Array.from({ length: 5 }, serverError));
    const failure = withRetries(call(time), time.deps, attempt);
    await expect(failure).rejects.toThrow(ModelError);
    await expect(failure).rejects.toThrow(
      "openai gpt-test at api.openai.com failed 5 times in a row; the last time: HTTP 500 server_error: oops",
    );
    expect(timeouts).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts);
    // 500, 1000, 2000, 4000 ms ceilings; with random 0.5: three quarters of each.
    expect(time.sleeps).toEqual([375, 750, 1500, 3000]);
  });

  it("does not retry what retrying cannot fix (401, 400, an unreadable body)", async () => {
    const time = fakeTime();
    const { attempt, timeouts } = failing(
      new ProviderFault("HTTP 401 invalid_api_key: Incorrect API key", false),
    );
    await expect(withRetries(call(time), time.deps, attempt)).rejects.toThrow(
      "openai gpt-test at api.openai.com failed: HTTP 401 invalid_api_key: Incorrect API key",
    );
    expect(timeouts).toHaveLength(1);
    expect(time.sleeps).toEqual([]);
  });

  it("gives up at once when retry-after reaches past the step's time, saying so", async () => {
    const time = fakeTime();
    const { attempt, timeouts } = failing(new ProviderFault("HTTP 429", true, 120_000, 429));
    await expect(withRetries(call(time), time.deps, attempt)).rejects.toThrow(
      /failed \(HTTP 429\) and it asks to wait 120 s, which ends after this model step's time is up \(attempt 1\)/,
    );
    expect(timeouts).toHaveLength(1);
    expect(time.sleeps).toEqual([]);
  });

  it("gives each attempt the smaller of its time-out and the time the step has left", async () => {
    const time = fakeTime(0);
    const { attempt, timeouts } = failing(new ProviderFault("no answer within 30 s (timed out)", true));
    const deadlineMs = time.now() + 40_000;
    const slow = async (timeoutMs: number) => {
      const result = attempt(timeoutMs);
      time.advance(timeoutMs);
      return result;
    };
    await expect(withRetries(call(time, { deadlineMs }), time.deps, slow)).resolves.toBe("ok");
    // 30 s, then a 250 ms backoff, then what is left of the 40 s.
    expect(timeouts).toEqual([30_000, 9_750]);
  });

  it("does not start an attempt with less than a second left", async () => {
    const time = fakeTime();
    const { attempt, timeouts } = failing();
    await expect(
      withRetries(call(time, { deadlineMs: time.now() + 500 }), time.deps, attempt),
    ).rejects.toThrow(
      "openai gpt-test at api.openai.com: this model step has no time left for another attempt.",
    );
    expect(timeouts).toEqual([]);
  });

  it("never puts the key in a message or a log line, not even a piece a provider echoed", async () => {
    const time = fakeTime();
    const echoed = `HTTP 500: bad key ${KEY.slice(0, 14)}… in header Bearer ${KEY}`;
    const { attempt } = failing(
      ...Array.from({ length: 5 }, () => new ProviderFault(echoed, true, undefined, 500)),
    );
    const error = (await withRetries(call(time), time.deps, attempt).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain("[redacted]");
    for (const text of [error.message, JSON.stringify(time.retries)]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(KEY.slice(0, 14));
    }
  });

  it("passes other errors through untouched", async () => {
    const time = fakeTime();
    const bug = new TypeError("a bug");
    await expect(
      withRetries(call(time), time.deps, async () => {
        throw bug;
      }),
    ).rejects.toBe(bug);
  });
});

describe("retry details", () => {
  const headers = (values: Record<string, string>) => (name: string) => values[name];

  it("reads retry-after-ms, retry-after in seconds, and retry-after as an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs(headers({ "retry-after-ms": "1500.5", "retry-after": "9" }), now)).toBe(1501);
    expect(retryAfterMs(headers({ "retry-after": "2" }), now)).toBe(2000);
    expect(retryAfterMs(headers({ "retry-after": "0.5" }), now)).toBe(500);
    expect(retryAfterMs(headers({ "retry-after": "Thu, 01 Jan 2026 00:00:03 GMT" }), now)).toBe(3000);
    expect(retryAfterMs(headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(retryAfterMs(headers({}), now)).toBeUndefined();
  });

  it("retries 408, 409, 429 and 5xx, unless the provider's x-should-retry says otherwise", () => {
    for (const status of [408, 409, 429, 500, 502, 503, 529])
      expect(isRetryableStatus(status, null)).toBe(true);
    for (const status of [400, 401, 403, 404, 422]) expect(isRetryableStatus(status, null)).toBe(false);
    expect(isRetryableStatus(500, "false")).toBe(false);
    expect(isRetryableStatus(400, "true")).toBe(true);
  });

  it("keeps the backoff within half and all of its doubling ceiling, capped", () => {
    const policy = { maxAttempts: 9, baseDelayMs: 500, maxDelayMs: 8000 };
    expect(backoffMs(1, policy, 0)).toBe(250);
    expect(backoffMs(1, policy, 0.999_999)).toBe(500);
    expect(backoffMs(3, policy, 0)).toBe(1000);
    expect(backoffMs(8, policy, 0.999_999)).toBe(8000);
  });

  it("redacts the key and any run of 8 or more of its characters, nothing shorter", () => {
    expect(redactSecret(`key ${KEY}!`, KEY)).toBe("key [redacted]!");
    expect(redactSecret(`prefix ${KEY.slice(3, 11)} end`, KEY)).toBe("prefix [redacted] end");
    expect(redactSecret(`short ${KEY.slice(0, 7)}`, KEY)).toBe(`short ${KEY.slice(0, 7)}`);
    expect(redactSecret("nothing here", undefined)).toBe("nothing here");
  });
});

describe("error names", () => {
  it("are the ones the state machine catches, set explicitly so minifying cannot change them", () => {
    expect(new ModelError("x").name).toBe("Handraise.ModelError");
    const limit = new StepLimitError(3);
    expect(limit.name).toBe("Handraise.StepLimitExceeded");
    expect(limit.message).toMatch(/^The model made 3 calls without replying \(model\.maxSteps is 3\)/);
  });
});
