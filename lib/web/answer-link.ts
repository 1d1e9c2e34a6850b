/**
 * The answer page's capability links: `<public URL>/answer/{id}?sig=<signature>` for the question's owner,
 * `…/answer/{id}?as=<answerer>&sig=<signature>` for anyone else who may answer it (an escalation owner, or a
 * person who asked for their own link from a shared chat). The signature is an HMAC-SHA256 under the
 * deployment's link secret (`link-secret`) over the question id, that one answerer and the question's
 * deadline, base64url: holding the link is that person's right to answer that one question, like an e-mail
 * approval link. A link cannot be bent to another question, another answerer or another deadline.
 *
 * Because a link lets its holder act as its answerer, it is shown only where that person alone can read it:
 * a one-to-one conversation between the bot and them, an ephemeral reply, the terminal, the API's caller
 * (lib/channels/answer-in-browser.ts decides this for chat messages).
 *
 * Without a link secret (or without a public URL to put in front of it) the page is off: no link is made
 * anywhere, and the page's route answers 404.
 */
import { createHmac } from "node:crypto";
import { safeEqual } from "../http/safe-equal.ts";
import type { QuestionRecord } from "../questions/question-record.ts";

/** The parts of a question a link is bound to, besides its answerer: they never change after it is created. */
export type LinkQuestion = Pick<QuestionRecord, "id" | "owner" | "expiresAtMs">;

/** What a link is bound to: one question, one answerer (a platform-qualified identity), one deadline. */
export interface LinkSubject {
  id: string;
  answerer: string;
  expiresAtMs: number;
}

/** base64url of a 32-byte HMAC-SHA256, unpadded. */
export const SIGNATURE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The signed message: a fixed purpose first (a value signed here can never pass for another Handraise
 * signature made with the same key), then the fields, one per line. A question id has no line break, and an
 * identity has no whitespace (`ownerSchema`), so no two subjects give the same message. The owner's link
 * signs exactly what the owner-only links did, so links already sent keep working.
 */
function message(subject: LinkSubject): string {
  return `handraise-answer-link/v1\n${subject.id}\n${subject.answerer}\n${subject.expiresAtMs}`;
}

/** @example signAnswerLink(key, { id, answerer: "telegram:42", expiresAtMs }) // → "3q2-…" (43 characters) */
export function signAnswerLink(key: string, subject: LinkSubject): string {
  return createHmac("sha256", key).update(message(subject)).digest("base64url");
}

/** Whether `presented` is the signature of this question for this answerer, compared in constant time. */
export function verifyAnswerLink(key: string, subject: LinkSubject, presented: string): boolean {
  return SIGNATURE_PATTERN.test(presented) && safeEqual(presented, signAnswerLink(key, subject));
}

/**
 * The page's path and query: relative to the public URL. The owner's link names no answerer (the page
 * takes the owner); any other answerer is named in `as`.
 */
export function answerPath(question: LinkQuestion, answerer: string, sig: string): string {
  const as = answerer === question.owner ? "" : `as=${encodeURIComponent(answerer)}&`;
  return `/answer/${encodeURIComponent(question.id)}?${as}sig=${sig}`;
}

/**
 * Makes a question's links, for everything that shows one: chat messages in private conversations, a
 * private reply to an "Answer in browser" tap, the question API, the terminal.
 *
 * @example
 * const links = createAnswerLinks({ publicUrl: "https://api.example.com", key: () => secrets.get("link-secret") });
 * await links.urlFor(record) // the owner's → "https://api.example.com/answer/ask_…?sig=…", or undefined when off
 * await links.urlFor(record, "slack:T1:U2") // → "https://api.example.com/answer/ask_…?as=slack%3AT1%3AU2&sig=…"
 */
export interface AnswerLinks {
  /** Whether this deployment makes links at all (a link secret and a public URL). */
  isOn(): Promise<boolean>;
  /** The link of `answerer` (default: the owner); undefined when the page is off in this deployment. */
  urlFor(question: LinkQuestion, answerer?: string): Promise<string | undefined>;
}

export function createAnswerLinks(options: {
  publicUrl: string | undefined;
  key: () => Promise<string | undefined>;
}): AnswerLinks {
  const base = options.publicUrl?.replace(/\/+$/, "");
  const keyIfOn = async () => (base === undefined ? undefined : options.key());
  return {
    isOn: async () => (await keyIfOn()) !== undefined,
    async urlFor(question, answerer = question.owner) {
      const key = await keyIfOn();
      if (key === undefined) return undefined;
      const sig = signAnswerLink(key, { id: question.id, answerer, expiresAtMs: question.expiresAtMs });
      return `${base}${answerPath(question, answerer, sig)}`;
    },
  };
}

/** For functions that show no link: always off. */
export const NO_ANSWER_LINKS: AnswerLinks = { isOn: async () => false, urlFor: async () => undefined };
