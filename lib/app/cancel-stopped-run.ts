import type { QuestionStore } from "../store/question-store.ts";
import { AlreadyResolvedError } from "./errors.ts";
import type { ResolveQuestion } from "./resolve-question.ts";
import { RUN_STOPPED } from "./wait-ended.ts";

/** The fields of EventBridge's "Step Functions Execution Status Change" detail this use case reads. */
export interface StoppedRun {
  executionArn: string;
  status: string;
  /** The execution input (JSON text); EventBridge leaves it out when it is too large. */
  input?: string | null | undefined;
}

/**
 * A run that stopped (StopExecution, failure, timeout) no longer waits: its pending question is cancelled
 * with `resolvedBy: "run-abort"` (the table's stream then retires its chat copies), so nobody answers into
 * the void. The run's
 * question is found through its session (the agent's input has `sessionKey`): a Query, never a Scan. A
 * question stored after this ran (the ask still in flight when the run stopped) is closed by the ask itself,
 * which probes the run once the record is stored (lib/app/ask-question.ts).
 *
 * @example
 * await cancelStoppedRun({ executionArn, status: "ABORTED", input: '{"sessionKey":"s1",…}' });
 * // → ["ask_…"] the ids it cancelled
 */
export function createCancelStoppedRun(deps: {
  store: QuestionStore;
  resolve: ResolveQuestion;
  now: () => number;
}) {
  return async function cancelStoppedRun(run: StoppedRun): Promise<string[]> {
    const sessionKey = sessionKeyOf(run.input);
    if (sessionKey === undefined) return [];
    const pending = await deps.store.listPending({ sessionKey }, deps.now());
    const cancelled: string[] = [];
    for (const record of pending.filter((r) => r.runId === run.executionArn)) {
      try {
        await deps.resolve.cancel(record.id, RUN_STOPPED.reason, { resolvedBy: RUN_STOPPED.resolvedBy });
        cancelled.push(record.id);
      } catch (error) {
        // Answered a moment before the run stopped: the answer stands.
        if (!(error instanceof AlreadyResolvedError)) throw error;
      }
    }
    return cancelled;
  };
}

function sessionKeyOf(input: string | null | undefined): string | undefined {
  if (!input) return undefined;
  try {
    const parsed: unknown = JSON.parse(input);
    const key =
      typeof parsed === "object" && parsed !== null
        ? (parsed as { sessionKey?: unknown }).sessionKey
        : undefined;
    return typeof key === "string" && key !== "" ? key : undefined;
  } catch {
    return undefined;
  }
}
