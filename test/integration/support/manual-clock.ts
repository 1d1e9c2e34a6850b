/**
 * A clock a test moves by hand (infra/local/scheduler.ts's SchedulerClock): nothing waits real time, and a
 * timer fires exactly when `advance` passes its time, in order.
 */
import type { SchedulerClock } from "#infra/local/scheduler.ts";

export interface ManualClock extends SchedulerClock {
  /**
   * Moves the time `ms` forward, firing each timer due on the way in time order (timers set meanwhile too),
   * and lets what each one started run until it waits again.
   */
  advance(ms: number): Promise<void>;
}

/** @example const clock = manualClock(Date.UTC(2030, 0, 1)); await clock.advance(1_000); */
export function manualClock(startMs: number): ManualClock {
  let now = startMs;
  let made = 0;
  const timers = new Map<number, { atMs: number; due: () => void }>();
  return {
    now: () => now,
    after(ms, due) {
      const id = ++made;
      timers.set(id, { atMs: now + Math.max(0, ms), due });
      return () => timers.delete(id);
    },
    async advance(ms) {
      const until = now + ms;
      for (;;) {
        const [next] = [...timers.entries()]
          .filter(([, timer]) => timer.atMs <= until)
          .sort(([a, x], [b, y]) => x.atMs - y.atMs || a - b);
        if (!next) break;
        const [id, timer] = next;
        timers.delete(id);
        now = Math.max(now, timer.atMs);
        timer.due();
        // Every promise the timer's work chains runs before an immediate does.
        await new Promise((resolve) => setImmediate(resolve));
      }
      now = until;
    },
  };
}
