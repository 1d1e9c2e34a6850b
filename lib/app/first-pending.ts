import type { QuestionRecord } from "../questions/question-record.ts";
import type { PagePosition, PendingFilters, QuestionStore } from "../store/question-store.ts";

/** Questions read per page while looking. */
const PAGE_SIZE = 25;
/**
 * Pages read at most: a message routed by its sender looks among the sender's 100 oldest pending questions
 * (a person rarely has more; an agent that keeps more open for one person should have them answered by
 * reply or by button, which route by key). A message that fits none of them costs four bounded reads, not
 * a read of everything pending.
 */
const MAX_PAGES = 4;

/**
 * The oldest pending question matching `filters` for which `fits` holds, among the oldest MAX_PAGES ×
 * PAGE_SIZE, read a page at a time and no further than the first that fits: a typed reply routed by its
 * sender must not read all of an owner's pending questions (an agent may keep thousands open for one
 * person) to find the one in this chat.
 *
 * @example
 * const here = await firstPending(store, { owner: "telegram:42" }, nowMs, (r) =>
 *   r.deliveries.some((d) => d.channel === "telegram" && d.chatId === "42"));
 */
export async function firstPending(
  store: QuestionStore,
  filters: PendingFilters,
  nowMs: number,
  fits: (record: QuestionRecord) => boolean,
): Promise<QuestionRecord | undefined> {
  let after: PagePosition | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const read = await store.listPendingPage({ filters, limit: PAGE_SIZE, after }, nowMs);
    const found = read.questions.find(fits);
    if (found) return found;
    if (!read.next) return undefined;
    after = read.next;
  }
  return undefined;
}
