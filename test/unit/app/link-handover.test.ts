/** Handing a tapper their own link through a one-time token: theirs alone, once, while they may answer. */
import { describe, expect, it } from "vitest";
import { createLinkHandover, LINK_TOKEN_PATTERN } from "#lib/app/link-handover.ts";
import { normalizeAskUserArgs } from "#lib/questions/index.ts";
import type { QuestionRecord } from "#lib/questions/question-record.ts";
import type { LinkToken, QuestionStore } from "#lib/store/question-store.ts";
import { createAnswerLinks, NO_ANSWER_LINKS } from "#lib/web/answer-link.ts";

const { questions } = normalizeAskUserArgs({
  questions: [{ id: "q", header: "H", question: "Q?", options: [{ label: "A" }, { label: "B" }] }],
});
const DEADLINE = 60_000;
const base: QuestionRecord = {
  id: "ask_1",
  status: "pending",
  questions,
  owner: "telegram:42",
  deliveries: [{ channel: "telegram", chatId: "-100", messageId: "7" }],
  createdAtMs: 0,
  expiresAtMs: DEADLINE,
};
const links = createAnswerLinks({ publicUrl: "https://handraise.test", key: async () => "k".repeat(32) });

/** A store holding one question and the tokens, with the take's conditions as the DynamoDB store has them. */
function handover(options: { record?: QuestionRecord; links?: typeof links } = {}) {
  let now = 1_000;
  const tokens = new Map<string, LinkToken>();
  const requests: string[] = [];
  const store = {
    get: async (id: string) => (id === base.id ? (options.record ?? base) : undefined),
    saveLinkToken: async (token: LinkToken) => {
      tokens.set(token.token, token);
    },
    takeLinkToken: async (token: string, answerer: string, nowMs: number) => {
      requests.push(token);
      const found = tokens.get(token);
      if (!found || found.answerer !== answerer || found.expiresAtMs <= nowMs) return undefined;
      tokens.delete(token);
      return found;
    },
  } as unknown as QuestionStore;
  const use = createLinkHandover({ store, links: options.links ?? links, now: () => now });
  return { use, tokens, requests, at: (ms: number) => (now = ms) };
}

describe("link handover", () => {
  it("issues a random token of Telegram's start alphabet, stored for that person and question until its deadline", async () => {
    const { use, tokens } = handover();
    const first = await use.issue(base, "telegram:42");
    const second = await use.issue(base, "telegram:42");
    expect(first).toMatch(LINK_TOKEN_PATTERN);
    expect(first).not.toBe(second);
    expect(tokens.get(first)).toEqual({
      token: first,
      questionId: "ask_1",
      answerer: "telegram:42",
      expiresAtMs: DEADLINE,
    });
  });

  it("redeemed by its person: their own link, once", async () => {
    const { use } = handover();
    const token = await use.issue(base, "telegram:42");
    const redeemed = await use.redeem(token, "telegram:42");
    expect(redeemed).toEqual({ kind: "link", url: await links.urlFor(base, "telegram:42"), record: base });
    expect(await use.redeem(token, "telegram:42")).toEqual({ kind: "none" });
  });

  it("an escalation owner's token hands their link (as=), not the owner's", async () => {
    const escalated = {
      ...base,
      escalate: { afterSeconds: 1, owner: "telegram:77", deliverTo: [{ channel: "telegram", chatId: "77" }] },
    };
    const { use } = handover({ record: escalated });
    const redeemed = await use.redeem(await use.issue(escalated, "telegram:77"), "telegram:77");
    expect(redeemed.kind === "link" && new URL(redeemed.url).searchParams.get("as")).toBe("telegram:77");
  });

  it("someone else gets nothing, and the token stays for its person", async () => {
    const { use } = handover();
    const token = await use.issue(base, "telegram:42");
    expect(await use.redeem(token, "telegram:99")).toEqual({ kind: "none" });
    expect((await use.redeem(token, "telegram:42")).kind).toBe("link");
  });

  it("nothing for an expired, unknown or malformed token; a malformed one is not even looked up", async () => {
    const { use, requests, at } = handover();
    const token = await use.issue(base, "telegram:42");
    at(DEADLINE);
    expect(await use.redeem(token, "telegram:42")).toEqual({ kind: "none" });
    at(1_000);
    expect(await use.redeem("A".repeat(32), "telegram:42")).toEqual({ kind: "none" });
    requests.length = 0;
    for (const malformed of ["", "short", "A".repeat(33), `${"A".repeat(31)}!`]) {
      expect(await use.redeem(malformed, "telegram:42")).toEqual({ kind: "none" });
    }
    expect(requests).toEqual([]);
  });

  it("nothing once the question has ended, or while the redeemer may not answer it yet, or with the page off", async () => {
    const answered = handover({ record: { ...base, status: "answered" } });
    const tokenA = await answered.use.issue(base, "telegram:42");
    expect(await answered.use.redeem(tokenA, "telegram:42")).toEqual({ kind: "none" });

    // A token for someone who may not answer (an escalation owner before its time) opens nothing.
    const early = handover({
      record: {
        ...base,
        escalate: {
          afterSeconds: 30,
          owner: "telegram:77",
          deliverTo: [{ channel: "telegram", chatId: "77" }],
        },
      },
    });
    const tokenE = await early.use.issue(base, "telegram:77");
    expect(await early.use.redeem(tokenE, "telegram:77")).toEqual({ kind: "none" });

    const off = handover({ links: NO_ANSWER_LINKS });
    expect(await off.use.redeem(await off.use.issue(base, "telegram:42"), "telegram:42")).toEqual({
      kind: "none",
    });
  });
});
