import type { QuestionRecord } from "../questions/question-record.ts";
import type { QuestionStore } from "../store/question-store.ts";
import { NotFoundError } from "./errors.ts";

export const MAX_WAIT_MS = 25_000;
const POLL_INTERVAL_MS = 250;

export interface WaitDeps {
  store: QuestionStore;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/**
 * Long-poll: returns as soon as the question is no longer pending, or when `timeoutMs` (at most 25 s, under
 * API Gateway's 30 s limit) has passed — then still `pending`. Reads by key only. A question the caller may
 * not see (`visible`: an `ask` key and another key's question) is NotFoundError, as one that does not exist.
 */
export function createWaitForQuestion({ store, now, sleep }: WaitDeps) {
  return async function waitForQuestion(
    id: string,
    timeoutMs: number,
    visible: (record: QuestionRecord) => boolean = () => true,
  ): Promise<QuestionRecord> {
    const deadline = now() + Math.min(Math.max(timeoutMs, 0), MAX_WAIT_MS);
    for (;;) {
      const record = await store.get(id, now());
      if (!record || !visible(record)) throw new NotFoundError(id);
      const remaining = deadline - now();
      if (record.status !== "pending" || remaining <= 0) return record;
      await sleep(Math.min(POLL_INTERVAL_MS, remaining));
    }
  };
}

export type WaitForQuestion = ReturnType<typeof createWaitForQuestion>;
