import {
  CallbackTimeoutException,
  type LambdaClient,
  type SendDurableExecutionCallbackFailureCommand,
  SendDurableExecutionCallbackSuccessCommand,
} from "@aws-sdk/client-lambda";
import { describe, expect, it } from "vitest";
import { createDurableCallbacks } from "#lib/callbacks/durable-callbacks.ts";
import { FinalCallbackError, type TaskCallbacks } from "#lib/callbacks/task-callbacks.ts";
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

  it("complete durable callbacks with Lambda's API: the result as JSON bytes, the error name as type and data", async () => {
    const sent: unknown[] = [];
    const client = {
      send: async (command: unknown) => {
        sent.push(command);
        return {};
      },
    } as unknown as LambdaClient;
    const durable = createDurableCallbacks(async () => client);
    expect(await durable.succeed("cb", { status: "answered", answers: { q: ["A"] } })).toBe("resumed");
    await durable.fail("cb", "Handraise.Cancelled", "The question was cancelled.");
    const [success, failure] = sent as [
      SendDurableExecutionCallbackSuccessCommand,
      SendDurableExecutionCallbackFailureCommand,
    ];
    expect(success).toBeInstanceOf(SendDurableExecutionCallbackSuccessCommand);
    expect(new TextDecoder().decode(success.input.Result as Uint8Array)).toBe(
      '{"status":"answered","answers":{"q":["A"]}}',
    );
    expect(failure.input).toEqual({
      CallbackId: "cb",
      Error: {
        ErrorType: "Handraise.Cancelled",
        ErrorMessage: "The question was cancelled.",
        ErrorData: "Handraise.Cancelled",
      },
    });
  });

  it("take an ended callback as not waiting, and a refusal no retry cures as final", async () => {
    const failing = (error: Error) =>
      createDurableCallbacks(
        async () => ({ send: async () => Promise.reject(error) }) as unknown as LambdaClient,
      );
    const ended = new CallbackTimeoutException({ message: "closed", $metadata: {} });
    expect(await failing(ended).succeed("cb", { status: "delivery_failed" })).toBe("not_waiting");
    const denied = Object.assign(new Error("no"), { name: "AccessDeniedException" });
    await expect(failing(denied).heartbeat("cb")).rejects.toBeInstanceOf(FinalCallbackError);
    const throttled = Object.assign(new Error("slow down"), { name: "TooManyRequestsException" });
    await expect(failing(throttled).heartbeat("cb")).rejects.toBe(throttled);
  });
});
