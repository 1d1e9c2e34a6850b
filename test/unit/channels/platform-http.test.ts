import { describe, expect, it } from "vitest";
import { createDiscordApi } from "#lib/channels/discord/discord-api.ts";
import { PlatformApiError } from "#lib/channels/platform-api-error.ts";
import {
  createPlatformHttp,
  messageOf,
  type PlatformRequest,
  retryAfterHeaderMs,
  withPlatformDeadline,
} from "#lib/channels/platform-http.ts";
import { createSlackApi } from "#lib/channels/slack/slack-api.ts";
import { createTelegramApi } from "#lib/channels/telegram/telegram-api.ts";

type Step = { status: number; body?: unknown; headers?: Record<string, string> } | Error;

/** A fake clock that only moves when the client sleeps, and a fetch that plays `steps` in order. */
function harness(steps: Step[]) {
  let t = 1_700_000_000_000;
  const slept: number[] = [];
  const sent: { url: string; init: RequestInit }[] = [];
  const deps = {
    now: () => t,
    sleep: async (ms: number) => {
      slept.push(ms);
      t += ms;
    },
    random: () => 0.5,
    fetch: (async (url: string, init: RequestInit) => {
      sent.push({ url, init });
      const step = steps.shift() ?? { status: 200, body: { ok: true } };
      if (step instanceof Error) throw step;
      return new Response(step.body === undefined ? "" : JSON.stringify(step.body), {
        status: step.status,
        headers: step.headers ?? {},
      });
    }) as typeof fetch,
  };
  return { deps, slept, sent, now: deps.now };
}

const rules = {
  platform: "test",
  retryAfterMs: (reply: { headers: Headers }, nowMs: number) => retryAfterHeaderMs(reply.headers, nowMs),
  describe: messageOf,
};
const get: PlatformRequest = {
  name: "GET /things/{id}",
  method: "GET",
  url: "http://x/things/1",
  idempotent: true,
};
const post: PlatformRequest = {
  name: "POST /posts",
  method: "POST",
  url: "http://x/posts",
  body: {},
  idempotent: false,
};
const refused = () => new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } });
const timedOut = () => new DOMException("The operation was aborted due to timeout", "TimeoutError");

describe("the platform HTTP client", () => {
  it("retries a 5xx with jittered backoff, then returns the success", async () => {
    const h = harness([
      { status: 502, body: { message: "bad gateway" } },
      { status: 200, body: { id: 1 } },
    ]);
    const reply = await createPlatformHttp(rules, h.deps).send(get);
    expect(reply.body).toEqual({ id: 1 });
    expect(h.sent).toHaveLength(2);
    // Attempt 1's ceiling is 200 ms: half for sure, half at random (0.5 here).
    expect(h.slept).toEqual([150]);
  });

  it("waits the Retry-After of a 429 when it fits the deadline, then succeeds", async () => {
    const h = harness([{ status: 429, body: { message: "slow down" }, headers: { "retry-after": "1" } }]);
    const reply = await withPlatformDeadline(h.now() + 5_000, () =>
      createPlatformHttp(rules, h.deps).send(post),
    );
    expect(reply.status).toBe(200);
    // A 429 was not processed: even a POST is sent again.
    expect(h.sent).toHaveLength(2);
    expect(h.slept).toEqual([1_000]);
  });

  it("fails a 429 at once when its wait does not fit the deadline", async () => {
    const h = harness([{ status: 429, body: { message: "slow down" }, headers: { "retry-after": "30" } }]);
    const call = withPlatformDeadline(h.now() + 5_000, () => createPlatformHttp(rules, h.deps).send(get));
    await expect(call).rejects.toThrow(
      "test GET /things/{id} failed: rate limited, retry after 30 s: slow down",
    );
    await expect(call).rejects.toMatchObject({ status: 429 });
    expect(h.sent).toHaveLength(1);
    expect(h.slept).toEqual([]);
  });

  it("outside any scope a call has PLATFORM_CALL_TIMEOUT_MS in all: a 1.5 s wait fits, a 3 s one does not", async () => {
    const fits = harness([{ status: 429, headers: { "retry-after": "1.5" } }]);
    await createPlatformHttp(rules, fits.deps).send(get);
    expect(fits.slept).toEqual([1_500]);
    const late = harness([{ status: 429, headers: { "retry-after": "3" } }]);
    await expect(createPlatformHttp(rules, late.deps).send(get)).rejects.toThrow(
      "rate limited, retry after 3 s",
    );
    expect(late.sent).toHaveLength(1);
  });

  it("never retries a 4xx other than 429", async () => {
    const h = harness([{ status: 400, body: { message: "bad request" } }]);
    const call = createPlatformHttp(rules, h.deps).send(get);
    await expect(call).rejects.toThrow("test GET /things/{id} failed: bad request");
    await expect(call).rejects.toMatchObject({ name: "PlatformApiError", status: 400 });
    expect(h.sent).toHaveLength(1);
  });

  it("a POST is sent again after a refused connection or a 503, never after a time-out or another 5xx", async () => {
    const again = harness([refused(), { status: 503 }, { status: 200, body: {} }]);
    await createPlatformHttp(rules, again.deps).send(post);
    expect(again.sent).toHaveLength(3);

    const timeout = harness([timedOut()]);
    await expect(createPlatformHttp(rules, timeout.deps).send(post)).rejects.toThrow(
      "test POST /posts failed: no answer within 2000 ms",
    );
    expect(timeout.sent).toHaveLength(1);

    const gateway = harness([{ status: 504 }]);
    await expect(createPlatformHttp(rules, gateway.deps).send(post)).rejects.toMatchObject({ status: 504 });
    expect(gateway.sent).toHaveLength(1);
  });

  it("an idempotent call that timed out is tried again, at most four times in all", async () => {
    const h = harness([timedOut(), timedOut(), timedOut(), timedOut(), { status: 200 }]);
    const call = withPlatformDeadline(h.now() + 60_000, () => createPlatformHttp(rules, h.deps).send(get));
    await expect(call).rejects.toThrow("no answer within 2000 ms");
    expect(h.sent).toHaveLength(4);
    expect(h.slept).toEqual([150, 300, 600]);
  });

  it("a real time-out: an attempt is cut at what is left of the deadline", async () => {
    const hanging = ((_url: string, init: RequestInit) =>
      new Promise((_, reject) =>
        init.signal?.addEventListener("abort", () => reject(init.signal?.reason)),
      )) as typeof fetch;
    const started = performance.now();
    const call = withPlatformDeadline(Date.now() + 300.5, () =>
      createPlatformHttp(rules, { fetch: hanging, now: Date.now }).send(post),
    );
    await expect(call).rejects.toThrow(/no answer within (2|3)\d\d ms/);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("starts nothing with under 100 ms left, and says what the deadline was for; an inner scope only shortens", async () => {
    const h = harness([]);
    const http = createPlatformHttp(rules, h.deps);
    const late = withPlatformDeadline(h.now() + 50, () => http.send(get), "before the 3 s acknowledgement");
    await expect(late).rejects.toThrow("no time left before the 3 s acknowledgement");
    const nested = withPlatformDeadline(
      h.now() + 50,
      () => withPlatformDeadline(h.now() + 60_000, () => http.send(get)),
      "to answer the interaction",
    );
    await expect(nested).rejects.toThrow("no time left to answer the interaction");
    expect(h.sent).toHaveLength(0);
  });
});

describe("the platforms' own rate-limit answers", () => {
  it("Telegram: waits `parameters.retry_after`, and never puts the token (in the URL) in an error", async () => {
    const token = "123456:SECRET-token";
    const h = harness([
      {
        status: 429,
        body: {
          ok: false,
          error_code: 429,
          description: "Too Many Requests: retry after 1",
          parameters: { retry_after: 1 },
        },
      },
      { status: 200, body: { ok: true, result: { message_id: 7 } } },
    ]);
    const api = createTelegramApi({
      apiBase: "http://tg",
      botToken: async () => token,
      now: h.deps.now,
      http: h.deps,
    });
    expect(await api.call("sendMessage", { chat_id: 1, text: "hi" })).toEqual({ message_id: 7 });
    expect(h.slept).toEqual([1_000]);
    expect(h.sent[0]?.url).toBe(`http://tg/bot${token}/sendMessage`);

    const failures = [
      new TypeError(`Failed to parse URL from http://tg/bot${token}/sendMessage`),
      Object.assign(new TypeError("fetch failed"), { cause: new Error(`connect to http://tg/bot${token}`) }),
    ];
    for (const failure of failures) {
      const broken = harness([failure]);
      const api = createTelegramApi({
        apiBase: "http://tg",
        botToken: async () => token,
        now: broken.deps.now,
        http: broken.deps,
      });
      const error = (await api
        .call("sendMessage", { chat_id: 1, text: "secret body" })
        .catch((e) => e)) as Error;
      expect(error).toBeInstanceOf(PlatformApiError);
      expect(`${error} ${error.stack}`).not.toContain("SECRET");
      expect(String(error)).not.toContain("secret body");
    }
    const refusedBody = harness([
      { status: 400, body: { ok: false, description: "Bad Request: chat not found" } },
    ]);
    const error = await createTelegramApi({
      apiBase: "http://tg",
      botToken: async () => token,
      now: refusedBody.deps.now,
      http: refusedBody.deps,
    })
      .call("sendMessage", { chat_id: 1, text: "secret body" })
      .catch((e: unknown) => e);
    expect(String(error)).toBe("PlatformApiError: telegram sendMessage failed: Bad Request: chat not found");
  });

  it("Slack: waits `Retry-After`; `{ok: false}` at HTTP 200 is an error, not retried", async () => {
    const h = harness([
      { status: 429, body: { ok: false, error: "ratelimited" }, headers: { "retry-after": "1" } },
      { status: 200, body: { ok: true, ts: "1.2" } },
      { status: 200, body: { ok: false, error: "channel_not_found" } },
    ]);
    const api = createSlackApi({
      apiBase: "http://slack",
      botToken: async () => "xoxb-secret",
      now: h.deps.now,
      http: h.deps,
    });
    expect(await api.call("chat.postMessage", { channel: "C1" })).toMatchObject({ ts: "1.2" });
    expect(h.slept).toEqual([1_000]);
    await expect(api.call("chat.postMessage", { channel: "C1" })).rejects.toThrow(
      "slack chat.postMessage failed: channel_not_found",
    );
    expect(h.sent).toHaveLength(3);
  });

  it("Discord: waits the body's `retry_after`; an empty bucket holds the next call on that route, unsent when it cannot wait", async () => {
    const h = harness([
      { status: 429, body: { message: "You are being rate limited.", retry_after: 0.25, global: false } },
      {
        status: 200,
        body: { id: "9" },
        headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset-after": "4.5" },
      },
      { status: 200, body: { id: "10" } },
    ]);
    const api = createDiscordApi({
      apiBase: "http://dc/api/v10",
      botToken: async () => "Bot-secret",
      now: h.deps.now,
      http: h.deps,
    });
    expect(await api.request("POST", "/channels/1/messages", { content: "q" })).toEqual({ id: "9" });
    expect(h.slept).toEqual([250]);
    // Channel 1's bucket is empty for 4.5 s: more than a call outside a scope may wait.
    await expect(api.request("POST", "/channels/1/messages", { content: "q" })).rejects.toThrow(
      "discord POST /channels/{id}/messages failed: rate limited, retry after 4.5 s",
    );
    expect(h.sent).toHaveLength(2);
    // Another channel has buckets of its own.
    expect(await api.request("POST", "/channels/2/messages", { content: "q" })).toEqual({ id: "10" });
    // With time to wait, the held call waits for the reset and goes out.
    await withPlatformDeadline(h.now() + 10_000, () =>
      api.request("POST", "/channels/1/messages", { content: "q" }),
    );
    expect(h.slept).toEqual([250, 4_500]);
    expect(h.sent).toHaveLength(4);
  });
});
