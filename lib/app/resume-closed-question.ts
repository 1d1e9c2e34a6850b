import { TASK_ERRORS, type TaskCallbacks } from "../callbacks/task-callbacks.ts";
import type { QuestionStore } from "../store/question-store.ts";
import type { ClosedQuestion } from "../store/question-stream.ts";

/** The cause sent with each cancel reason (the same as the answer path sends). */
export const CANCEL_CAUSES = {
  cancelled: "The question was cancelled.",
  skipped: "The user skipped the question.",
} as const;

/**
 * The durable half of resuming a run (no lost answers): for a question that closed while a run waited on it,
 * send the run its outcome again — answered → SendTaskSuccess, cancelled/skipped → SendTaskFailure — until
 * Step Functions takes it or says the run no longer waits, then drop the used token. It runs from the
 * table's stream, so it survives the answering Lambda dying between the write and SendTaskSuccess; the answer
 * path's own SendTaskSuccess stays the fast path, and the second send is answered "no longer waiting".
 * Throttling and 5xx are thrown: the stream retries the record.
 *
 * @example
 * const resumeClosedQuestion = createResumeClosedQuestion({ store, callbacks });
 * await resumeClosedQuestion({ id: "ask_…", taskToken, status: "answered", answers: { deploy: ["Prod"] } });
 * // → "resumed" | "not_waiting"
 */
export function createResumeClosedQuestion(deps: { store: QuestionStore; callbacks: TaskCallbacks }) {
  return async function resumeClosedQuestion(closed: ClosedQuestion): Promise<"resumed" | "not_waiting"> {
    const run =
      closed.status === "answered"
        ? await deps.callbacks.succeed(closed.taskToken, { status: "answered", answers: closed.answers })
        : await deps.callbacks.fail(
            closed.taskToken,
            closed.reason === "skipped" ? TASK_ERRORS.skipped : TASK_ERRORS.cancelled,
            CANCEL_CAUSES[closed.reason],
          );
    await deps.store.forgetTaskToken(closed.id, closed.taskToken);
    return run;
  };
}

export type ResumeClosedQuestion = ReturnType<typeof createResumeClosedQuestion>;
