import type { TaskCallbacks } from "./task-callbacks.ts";
import { waiterOf } from "./waiter.ts";

/**
 * The one TaskCallbacks every use case gets: it sends each call to the service the question's waiter
 * belongs to (lib/callbacks/waiter.ts) — Step Functions for a task token, Lambda for a durable callback id —
 * so answering, cancelling, the stream's second resume and the session probe work alike for both. Whether a
 * run has ended is asked of Step Functions: only its runs are probed so.
 */
export function createWaiterCallbacks(adapters: {
  stepFunctions: TaskCallbacks;
  durable: TaskCallbacks;
}): TaskCallbacks {
  const route = (token: string): [TaskCallbacks, string] => {
    const waiter = waiterOf(token);
    return waiter.kind === "durable"
      ? [adapters.durable, waiter.callbackId]
      : [adapters.stepFunctions, waiter.taskToken];
  };
  return {
    succeed: (token, result) => {
      const [callbacks, id] = route(token);
      return callbacks.succeed(id, result);
    },
    fail: (token, error, cause) => {
      const [callbacks, id] = route(token);
      return callbacks.fail(id, error, cause);
    },
    heartbeat: (token) => {
      const [callbacks, id] = route(token);
      return callbacks.heartbeat(id);
    },
    runEnded: async (runId) => {
      if (!adapters.stepFunctions.runEnded)
        throw new Error("these callbacks cannot tell whether a run ended");
      return adapters.stepFunctions.runEnded(runId);
    },
  };
}
