/**
 * The in-process harness (test/support/in-process-stack.ts) models what the platform tests rely on: a run is
 * resumed once and its second resume is told the task is gone, a timed-out task takes nothing, the stream
 * sets a question's timers and the clock fires them, an output over Step Functions' limit is refused, a wait moves the clock, and a route no built function
 * serves is a 404.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keys } from "#lib/store/keys.ts";
import { type InProcessStack, runResult, startInProcessStack } from "../support/in-process-stack.ts";
import { singleQuestion as single, unique } from "./support/sample-questions.ts";

let stack: InProcessStack;
beforeAll(async () => {
  stack = await startInProcessStack();
});
afterAll(async () => {
  await stack?.stop();
});

/** A run asking one question no chat is sent (it is answered through the API). */
const ask = () =>
  stack.ask({ owner: "web:ann", deliverTo: [], questions: [single], sessionKey: unique("s") });
const answer = (questionId: string) =>
  stack.api("POST", `/questions/${questionId}/answer`, { answers: { deploy_target: ["Production"] } });

describe("the in-process stack", () => {
  it("an answer resumes the run once: the stream's second SendTaskSuccess is answered TaskTimedOut", async () => {
    const run = await ask();
    expect(run.outcome()).toBeUndefined();
    expect((await answer(run.questionId)).status).toBe(200);
    expect(runResult(await run.result())).toEqual({
      status: "answered",
      answers: { deploy_target: ["Production"] },
      resolvedBy: expect.any(String),
    });
    const sent = stack.taskCalls.filter((call) => call.input.taskToken === run.taskToken);
    // The ask's probe that the run still waits once its question is stored, the answer path's resume, then
    // the stream's (told the task is gone, which is not an error).
    expect(sent.map((call) => call.command)).toEqual(["heartbeat", "success", "success"]);
  });

  it("a cancel reaches the run as the Catch's no_answer result", async () => {
    const run = await ask();
    expect((await stack.api("POST", `/questions/${run.questionId}/cancel`, {})).status).toBe(200);
    expect(runResult(await run.result())).toEqual({ status: "no_answer", reason: "cancelled" });
  });

  it("a task that timed out takes nothing: the question is still answered, the run ended without it", async () => {
    const run = await ask();
    run.timeOut();
    expect((await answer(run.questionId)).status).toBe(200);
    await stack.settled();
    expect(run.outcome()).toBeUndefined();
    await expect(run.result()).rejects.toThrow(/still waits/);
  });

  it("a stored question's timers are set by the stream and fire when the clock passes them", async () => {
    const run = await ask();
    await stack.settled();
    const due = stack.timers.get(`${run.questionId}-expire`)?.dueAtMs;
    expect(due).toBeGreaterThan(stack.clock.now());
    await stack.clock.advance((due ?? 0) - stack.clock.now() - 1_000);
    expect((await stack.api("GET", `/questions/${run.questionId}`)).body.question.status).toBe("pending");
    await stack.clock.advance(1_000);
    expect(stack.timers.has(`${run.questionId}-expire`)).toBe(false);
    const item = stack.store.items.get(keys.question(run.questionId));
    expect(item?.status).toBe("expired");
    // An expired question's run is sent nothing: its task ends by its own timeout.
    expect(run.outcome()).toBeUndefined();
  });

  it("a wait moves the clock instead of passing time: the API's long poll runs out at once", async () => {
    const run = await ask();
    const before = stack.clock.now();
    const waited = await stack.api("GET", `/questions/${run.questionId}/wait?timeoutMs=25000`);
    expect(waited.body).toEqual({ status: "pending" });
    expect(stack.clock.now() - before).toBeGreaterThanOrEqual(25_000);
  });

  it("an output over Step Functions' 256 KiB is refused with InvalidOutput, and the run still waits", async () => {
    const run = await stack.ask({
      owner: "web:ann",
      deliverTo: [],
      questions: [single],
      sessionKey: unique("s"),
      answerers: [{ owner: "web:bob" }],
      quorum: 2,
    });
    // Laid down past the store's port, beyond any budget: a result of 272 KB (the item stays under 400 KB).
    const votes = ["web:ann", "web:bob"].map((by, n) => ({
      by,
      answers: { deploy_target: [`${n}${"x".repeat(136_000)}`] },
      atMs: 1,
    }));
    const closed = await stack.store.vote(run.questionId, votes, 0, stack.clock.now(), {
      status: "no_quorum",
      resolvedBy: "web:bob",
    });
    expect(closed.kind).toBe("closed");
    await stack.settled();
    expect(run.outcome()).toBeUndefined();
    expect(stack.taskCalls.some((call) => call.input.taskToken === run.taskToken)).toBe(true);
  });

  it("a route no function it builds serves is a 404; the API refuses a missing key", async () => {
    expect((await stack.request("POST", "/mcp", { body: "{}" })).status).toBe(404);
    expect((await stack.api("GET", "/questions", undefined, { auth: null })).status).toBe(401);
  });
});
