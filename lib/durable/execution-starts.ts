import type { DurableInstrumentationPlugin } from "@aws/durable-execution-sdk-js";

/**
 * When each execution this function is running started, as the durable SDK reports it at every invocation,
 * replays included: the public DurableContext does not expose it, and a question is bounded by its
 * execution's time left (lib/durable/ask-user.ts). An entry lives for one invocation.
 *
 * @example
 * const starts = createExecutionStarts();
 * export const handler = withDurableExecution(agent, { plugins: [starts.plugin] });
 * starts.startedAtMs(context.executionContext.durableExecutionArn); // → 1767225600000, or undefined
 */
export function createExecutionStarts() {
  const starts = new Map<string, number>();
  const plugin: DurableInstrumentationPlugin = {
    async onInvocationStart(info) {
      if (info.executionStartTimestamp) starts.set(info.executionArn, info.executionStartTimestamp.getTime());
    },
    async onInvocationEnd(info) {
      starts.delete(info.executionArn);
    },
  };
  return { plugin, startedAtMs: (executionArn: string) => starts.get(executionArn) };
}

export type ExecutionStarts = ReturnType<typeof createExecutionStarts>;
