/** The bench's progress lines on stderr: how long a step took, in seconds with one decimal. */
export function secondsSince(startedMs: number): string {
  return ((performance.now() - startedMs) / 1000).toFixed(1);
}
