/**
 * What an X-Ray trace shows of a function's outbound calls — anyone with X-Ray read access reads it. The
 * calls are made as production makes them (tracing on, the Tracer of lib/telemetry/observability.ts, the
 * real clients) in a process of their own (support/traced-calls.ts: the X-Ray SDK patches the process that
 * loads it), against fakes started here; the test reads the segment they were recorded in.
 */
import { execFile } from "node:child_process";
import { createServer } from "node:net";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakePlatform, startFakePlatform } from "./support/fake-platform.ts";
import { BOT_TOKEN, startFakeTelegram } from "./support/telegram-fake.ts";

const run = promisify(execFile);

const CALLBACK_ID = "Y2FsbGJhY2staWQtdGhhdC1yZXN1bWVzLXRoZS1ydW4tMTIzNDU2Nzg5MA";
const TASK_TOKEN = "AQCEAAAAKgAAAAMAAAAAAAAAAe1TaskTokenThatResumesARun";
const API_KEY = "sk-trace-test-key-0123456789";
const ANSWER = "the secret answer text";

interface Subsegment {
  name: string;
  namespace?: string;
  http?: { request?: { method?: string; url?: string }; response?: { status?: number } };
  aws?: { operation?: string };
  annotations?: Record<string, unknown>;
  error?: boolean;
  fault?: boolean;
  throttle?: boolean;
  subsegments?: Subsegment[];
}

let telegram: FakePlatform;
let awsFake: FakePlatform;
let traced: { outcomes: Record<string, string>; segment: { subsegments?: Subsegment[] }; raw: string };

/** A loopback port nothing listens on: taken, then given back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  telegram = await startFakeTelegram();
  telegram.answerOnce((call) => call.method === "sendPhoto", {
    status: 500,
    body: { ok: false, error_code: 500, description: "Internal Server Error" },
  });
  telegram.answerOnce((call) => call.method === "getMe", {
    status: 429,
    body: { ok: false, error_code: 429, description: "Too Many Requests", parameters: { retry_after: 60 } },
  });
  telegram.answerOnce((call) => call.method === "editMessageText", {
    status: 500,
    body: { ok: false, error_code: 500, description: "Internal Server Error" },
  });
  // Lambda's durable callbacks, Step Functions and a model provider: each answers its call `{}` or a turn.
  awsFake = await startFakePlatform(() => ({ body: {} }));
  const { stdout } = await run(
    process.execPath,
    ["--import", "tsx", "test/integration/support/traced-calls.ts"],
    {
      cwd: process.cwd(),
      env: {
        PATH: process.env.PATH ?? "",
        // Lambda as the Tracer recognises it: tracing on, and no X-Ray daemon needed (nothing is sent).
        AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x",
        AWS_REGION: "us-east-1",
        POWERTOOLS_DEV: "true",
        TRACE_TELEGRAM_URL: telegram.url,
        TRACE_AWS_URL: awsFake.url,
        TRACE_CLOSED_URL: `http://127.0.0.1:${await closedPort()}`,
        TRACE_BOT_TOKEN: BOT_TOKEN,
        TRACE_CALLBACK_ID: CALLBACK_ID,
        TRACE_TASK_TOKEN: TASK_TOKEN,
        TRACE_API_KEY: API_KEY,
        TRACE_ANSWER: ANSWER,
      },
    },
  );
  const raw = stdout.trim().split("\n").at(-1) ?? "";
  traced = { ...JSON.parse(raw), raw };
}, 60_000);

afterAll(async () => {
  await telegram.stop();
  await awsFake.stop();
});

/** Every subsegment, nested ones included. */
const all = (subsegments: Subsegment[] = []): Subsegment[] =>
  subsegments.flatMap((s) => [s, ...all(s.subsegments)]);

/** The subsegments Handraise recorded itself, in order. */
const remote = () => all(traced.segment.subsegments).filter((s) => s.namespace === "remote");

describe("an X-Ray trace of outbound calls", () => {
  it("holds no token, credential path, API key or answer text, anywhere", () => {
    const secrets = [BOT_TOKEN, CALLBACK_ID, TASK_TOKEN, API_KEY, ANSWER, "trace-secret-key"];
    for (const secret of secrets) {
      expect(traced.raw).not.toContain(secret);
      expect(traced.raw).not.toContain(encodeURIComponent(secret));
    }
    // No path of any call: Telegram's is /bot<token>/…, a durable callback's carries its id.
    expect(traced.raw).not.toMatch(/\/bot|durable-execution-callbacks|\/v1\//);
    expect(traced.outcomes).toMatchObject({
      sendMessage: "ok",
      editMessageText: "ok",
      durable: "ok",
      sfn: "ok",
      model: "ok",
      handler: "RangeError",
    });
  });

  it("records a handler's thrown error by its name only: no message, no stack", () => {
    const handler = all(traced.segment.subsegments).find((s) => s.name.startsWith("## "));
    expect(handler).toMatchObject({ fault: true });
    const exceptions = (handler as { cause?: { exceptions?: unknown[] } }).cause?.exceptions;
    expect(exceptions).toEqual([expect.objectContaining({ type: "RangeError", message: "" })]);
    expect(JSON.stringify(handler)).not.toContain("the provider said");
    expect(exceptions).toEqual([expect.objectContaining({ stack: [] })]);
  });

  it("passes on a rejection with no reason as it is, traced by its type", () => {
    expect(traced.outcomes.reasonless).toBe("undefined");
    const handlers = all(traced.segment.subsegments).filter((s) => s.name.startsWith("## "));
    const types = handlers.map(
      (h) => (h as { cause?: { exceptions?: { type?: string }[] } }).cause?.exceptions?.[0]?.type,
    );
    expect(types).toEqual(["RangeError", "undefined"]);
  });

  it("records each attempt of each outbound call, by host, method, the caller's name for it and the status", () => {
    const host = (url: string) => new URL(url).host;
    expect(
      remote().map((s) => ({
        name: s.name,
        method: s.http?.request?.method,
        url: s.http?.request?.url,
        operation: s.annotations?.operation,
        status: s.http?.response?.status,
      })),
    ).toEqual([
      { name: host(telegram.url), method: "POST", url: telegram.url, operation: "sendMessage", status: 200 },
      { name: host(telegram.url), method: "POST", url: telegram.url, operation: "sendMessage", status: 400 },
      { name: host(telegram.url), method: "POST", url: telegram.url, operation: "sendPhoto", status: 500 },
      { name: host(telegram.url), method: "POST", url: telegram.url, operation: "getMe", status: 429 },
      {
        name: host(telegram.url),
        method: "POST",
        url: telegram.url,
        operation: "editMessageText",
        status: 500,
      },
      {
        name: host(telegram.url),
        method: "POST",
        url: telegram.url,
        operation: "editMessageText",
        status: 200,
      },
      {
        name: host(awsFake.url),
        method: "POST",
        url: awsFake.url,
        operation: "SendDurableExecutionCallbackSuccess",
        status: 200,
      },
      {
        name: host(awsFake.url),
        method: "POST",
        url: awsFake.url,
        operation: "chat completions",
        status: 200,
      },
      {
        name: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
        method: "POST",
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
        operation: "chat completions",
        status: undefined,
      },
    ]);
  });

  it("flags a 4xx as an error, a 5xx as a fault, a 429 as throttled, a call that got no answer with its code", () => {
    const flags = remote().map((s) => ({
      error: s.error ?? false,
      fault: s.fault ?? false,
      throttle: s.throttle ?? false,
    }));
    const none = { error: false, fault: false, throttle: false };
    expect(flags).toEqual([
      none,
      { ...none, error: true },
      { ...none, fault: true },
      { ...none, error: true, throttle: true },
      { ...none, fault: true },
      none,
      none,
      none,
      { ...none, error: true, fault: true },
    ]);
    expect(JSON.stringify(remote().at(-1))).toContain("ECONNREFUSED");
  });

  it("keeps an AWS SDK client's call as its service and operation, without its parameters", () => {
    const sfn = all(traced.segment.subsegments).filter((s) => s.namespace === "aws");
    expect(sfn).toEqual([
      expect.objectContaining({
        name: "SFN",
        aws: expect.objectContaining({ operation: "SendTaskSuccess" }),
        http: { response: expect.objectContaining({ status: 200 }) },
      }),
    ]);
  });
});
