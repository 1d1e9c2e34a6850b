import { describe, expect, it } from "vitest";
import { answerPath, createAnswerLinks, signAnswerLink, verifyAnswerLink } from "#lib/web/answer-link.ts";

const KEY = "k".repeat(32);
const question = { id: "ask_0123", owner: "web:ann", expiresAtMs: 1_800_000_000_000 };
const subject = { id: question.id, answerer: question.owner, expiresAtMs: question.expiresAtMs };

describe("answer links", () => {
  it("sign the question id, answerer and deadline: 43 characters of base64url, stable for the same input", () => {
    const sig = signAnswerLink(KEY, subject);
    expect(sig).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signAnswerLink(KEY, { ...subject })).toBe(sig);
    expect(verifyAnswerLink(KEY, subject, sig)).toBe(true);
  });

  it("do not open another question, answerer or deadline, or with another key", () => {
    const sig = signAnswerLink(KEY, subject);
    expect(verifyAnswerLink(KEY, { ...subject, id: "ask_0124" }, sig)).toBe(false);
    expect(verifyAnswerLink(KEY, { ...subject, answerer: "web:bob" }, sig)).toBe(false);
    expect(verifyAnswerLink(KEY, { ...subject, expiresAtMs: subject.expiresAtMs + 1 }, sig)).toBe(false);
    expect(verifyAnswerLink(`${KEY}x`, subject, sig)).toBe(false);
  });

  it("refuse any altered, shortened or malformed signature", () => {
    const sig = signAnswerLink(KEY, subject);
    for (let i = 0; i < sig.length; i++) {
      const altered = `${sig.slice(0, i)}${sig[i] === "A" ? "B" : "A"}${sig.slice(i + 1)}`;
      expect(verifyAnswerLink(KEY, subject, altered)).toBe(false);
    }
    for (const bad of ["", sig.slice(1), `${sig}A`, `${sig.slice(0, 42)}=`, sig.replace(/./, "+")]) {
      expect(verifyAnswerLink(KEY, subject, bad)).toBe(false);
    }
  });

  it("put the signature after the public URL's /answer/{id}; off without a key or a public URL", async () => {
    const sig = signAnswerLink(KEY, subject);
    const on = createAnswerLinks({ publicUrl: "https://api.example.com/", key: async () => KEY });
    expect(await on.urlFor(question)).toBe(`https://api.example.com/answer/ask_0123?sig=${sig}`);
    expect(await on.isOn()).toBe(true);
    expect(answerPath(question, question.owner, sig)).toBe(`/answer/ask_0123?sig=${sig}`);
    const noKey = createAnswerLinks({ publicUrl: "https://api.example.com", key: async () => undefined });
    expect(await noKey.urlFor(question)).toBeUndefined();
    expect(await noKey.isOn()).toBe(false);
    const noUrl = createAnswerLinks({ publicUrl: undefined, key: async () => KEY });
    expect(await noUrl.urlFor(question)).toBeUndefined();
    expect(await noUrl.isOn()).toBe(false);
  });

  it("name any answerer but the owner in `as`, signed for that answerer alone", async () => {
    const links = createAnswerLinks({ publicUrl: "https://api.example.com", key: async () => KEY });
    const url = new URL((await links.urlFor(question, "slack:T1:U2")) ?? "");
    expect(url.pathname).toBe("/answer/ask_0123");
    expect(url.searchParams.get("as")).toBe("slack:T1:U2");
    const sig = url.searchParams.get("sig") ?? "";
    expect(verifyAnswerLink(KEY, { ...subject, answerer: "slack:T1:U2" }, sig)).toBe(true);
    expect(verifyAnswerLink(KEY, subject, sig)).toBe(false);
    // The owner's link names nobody: it is the link owners were always sent.
    expect(await links.urlFor(question, question.owner)).toBe(await links.urlFor(question));
  });
});
