import type { Question } from "./schema.ts";
import { foldForComparison } from "./text.ts";

/** The declared label equal to `text` after trimming, ignoring case; undefined when none is. */
export function matchLabel(question: Question, text: string): string | undefined {
  const folded = foldForComparison(text);
  return question.options.find((option) => foldForComparison(option.label) === folded)?.label;
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
