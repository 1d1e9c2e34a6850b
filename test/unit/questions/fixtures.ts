/**
 * Shared inputs for the lib/questions unit tests. Canonical questions are written out literally (the shape
 * `normalizeAskUserArgs` returns) so a test reads its expectation without running the normalizer first.
 */
import {
  normalizeAskUserArgs,
  type Question,
  type TimeoutLimits,
  ToolInputError,
  type ToolInputIssue,
} from "#lib/questions/index.ts";

/** Single-select, the typed-reply example of docs/ask-user.md: [Staging (Recommended), Production]. */
export const deployTarget: Question = {
  id: "deploy_target",
  header: "Deploy",
  question: "Where should this release go?",
  options: [{ label: "Staging (Recommended)", description: "safe to try" }, { label: "Production" }],
  allowOther: true,
};

/** Multi-select, the typed-reply example of docs/ask-user.md: [Unit, E2E, Lint]. */
export const checks: Question = {
  id: "checks",
  header: "Checks",
  question: "Which checks must pass first?",
  options: [{ label: "Unit" }, { label: "E2E" }, { label: "Lint" }],
  multiSelect: true,
  allowOther: true,
};

/** Single-select with a header of exactly 12 UTF-16 units. */
export const releaseNote: Question = {
  id: "release_note",
  header: "Release note",
  question: "What kind of release note?",
  options: [{ label: "Routine (Recommended)" }, { label: "Urgent" }],
  allowOther: true,
};

/** One raw ask_user question as a model would send it; `overrides` replace or add keys. */
export function questionArgs(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "deploy_target",
    header: "Deploy",
    question: "Where should this release go?",
    options: [{ label: "Staging" }, { label: "Production" }],
    ...overrides,
  };
}

/** Raw ask_user arguments with one question built by {@link questionArgs}. */
export function oneQuestionArgs(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { questions: [questionArgs(overrides)] };
}

/** Raw arguments whose single question has the given option objects. */
export function withOptions(...options: unknown[]): Record<string, unknown> {
  return oneQuestionArgs({ options });
}

/** The issues of the ToolInputError thrown for `args`; fails the test if nothing (or something else) is thrown. */
export function issuesOf(args: unknown, limits?: TimeoutLimits): ToolInputIssue[] {
  try {
    normalizeAskUserArgs(args, limits);
  } catch (error) {
    if (error instanceof ToolInputError) return error.issues;
    throw error;
  }
  throw new Error("expected normalizeAskUserArgs to throw a ToolInputError");
}

/** The paths of {@link issuesOf}, sorted, for comparing "every problem reported" without depending on order. */
export function issuePathsOf(args: unknown, limits?: TimeoutLimits): string[] {
  return issuesOf(args, limits)
    .map((issue) => issue.path)
    .sort();
}
