import type { QuestionRecord } from "../questions/question-record.ts";
import type { PagePosition, PendingFilters, QuestionStore } from "../store/question-store.ts";

/** Questions read per page while looking: a few pages cover any owner a person actually is. */
const PAGE_SIZE = 25;

/**
 * The oldest pending question matching `filters` for which `fits` holds, read a page at a time and no
 * further than the first that fits: a typed reply routed by its sender must not read all of an owner's
 * pending questions (an agent may keep thousands open for one person) to find the one in this chat.
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
  do {
    const page = await store.listPendingPage({ filters, limit: PAGE_SIZE, after }, nowMs);
    const found = page.questions.find(fits);
    if (found) return found;
    after = page.next;
  } while (after);
  return undefined;
}
