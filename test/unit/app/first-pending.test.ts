import { describe, expect, it } from "vitest";
import { firstPending } from "#lib/app/first-pending.ts";
import type { QuestionRecord } from "#lib/questions/question-record.ts";
import type { PendingPageQuery, QuestionStore } from "#lib/store/question-store.ts";

/** A store whose owner has `count` pending questions, `ask_0` oldest; it records every page asked for. */
function storeWith(count: number) {
  const all = Array.from(
    { length: count },
    (_, i) =>
      ({
        id: `ask_${i}`,
        createdAtMs: i,
        deliveries: [{ channel: "telegram", chatId: `${i}` }],
      }) as QuestionRecord,
  );
  const pages: PendingPageQuery[] = [];
  const store = {
    listPendingPage: async (query: PendingPageQuery) => {
      pages.push(query);
      const start = query.after ? all.findIndex((r) => r.id === query.after?.id) + 1 : 0;
      const questions = all.slice(start, start + query.limit);
      const last = questions.at(-1);
      return start + query.limit < all.length && last
        ? { questions, next: { createdAtMs: last.createdAtMs, id: last.id } }
        : { questions };
    },
  } as unknown as QuestionStore;
  return { store, pages };
}

const inChat = (chatId: string) => (record: QuestionRecord) =>
  record.deliveries.some((d) => d.chatId === chatId);

describe("firstPending", () => {
  it("reads no further than the page holding the oldest question that fits", async () => {
    const { store, pages } = storeWith(1_000);
    expect((await firstPending(store, { owner: "telegram:42" }, 0, inChat("3")))?.id).toBe("ask_3");
    expect(pages).toHaveLength(1);
    expect((await firstPending(store, { owner: "telegram:42" }, 0, inChat("60")))?.id).toBe("ask_60");
    expect(pages).toHaveLength(1 + 3);
    expect(pages.every((page) => page.limit <= 25 && page.filters.owner === "telegram:42")).toBe(true);
  });

  it("reads every page, each bounded, when nothing fits", async () => {
    const { store, pages } = storeWith(60);
    expect(await firstPending(store, { owner: "telegram:42" }, 0, inChat("none"))).toBeUndefined();
    expect(pages.map((page) => page.after?.id)).toEqual([undefined, "ask_24", "ask_49"]);
  });

  it("looks among the oldest 100 at most: four bounded reads, whatever the owner has pending", async () => {
    const { store, pages } = storeWith(10_000);
    expect(await firstPending(store, { owner: "telegram:42" }, 0, inChat("none"))).toBeUndefined();
    expect(pages).toHaveLength(4);
    expect(await firstPending(store, { owner: "telegram:42" }, 0, inChat("99"))).toMatchObject({
      id: "ask_99",
    });
    expect(await firstPending(store, { owner: "telegram:42" }, 0, inChat("100"))).toBeUndefined();
  });
});
