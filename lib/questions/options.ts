import type { Question } from "./schema.ts";
import { foldForComparison } from "./text.ts";

/** The suffix the tool asks models to put after the recommended option's label; a person need not type it. */
const RECOMMENDED_SUFFIX = /\s*\(recommended\)$/;

/**
 * How a person's words and a label are compared when nothing matches more closely: Unicode NFKC (full-width
 * letters, ligatures and compatibility forms as their plain ones), trimmed, lower-cased, without trailing
 * `.` or `!` ("Yes." and "yes!" are "yes"). A text made only of those marks keeps them. Votes compare
 * answers the same way (lib/questions/votes.ts).
 */
export function looseKey(text: string): string {
  const folded = text.normalize("NFKC").trim().toLowerCase();
  const bare = folded.replace(/[.!]+$/u, "").trimEnd();
  return bare === "" ? folded : bare;
}

/** A label's loose key without its " (Recommended)" suffix. */
const keyWithoutSuffix = (label: string) => looseKey(looseKey(label).replace(RECOMMENDED_SUFFIX, ""));

/**
 * The declared label `text` names, or undefined when it names none (then it is the person's own answer).
 * The one matching rule of every answer path — typed lines, the API, the answer page, MCP and durable
 * answers — tried from the closest match to the loosest, the first option winning within a step:
 * 1. the label exactly (surrounding white space aside);
 * 2. ignoring case;
 * 3. the loose comparison above (NFKC, case, trailing `.` / `!`);
 * 4. the same with the label's " (Recommended)" left out: `staging` names "Staging (Recommended)".
 * So an exact label always wins over one matched only without the suffix ("Staging" beside "Staging
 * (Recommended)").
 */
export function matchLabel(question: Question, text: string): string | undefined {
  const trimmed = text.trim();
  const folded = foldForComparison(text);
  const loose = looseKey(text);
  const steps: ((label: string) => boolean)[] = [
    (label) => label.trim() === trimmed,
    (label) => foldForComparison(label) === folded,
    (label) => looseKey(label) === loose,
    (label) => keyWithoutSuffix(label) === loose,
  ];
  for (const matches of steps) {
    const found = question.options.find((option) => matches(option.label));
    if (found) return found.label;
  }
  return undefined;
}

/** Digits only: "02" is 2, "+2" and "2.0" are not numbers. */
const OPTION_NUMBER = /^\d+$/;

/**
 * The option a typed value names: its 1-based number or its label; undefined when it names none (then the
 * value is free text).
 */
export function matchTypedOption(question: Question, text: string): string | undefined {
  const trimmed = text.trim();
  if (OPTION_NUMBER.test(trimmed)) {
    const index = Number.parseInt(trimmed, 10) - 1;
    const option = question.options[index];
    if (option) return option.label;
  }
  return matchLabel(question, trimmed);
}

/** A typed value resolved to an option label, or kept as trimmed free text. */
export function resolveTypedValue(question: Question, text: string): string {
  return matchTypedOption(question, text) ?? text.trim();
}

/** Keeps the first of repeated values, in order. */
export function dedupe(values: readonly string[]): string[] {
  return [...new Set(values)];
}
