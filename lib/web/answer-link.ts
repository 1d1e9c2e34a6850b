/**
 * The answer page's capability links: `<public URL>/answer/{id}?sig=<signature>`. The signature is an
 * HMAC-SHA256 under the deployment's link secret (`link-secret`) over the question id, its owner and its
 * deadline, base64url: holding the link is the owner's right to answer that one question, like an e-mail
 * approval link. Nothing else is in the URL, so a link cannot be bent to another question or owner, and a
 * link made for one deadline does not open a question stored with another.
 *
 * Without a link secret (or without a public URL to put in front of it) the page is off: no link is made
 * anywhere, and the page's route answers 404.
 */
import { createHmac } from "node:crypto";
import { safeEqual } from "../http/safe-equal.ts";
import type { QuestionRecord } from "../questions/question-record.ts";

/** What a link is bound to: the parts of a question that never change after it is created. */
export type LinkSubject = Pick<QuestionRecord, "id" | "owner" | "expiresAtMs">;

/** base64url of a 32-byte HMAC-SHA256, unpadded. */
export const SIGNATURE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The signed message: a fixed purpose first (a value signed here can never pass for another Handraise
 * signature made with the same key), then the fields, one per line. A question id has no line break, and an
 * owner has no whitespace (`ownerSchema`), so no two subjects give the same message.
 */
function message(subject: LinkSubject): string {
  return `handraise-answer-link/v1\n${subject.id}\n${subject.owner}\n${subject.expiresAtMs}`;
}

/** @example signAnswerLink(key, record) // → "3q2-…" (43 characters) */
export function signAnswerLink(key: string, subject: LinkSubject): string {
  return createHmac("sha256", key).update(message(subject)).digest("base64url");
}

/** Whether `presented` is this question's signature, compared in constant time. */
export function verifyAnswerLink(key: string, subject: LinkSubject, presented: string): boolean {
  return SIGNATURE_PATTERN.test(presented) && safeEqual(presented, signAnswerLink(key, subject));
}

/** The page's path and query for a question: relative to the public URL. */
export function answerPath(id: string, sig: string): string {
  return `/answer/${encodeURIComponent(id)}?sig=${sig}`;
}

/**
 * Makes each question's link, for everything that shows one: chat messages, the question API, the terminal.
 *
 * @example
 * const links = createAnswerLinks({ publicUrl: "https://api.example.com", key: () => secrets.get("link-secret") });
 * await links.urlFor(record) // → "https://api.example.com/answer/ask_…?sig=…", or undefined when off
 */
export interface AnswerLinks {
  /** The question's link; undefined when the page is off in this deployment. */
  urlFor(subject: LinkSubject): Promise<string | undefined>;
}

export function createAnswerLinks(options: {
  publicUrl: string | undefined;
  key: () => Promise<string | undefined>;
}): AnswerLinks {
  const base = options.publicUrl?.replace(/\/+$/, "");
  return {
    async urlFor(subject) {
      if (base === undefined) return undefined;
      const key = await options.key();
      return key === undefined ? undefined : `${base}${answerPath(subject.id, signAnswerLink(key, subject))}`;
    },
  };
}

/** For functions that show no link: always off. */
export const NO_ANSWER_LINKS: AnswerLinks = { urlFor: async () => undefined };
