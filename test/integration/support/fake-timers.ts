/**
 * Real sockets on vitest's fake timers (`vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout",
 * "Date"] })`): what a test of a timeout uses to let I/O move while the clock only moves when it says.
 */
import { expect, vi } from "vitest";

/**
 * Lets the sockets move (real I/O) until `done` holds, the clock 1 ms further at each turn that did not get
 * there (a retry's backoff of 0 is a timer of 1 ms); fails the test if it never does within `turns`.
 */
export async function settledOnFakeClock(done: () => boolean, turns = 20_000): Promise<void> {
  for (let turn = 0; turn < turns && !done(); turn++) {
    await new Promise((resolve) => setImmediate(resolve));
    if (!done()) await vi.advanceTimersByTimeAsync(1);
  }
  expect(done()).toBe(true);
}
