import { issuesOf } from "../validation-messages.ts";
import { ToolInputError, type ToolInputIssue } from "./errors.ts";
import { isRecord } from "./guards.ts";
import {
  type AskUserRequest,
  askUserArgsSchema,
  DEFAULT_TIMEOUT_SECONDS,
  MAX_HEADER_UNITS,
  MAX_TIMEOUT_SECONDS,
  MIN_TIMEOUT_SECONDS,
  type Question,
  type QuestionOption,
} from "./schema.ts";
import { foldForComparison, truncateUtf16 } from "./text.ts";

/** The timeout range a deployment allows; defaults are the contract's 30–3600 s. */
export interface TimeoutLimits {
  minTimeoutSeconds?: number | undefined;
  maxTimeoutSeconds?: number | undefined;
}

/** Keys a model might use to mark a question as asking for a credential: never allowed. */
const SECRET_KEY = /secret|password|passwd|credential|token|api_?key|sensitive/i;

/**
 * Checks and canonicalizes ask_user arguments (docs/ask-user.md, "How the arguments are read").
 *
 * @example
 * normalizeAskUserArgs({ questions: [{ id: "env", header: "Target", question: "Where?",
 *   options: [{ label: "Staging" }, { label: "Production" }] }] })
 * // → { questions: [{ id: "env", header: "Target", question: "Where?", options: [...], allowOther: true }],
 * //     timeoutSeconds: 900 }
 * @throws ToolInputError listing every problem found, each with its path.
 */
export function normalizeAskUserArgs(args: unknown, limits: TimeoutLimits = {}): AskUserRequest {
  const parsed = askUserArgsSchema.safeParse(args);
  const issues = parsed.success ? [] : issuesOf(parsed.error.issues, { unknownField });
  issues.push(...findDuplicates(args));
  if (!parsed.success || issues.length > 0) throw new ToolInputError(issues);

  const { questions, timeoutSeconds } = parsed.data;
  return {
    questions: questions.map((q) => {
      const canonical: Question = {
        id: q.id,
        header: truncateUtf16(q.header.trim(), MAX_HEADER_UNITS).trim(),
        question: q.question.trim(),
        options: q.options.map(canonicalOption),
        allowOther: true,
      };
      if (q.multiSelect === true) canonical.multiSelect = true;
      return canonical;
    }),
    timeoutSeconds: clampTimeout(timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS, limits),
  };
}

function canonicalOption(option: { label: string; description?: string | null | undefined }): QuestionOption {
  const description = option.description?.trim();
  return description ? { label: option.label.trim(), description } : { label: option.label.trim() };
}

/** Clamps into the deployment's range; the default timeout is clamped too. */
export function clampTimeout(seconds: number, limits: TimeoutLimits = {}): number {
  const min = limits.minTimeoutSeconds ?? MIN_TIMEOUT_SECONDS;
  const max = limits.maxTimeoutSeconds ?? MAX_TIMEOUT_SECONDS;
  if (min > max) throw new RangeError(`minTimeoutSeconds (${min}) is above maxTimeoutSeconds (${max})`);
  return Math.min(max, Math.max(min, seconds));
}

/** The contract's own sentence for an unknown field (each at its own path: lib/validation-messages.ts). */
function unknownField(_parent: readonly PropertyKey[], key: string): string {
  return SECRET_KEY.test(key)
    ? `"${key}" is not allowed: questions cannot ask for secrets or credentials; remove this field and never ask for credentials`
    : `unknown field "${key}"`;
}

/**
 * The rules that compare two values: question ids unique in the call, labels unique within a question
 * (trimmed, case-insensitive). Reported at the second occurrence. Works on the raw input so these problems
 * are reported together with the shape problems.
 */
function findDuplicates(args: unknown): ToolInputIssue[] {
  const issues: ToolInputIssue[] = [];
  const questions = isRecord(args) && Array.isArray(args.questions) ? args.questions : [];
  const seenIds = new Set<string>();
  questions.forEach((question: unknown, qi) => {
    if (!isRecord(question)) return;
    const id = question.id;
    if (typeof id === "string") {
      if (seenIds.has(id)) {
        issues.push({
          path: `questions.${qi}.id`,
          message: `duplicate question id "${id}": ids must be unique`,
        });
      }
      seenIds.add(id);
    }
    const options = Array.isArray(question.options) ? question.options : [];
    const seenLabels = new Set<string>();
    const questionName = typeof id === "string" ? `"${id}"` : `${qi + 1}`;
    options.forEach((option: unknown, oi) => {
      if (!isRecord(option) || typeof option.label !== "string") return;
      const folded = foldForComparison(option.label);
      if (folded === "") return;
      if (seenLabels.has(folded)) {
        issues.push({
          path: `questions.${qi}.options.${oi}.label`,
          message: `question ${questionName} has the label "${option.label.trim()}" twice (labels are compared ignoring case and surrounding spaces)`,
        });
      }
      seenLabels.add(folded);
    });
  });
  return issues;
}
