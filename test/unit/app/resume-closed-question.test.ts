import { describe, expect, it } from "vitest";
import { createResumeClosedQuestion } from "#lib/app/resume-closed-question.ts";
import type { CallbackOutcome, TaskCallbacks } from "#lib/callbacks/task-callbacks.ts";
import type { QuestionStore } from "#lib/store/question-store.ts";

function fakes(outcome: CallbackOutcome | Error) {
  const calls: string[] = [];
  const respond = async (call: string) => {
    calls.push(call);
    if (outcome instanceof Error) throw outcome;
    return outcome;
  };
  const callbacks: TaskCallbacks = {
    succeed: (token, result) => respond(`succeed ${token} ${JSON.stringify(result)}`),
    fail: (token, error, cause) => respond(`fail ${token} ${error} ${cause}`),
    heartbeat: (token) => respond(`heartbeat ${token}`),
  };
  const store = {
    forgetTaskToken: async (id: string, token: string) => {
      calls.push(`forget ${id} ${token}`);
    },
  } as QuestionStore;
  return { calls, resume: createResumeClosedQuestion({ store, callbacks }) };
}

describe("resumeClosedQuestion", () => {
  it("sends the answer, then forgets the used token", async () => {
    const { calls, resume } = fakes("resumed");
    await expect(
      resume({ id: "ask_1", taskToken: "t1", status: "answered", answers: { a: ["x"] } }),
    ).resolves.toBe("resumed");
    expect(calls).toEqual(['succeed t1 {"status":"answered","answers":{"a":["x"]}}', "forget ask_1 t1"]);
  });

  it("sends a skip as Handraise.Skipped; a run that no longer waits also drops the token", async () => {
    const { calls, resume } = fakes("not_waiting");
    await expect(
      resume({ id: "ask_2", taskToken: "t2", status: "cancelled", reason: "skipped" }),
    ).resolves.toBe("not_waiting");
    expect(calls).toEqual(["fail t2 Handraise.Skipped The user skipped the question.", "forget ask_2 t2"]);
  });

  it("throws on throttling and keeps the token, so the stream retries", async () => {
    const throttled = Object.assign(new Error("Rate exceeded"), { name: "ThrottlingException" });
    const { calls, resume } = fakes(throttled);
    await expect(
      resume({ id: "ask_3", taskToken: "t3", status: "cancelled", reason: "cancelled" }),
    ).rejects.toBe(throttled);
    expect(calls).toEqual(["fail t3 Handraise.Cancelled The question was cancelled."]);
  });
});
