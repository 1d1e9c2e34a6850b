/**
 * Question records for tests that need one without a stack: a pending question of the docs' example
 * questions (test/unit/questions/fixtures.ts), owned by `telegram:42`, with whatever `overrides` change.
 */
import type { QuestionRecord } from "#lib/questions/question-record.ts";
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
