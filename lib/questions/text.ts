/**
 * Text helpers that count in UTF-16 code units, the unit JavaScript strings and the contract use.
 */

/** True for a UTF-16 high (leading) surrogate. */
function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** True for a UTF-16 low (trailing) surrogate. */
function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * The first `maxUnits` UTF-16 code units of `text`, one fewer when the cut would split a surrogate pair,
 * so an emoji at the boundary is dropped whole rather than left as half a character.
 */
export function truncateUtf16(text: string, maxUnits: number): string {
  if (text.length <= maxUnits) return text;
  const last = text.charCodeAt(maxUnits - 1);
  const next = text.charCodeAt(maxUnits);
  const splitsPair = isHighSurrogate(last) && isLowSurrogate(next);
  return text.slice(0, splitsPair ? maxUnits - 1 : maxUnits);
}

/**
 * `text` at most `maxUnits` UTF-16 code units, ending in "…" when cut (never half a surrogate pair); "" for
 * `maxUnits` 0.
 *
 * @example cutText("Where should it go?", 9) // → "Where sh…"
 */
export function cutText(text: string, maxUnits: number): string {
  if (text.length <= maxUnits) return text;
  if (maxUnits <= 0) return "";
  return `${truncateUtf16(text, maxUnits - 1).trimEnd()}…`;
}

/** Comparison key for labels and typed keys: trimmed, lower-cased. */
export function foldForComparison(text: string): string {
  return text.trim().toLowerCase();
}
