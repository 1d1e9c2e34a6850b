/**
 * What `npm run doctor` reports: one line per check, `✓ <what>` when it passed, `✗ <what> — <the fix>` when it
 * did not. Every check of scripts/lib/doctor-*.ts returns these; scripts/lib/doctor.ts prints them.
 */

export interface Check {
  ok: boolean;
  /** What was checked and what was found, as a sentence without its full stop. */
  what: string;
  /** What to do about it (failed checks only). */
  fix?: string;
}

export const pass = (what: string): Check => ({ ok: true, what });

export const fail = (what: string, fix: string): Check => ({ ok: false, what, fix });

export function lineOf(check: Check): string {
  return check.ok ? `✓ ${check.what}` : `✗ ${check.what} — ${check.fix}`;
}

/** A URL as it may be shown: scheme, host and path, without credentials or a query that could hold them. */
export function shownUrl(text: string): string {
  try {
    const url = new URL(text);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return "(not a URL)";
  }
}

/** An error in a few words, for a line: its name and message, cut short. */
export function describeFailure(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
