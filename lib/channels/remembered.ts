/**
 * A value read once per process, on first need (a bot's own username, from its platform's API): a success
 * is kept, a failure is not — the next caller asks again instead of inheriting the error.
 *
 * @example
 * const username = remembered(() => api.getMe().then((me) => me.username));
 * await username(); // asks once; later calls get the same answer
 */
export function remembered<T>(read: () => Promise<T>): () => Promise<T> {
  let kept: Promise<T> | undefined;
  return () => {
    if (kept) return kept;
    const asked = read();
    kept = asked;
    asked.catch(() => {
      if (kept === asked) kept = undefined;
    });
    return asked;
  };
}
