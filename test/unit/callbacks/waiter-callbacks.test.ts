import { describe, expect, it } from "vitest";
import type { TaskCallbacks } from "#lib/callbacks/task-callbacks.ts";
import { durableWaiter, waiterOf } from "#lib/callbacks/waiter.ts";
import { createWaiterCallbacks } from "#lib/callbacks/waiter-callbacks.ts";

function recording(name: string, calls: string[]): TaskCallbacks {
  return {
    succeed: async (id) => {
      calls.push(`${name}.succeed ${id}`);
      return "resumed";
    },
    fail: async (id, error) => {
      calls.push(`${name}.fail ${id} ${error}`);
      return "resumed";
    },
    heartbeat: async (id) => {
      calls.push(`${name}.heartbeat ${id}`);
      return "not_waiting";
    },
  };
}

describe("waiters", () => {
  it("tell a durable callback id from a task token (base64 has no colon)", () => {
    expect(waiterOf(durableWaiter("eyJ4IjoxfQ=="))).toEqual({ kind: "durable", callbackId: "eyJ4IjoxfQ==" });
    expect(waiterOf("AAAAKgAAAAIAAAAAAAAAAc+/token==")).toEqual({
      kind: "task",
      taskToken: "AAAAKgAAAAIAAAAAAAAAAc+/token==",
    });
  });

  it("send each call to the service its waiter belongs to, through one TaskCallbacks", async () => {
    const calls: string[] = [];
    const callbacks = createWaiterCallbacks({
      stepFunctions: recording("sfn", calls),
      durable: recording("lambda", calls),
    });
    await callbacks.succeed("task-token", { status: "answered", answers: {} });
    await callbacks.fail(durableWaiter("cb1"), "Handraise.Skipped", "skipped");
    expect(await callbacks.heartbeat(durableWaiter("cb2"))).toBe("not_waiting");
    expect(calls).toEqual([
      "sfn.succeed task-token",
      "lambda.fail cb1 Handraise.Skipped",
      "lambda.heartbeat cb2",
    ]);
  });

  it("ask Step Functions whether a run ended, and fail when it cannot be asked", async () => {
    const calls: string[] = [];
    const runId = "arn:aws:states:eu-west-1:123456789012:execution:handraise-dev-agent:r1";
    const stepFunctions = { ...recording("sfn", calls), runEnded: async (id: string) => id === runId };
    const callbacks = createWaiterCallbacks({ stepFunctions, durable: recording("lambda", calls) });
    expect(await callbacks.runEnded?.(runId)).toBe(true);
    const without = createWaiterCallbacks({
      stepFunctions: recording("sfn", calls),
      durable: recording("lambda", calls),
    });
    await expect(without.runEnded?.(runId)).rejects.toThrow("cannot tell");
  });
});
