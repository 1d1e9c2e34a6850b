/**
 * Hands a person their own answer link through a conversation they open themselves, where the platform has
 * no private reply to a tap in a shared chat (Telegram: the tap is answered with a `t.me` link that opens the
 * bot's private chat, which sends `/start <token>`). The token names the question and the tapper, never the
 * link: the link is made only when that same person redeems the token, and only while they may answer.
 */
import { randomBytes } from "node:crypto";
import { answerRefusal, type QuestionRecord, viaOwnLink } from "../questions/question-record.ts";
import type { QuestionStore } from "../store/question-store.ts";
import type { AnswerLinks } from "../web/answer-link.ts";

/** 32 base64url characters (192 random bits): within Telegram's start parameter (≤ 64 of A–Z a–z 0–9 _ -). */
export const LINK_TOKEN_PATTERN = /^[A-Za-z0-9_-]{32}$/;

export interface LinkHandoverDeps {
  store: QuestionStore;
  links: AnswerLinks;
  now: () => number;
}

export type Redeemed =
  /** The redeemer's own link to a question they may answer now. */
  | { kind: "link"; url: string; record: QuestionRecord }
  /**
   * Nothing to hand over — an unknown, used or expired token, one made for someone else, a question that has
   * ended: all alike, so the answer says nothing about any question.
   */
  | { kind: "none" };

/**
 * @example
 * const handover = createLinkHandover({ store, links, now: Date.now });
 * const token = await handover.issue(record, "telegram:42"); // on the tap of "Answer in browser"
 * await handover.redeem(token, "telegram:42"); // → { kind: "link", url, record }, once
 */
export function createLinkHandover(deps: LinkHandoverDeps) {
  return {
    /**
     * A new single-use token for `answerer` (who was just found to may answer `record`), expiring with the
     * question.
     */
    async issue(record: QuestionRecord, answerer: string): Promise<string> {
      const token = randomBytes(24).toString("base64url");
      await deps.store.saveLinkToken({
        token,
        questionId: record.id,
        answerer,
        expiresAtMs: record.expiresAtMs,
      });
      return token;
    },

    /** The link of `actor` for the token's question, if the token is theirs: it is used up by this call. */
    async redeem(token: string, actor: string): Promise<Redeemed> {
      // A malformed token costs no database request.
      if (!LINK_TOKEN_PATTERN.test(token)) return { kind: "none" };
      const now = deps.now();
      const taken = await deps.store.takeLinkToken(token, actor, now);
      if (!taken) return { kind: "none" };
      const record = await deps.store.get(taken.questionId, now);
      // Checked again: the question may have ended, or its answerers changed, since the tap.
      // Not for the person it was asked for, even as its owner (the page would refuse them anyway).
      if (record?.status !== "pending" || answerRefusal(record, actor, now, viaOwnLink(actor)) !== undefined)
        return { kind: "none" };
      const url = await deps.links.urlFor(record, actor);
      return url === undefined ? { kind: "none" } : { kind: "link", url, record };
    },
  };
}

export type LinkHandover = ReturnType<typeof createLinkHandover>;
