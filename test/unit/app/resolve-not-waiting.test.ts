/**
 * "No longer waiting" from the closing function's own resume is told as such only when the table's stream
 * had not begun resuming the run: that consumer notes its resume before it sends, and a send of its that got
 * there first also makes the closing function hear "no longer waiting".
 */
import { describe, expect, it } from "vitest";
import { createResolveQuestion } from "#lib/app/resolve-question.ts";
import { createSettleClosedQuestion } from "#lib/app/settle-closed-question.ts";
import type { TaskCallbacks } from "#lib/callbacks/task-callbacks.ts";
import { createInMemoryQuestionStore } from "#lib/store/in-memory-question-store.ts";
import { silentTelemetry } from "#lib/telemetry/telemetry.ts";
import { newQuestion, T0 } from "../../support/question-store-contract.ts";

/** Callbacks whose every send answers `send`; DescribeExecution says the run has ended unless told not. */
const callbacksThat = (send: () => Promise<"resumed" | "not_waiting">, runEnded = true) =>
  ({
    succeed: send,
    fail: send,
    heartbeat: send,
    runEnded: async () => runEnded,
  }) as unknown as TaskCallbacks;

describe("resolve: a run that no longer waits", () => {
  it("the run stopped (nothing else sent): run not_waiting", async () => {
    const store = createInMemoryQuestionStore({ retentionSeconds: 3600 });
    await store.create(newQuestion({ id: "q-stopped", runId: "r", taskToken: "tok" }), T0);
    const resolve = createResolveQuestion({
      store,
      callbacks: callbacksThat(async () => "not_waiting"),
      now: () => T0 + 1000,
      telemetry: silentTelemetry,
    });
    const { run } = await resolve.answer("q-stopped", { q: ["A"] }, { resolvedBy: "api" });
    expect(run).toBe("not_waiting");
  });

  it("a dead token whose run goes on (a retried AskUser task's earlier one): left to the retry, not not_waiting", async () => {
    const store = createInMemoryQuestionStore({ retentionSeconds: 3600 });
    await store.create(newQuestion({ id: "q-retried", runId: "r", taskToken: "tok" }), T0);
    const resolve = createResolveQuestion({
      store,
      callbacks: callbacksThat(async () => "not_waiting", false),
      now: () => T0 + 1000,
      telemetry: silentTelemetry,
    });
    const { run } = await resolve.answer("q-retried", { q: ["A"] }, { resolvedBy: "api" });
    expect(run).toBe("pending_retry");
  });

  it("the stream's resume got there first: not told as not_waiting, but left to the stream", async () => {
    const store = createInMemoryQuestionStore({ retentionSeconds: 3600 });
    await store.create(newQuestion({ id: "q-raced", runId: "r", taskToken: "tok" }), T0);
    const settle = createSettleClosedQuestion({
      callbacks: callbacksThat(async () => "resumed"),
      channels: new Map(),
      store,
      telemetry: silentTelemetry,
      now: () => T0 + 1000,
    });
    const resolve = createResolveQuestion({
      store,
      // While this send is in flight, the stream consumer settles the closed question and resumes the run.
      callbacks: callbacksThat(async () => {
        const record = await store.get("q-raced", T0 + 1000);
        if (!record) throw new Error("no record");
        expect(await settle({ record, taskToken: "tok" })).toBe("resumed");
        return "not_waiting";
      }),
      now: () => T0 + 1000,
      telemetry: silentTelemetry,
    });
    const { run, record } = await resolve.answer("q-raced", { q: ["A"] }, { resolvedBy: "api" });
    expect(record.status).toBe("answered");
    expect(run).toBe("pending_retry");
  });

  it("the stream notes its resume before it sends", async () => {
    const store = createInMemoryQuestionStore({ retentionSeconds: 3600 });
    await store.create(newQuestion({ id: "q-noted", runId: "r", taskToken: "tok" }), T0);
    const closed = await store.close("q-noted", { status: "answered", answers: { q: ["A"] } }, T0 + 500);
    if (closed.kind !== "closed") throw new Error("not closed");
    const noted: boolean[] = [];
    const settle = createSettleClosedQuestion({
      callbacks: callbacksThat(async () => {
        noted.push(await store.streamResumeStarted("q-noted"));
        return "resumed";
      }),
      channels: new Map(),
      store,
      telemetry: silentTelemetry,
      now: () => T0 + 1000,
    });
    expect(await store.streamResumeStarted("q-noted")).toBe(false);
    await settle({ record: closed.record, taskToken: "tok" });
    expect(noted).toEqual([true]);
  });
});
