/**
 * Structured log lines. Callers pass only what is safe to log: ids, names, messages — never events, task
 * tokens, secrets or chat payloads.
 */
export function logError(
  context: string,
  error: unknown,
  fields: Record<string, string | number> = {},
): void {
  const detail =
    error instanceof Error
      ? { name: error.name, message: error.message, stack: error.stack }
      : { message: String(error) };
  console.error(JSON.stringify({ level: "error", context, ...fields, ...detail }));
}
