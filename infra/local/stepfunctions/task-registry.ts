import { decodeTaskToken, mintTaskToken } from "./task-token.ts";

export type TaskLookup<Task> =
  | { status: "live"; task: Task }
  /** Issued, then ended: answered, failed, timed out, or its execution stopped. */
  | { status: "ended" }
  /** Well-formed but never issued by this server. */
  | { status: "unknown" }
  | { status: "malformed" };

/** The tokens handed to waiting tasks: each maps to its task while it waits, and is never valid again after. */
export class TaskTokenRegistry<Task> {
  readonly #live = new Map<string, Task>();
  readonly #ended = new Set<string>();

  issue(task: Task): { taskId: string; token: string } {
    const minted = mintTaskToken();
    this.#live.set(minted.taskId, task);
    return minted;
  }

  retire(taskId: string): void {
    if (this.#live.delete(taskId)) this.#ended.add(taskId);
  }

  lookup(token: string): TaskLookup<Task> {
    const taskId = decodeTaskToken(token);
    if (taskId === undefined) return { status: "malformed" };
    const task = this.#live.get(taskId);
    if (task !== undefined) return { status: "live", task };
    return this.#ended.has(taskId) ? { status: "ended" } : { status: "unknown" };
  }
}
