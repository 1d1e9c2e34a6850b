import { describe, expect, it } from "vitest";
import type { Vote } from "#lib/questions/question-record.ts";
import { answersKey, hasVoted, tally } from "#lib/questions/votes.ts";

const vote = (by: string, answers: Record<string, string[]>, skipped?: true): Vote => ({
  by,
  answers,
  atMs: 0,
  ...(skipped && { skipped }),
});

describe("counting votes", () => {
  it("the same answers: per question the same set of values, trimmed and case aside", () => {
    expect(answersKey({ a: ["Red", " blue "], b: ["x"] })).toBe(answersKey({ b: ["X"], a: ["BLUE", "red"] }));
    expect(answersKey({ a: ["Red"] })).not.toBe(answersKey({ a: ["Red", "Blue"] }));
    expect(answersKey({ a: ["Red"], b: ["x"] })).not.toBe(answersKey({ a: ["Red"], b: ["y"] }));
  });

  it("the same own text as typed answers match labels: NFKC, case, trailing marks aside", () => {
    // Full-width letters and a ligature are their plain forms; "Ship it!" and "ship it" agree.
    expect(answersKey({ a: ["\uFF32\uFF25\uFF24"] })).toBe(answersKey({ a: ["red"] }));
    expect(answersKey({ a: ["\uFB01ne"] })).toBe(answersKey({ a: ["Fine"] }));
    expect(answersKey({ a: ["Ship it!"] })).toBe(answersKey({ a: [" ship it "] }));
    expect(answersKey({ a: ["Red"] })).not.toBe(answersKey({ a: ["Reds"] }));
  });

  it("two labels that differ only loosely stay two answers; own text still agrees loosely", () => {
    const questions = [{ id: "q", options: [{ label: "Stop" }, { label: "Stop!" }] }];
    expect(answersKey({ q: ["Stop"] }, questions)).not.toBe(answersKey({ q: ["Stop!"] }, questions));
    expect(answersKey({ q: ["halt"] }, questions)).toBe(answersKey({ q: ["Halt!"] }, questions));
    const votes = [vote("web:a", { q: ["Stop"] }), vote("web:b", { q: ["Stop!"] })];
    expect(tally(votes, 2, ["web:a", "web:b", "web:c"], questions)).toEqual({ kind: "waiting", more: 1 });
  });

  it("agreed at the quorum: the first agreeing vote's answers", () => {
    const votes = [
      vote("web:a", { q: ["Yes"] }),
      vote("web:b", { q: ["No"] }),
      vote("web:c", { q: [" yes"] }),
    ];
    expect(tally(votes, 2, ["web:a", "web:b", "web:c"])).toEqual({ kind: "agreed", answers: { q: ["Yes"] } });
  });

  it("waiting: how many more agreeing votes the best answer needs", () => {
    expect(tally([vote("web:a", { q: ["Yes"] })], 3, ["web:a", "web:b", "web:c"])).toEqual({
      kind: "waiting",
      more: 2,
    });
    expect(tally([], 2, ["web:a", "web:b"])).toEqual({ kind: "waiting", more: 2 });
  });

  it("no_quorum once those who have not voted cannot lift any answer to the quorum", () => {
    const split = [vote("web:a", { q: ["Yes"] }), vote("web:b", { q: ["No"] })];
    // One person left: either answer can still reach 2.
    expect(tally(split, 2, ["web:a", "web:b", "web:c"]).kind).toBe("waiting");
    expect(tally(split, 2, ["web:a", "web:b"]).kind).toBe("no_quorum");
    expect(tally(split, 3, ["web:a", "web:b", "web:c"]).kind).toBe("no_quorum");
  });

  it("an abstention agrees with nothing, and uses up its person", () => {
    const votes = [vote("web:a", { q: ["Yes"] }), vote("web:b", {}, true)];
    expect(tally(votes, 2, ["web:a", "web:b"]).kind).toBe("no_quorum");
    expect(
      tally([vote("web:a", {}, true), vote("web:b", {}, true)], 2, ["web:a", "web:b", "web:c"]).kind,
    ).toBe("no_quorum");
  });

  it("never no_quorum while a group may answer (its members are not known)", () => {
    const split = [vote("telegram:1", { q: ["Yes"] }), vote("telegram:2", { q: ["No"] })];
    expect(tally(split, 5, undefined)).toEqual({ kind: "waiting", more: 4 });
  });

  it("a person has voted when a vote names them exactly, whatever the surface it came through", () => {
    expect(hasVoted([vote("web:bob", { q: ["Yes"] })], "web:bob")).toBe(true);
    expect(hasVoted([vote("web:bob", { q: ["Yes"] })], "web:carol")).toBe(false);
    const votes = [vote("web:a", { q: ["Yes"] }), vote("web:b", { q: ["No"] })];
    expect(tally(votes, 2, ["web:a", "web:b"]).kind).toBe("no_quorum");
  });
});
