/**
 * Counting the votes of a question that needs several agreeing answers (`quorum` > 1): pure, so every path
 * that records a vote decides the same way (lib/app/resolve-question.ts).
 */
import { looseKey } from "./options.ts";
import type { Vote } from "./question-record.ts";
import type { Answers, Question } from "./schema.ts";

/**
 * What the votes decide: `agreed` (n of them gave the same answers: the first of those), `no_quorum` (the
 * people who have not voted can no longer make any answer reach n), or `waiting` for `more` agreeing votes.
 */
export type Tally =
  | { kind: "agreed"; answers: Answers }
  | { kind: "no_quorum" }
  | { kind: "waiting"; more: number };

/** The questions as votes compare their answers: each one's id and option labels. */
export type VotedQuestions = readonly Pick<Question, "id" | "options">[];

/**
 * The same answers, as compared between votes: per question the same set of values. An option's label is
 * compared as it is (every answer path has already turned a person's words into the label they name, so two
 * labels that differ only loosely — "Stop" and "Stop!" — stay two answers); own text is compared as a typed
 * answer is matched to a label (Unicode NFKC, case aside, trimmed, without trailing `.` / `!`).
 */
export function answersKey(answers: Answers, questions: VotedQuestions = []): string {
  const ids = Object.keys(answers).sort();
  return JSON.stringify(
    ids.map((id) => {
      const labels = new Set(questions.find((question) => question.id === id)?.options?.map((o) => o.label));
      const keys = (answers[id] ?? []).map((value) =>
        labels.has(value) ? `=${value}` : `~${looseKey(value)}`,
      );
      return [id, [...new Set(keys)].sort()];
    }),
  );
}

/**
 * Whether `identity` has voted already: a person votes once, in a chat or on the page. A vote over the API is
 * its key's (`api:…`, one per key: lib/app/resolve-question.ts), never a person's.
 */
export function hasVoted(votes: readonly Vote[] | undefined, identity: string): boolean {
  return voteOf(votes, identity) !== undefined;
}

/** The vote `identity` gave, if any (one per person). */
export function voteOf(votes: readonly Vote[] | undefined, identity: string): Vote | undefined {
  return votes?.find((vote) => vote.by === identity);
}

/**
 * Tallies `votes` against `quorum` (`questions`: whose labels are compared exactly, answersKey). `voters`: everyone who may still vote besides those who have (undefined
 * when a group may answer: its members are not known, so the question never closes for want of them).
 */
export function tally(
  votes: readonly Vote[],
  quorum: number,
  voters: readonly string[] | undefined,
  questions: VotedQuestions = [],
): Tally {
  const agreeing = new Map<string, Vote[]>();
  for (const vote of votes) {
    if (vote.skipped) continue;
    const key = answersKey(vote.answers, questions);
    agreeing.set(key, [...(agreeing.get(key) ?? []), vote]);
  }
  let most = 0;
  for (const same of agreeing.values()) {
    const first = same[0];
    if (same.length >= quorum && first) return { kind: "agreed", answers: first.answers };
    most = Math.max(most, same.length);
  }
  if (voters !== undefined) {
    const voted = new Set(votes.map((vote) => vote.by));
    const yetToVote = voters.filter((person) => !voted.has(person)).length;
    if (most + yetToVote < quorum) return { kind: "no_quorum" };
  }
  return { kind: "waiting", more: quorum - most };
}
