/**
 * Question records for tests that need one without a stack: a pending question of the docs' example
 * questions (test/unit/questions/fixtures.ts), owned by `telegram:42`, with whatever `overrides` change; and
 * the question a store registers (`newQuestion`), for tests of a QuestionStore.
 */
import type { QuestionRecord } from "#lib/questions/question-record.ts";
import type { NewQuestion } from "#lib/store/question-store.ts";
import { checks, deployTarget, releaseNote } from "../unit/questions/fixtures.ts";

/** The three example questions: single-select, multi-select, single-select. */
export const EXAMPLE_QUESTIONS = [deployTarget, checks, releaseNote];

/** @example questionRecord({ id: "ask_2", questions: [deployTarget], status: "answered" }) */
export function questionRecord(overrides: Partial<QuestionRecord> = {}): QuestionRecord {
  return {
    id: "ask_1",
    status: "pending",
    questions: EXAMPLE_QUESTIONS,
    owner: "telegram:42",
    deliveries: [],
    createdAtMs: 0,
    expiresAtMs: Number.MAX_SAFE_INTEGER,
    ...overrides,
  };
}

/**
 * A question to register with a QuestionStore: the example questions, asked at 0 for 60 s by `telegram:42`
 * and not yet delivered, with whatever `overrides` change.
 *
 * @example newQuestion({ id: "ask_2", sessionKey: "s1", taskToken: "token" })
 */
export function newQuestion(overrides: Partial<NewQuestion> = {}): NewQuestion {
  return {
    id: "ask_1",
    questions: EXAMPLE_QUESTIONS,
    timeoutSeconds: 60,
    owner: "telegram:42",
    deliverTo: [],
    createdAtMs: 0,
    ...overrides,
  };
}
