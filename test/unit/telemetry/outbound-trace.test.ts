/**
 * traceOutbound as every outbound client calls it: the recorder, when one is installed, sees each call's
 * name and its end; the call itself is untouched either way. (The X-Ray recorder, in a traced process:
 * test/integration/trace-secrets.test.ts.)
 */
import { afterEach, describe, expect, it } from "vitest";
import { type OutboundCall, recordOutboundCallsWith, traceOutbound } from "#lib/telemetry/outbound-trace.ts";

const call: OutboundCall = {
  url: "https://api.example/bot123:secret/sendMessage",
  method: "POST",
  name: "sendMessage",
};

/** A recorder that notes what it is told. */
function noting() {
  const seen: unknown[] = [];
  recordOutboundCallsWith((started) => {
    seen.push({ started });
    return { answered: (status) => seen.push({ status }), failed: (code) => seen.push({ code }) };
  });
  return seen;
}

afterEach(() => recordOutboundCallsWith(undefined));

describe("traceOutbound", () => {
  it("with no recorder, hands the reply or the failure back as it came", async () => {
    const reply = { status: 200 };
    expect(await traceOutbound(call, Promise.resolve(reply), (r) => r.status)).toBe(reply);
    const failure = new Error("boom");
    await expect(traceOutbound(call, Promise.reject(failure), () => 0)).rejects.toBe(failure);
  });

  it("tells the recorder the call, then its status", async () => {
    const seen = noting();
    await traceOutbound(call, Promise.resolve({ status: 429 }), (r) => r.status);
    expect(seen).toEqual([{ started: call }, { status: 429 }]);
  });

  it("tells the recorder a failure by its network code only, and rethrows it unchanged", async () => {
    const seen = noting();
    const failure = new TypeError("fetch failed https://api.example/bot123:secret/sendMessage", {
      cause: { code: "ECONNREFUSED" },
    });
    await expect(traceOutbound(call, Promise.reject(failure), () => 0)).rejects.toBe(failure);
    expect(seen).toEqual([{ started: call }, { code: "ECONNREFUSED" }]);
  });

  it("hands the reply or the failure back unchanged when the recorder throws", async () => {
    recordOutboundCallsWith(() => {
      throw new Error("Failed to get the current sub/segment from the context.");
    });
    const reply = { status: 200 };
    expect(await traceOutbound(call, Promise.resolve(reply), (r) => r.status)).toBe(reply);
    // The failure is awaited, so it is never an unhandled rejection.
    const failure = new Error("boom");
    await expect(traceOutbound(call, Promise.reject(failure), () => 0)).rejects.toBe(failure);
  });

  it("hands the reply or the failure back unchanged when the span, or reading the status, throws", async () => {
    const broken = new Error("span closed");
    recordOutboundCallsWith(() => ({
      answered: () => {
        throw broken;
      },
      failed: () => {
        throw broken;
      },
    }));
    const reply = { status: 200 };
    expect(await traceOutbound(call, Promise.resolve(reply), (r) => r.status)).toBe(reply);
    const failure = new Error("boom");
    await expect(traceOutbound(call, Promise.reject(failure), () => 0)).rejects.toBe(failure);
    recordOutboundCallsWith(() => ({ answered: () => undefined, failed: () => undefined }));
    const unreadable = () => {
      throw broken;
    };
    expect(await traceOutbound(call, Promise.resolve(reply), unreadable)).toBe(reply);
  });
});
