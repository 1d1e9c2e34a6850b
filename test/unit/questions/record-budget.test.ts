import { describe, expect, it } from "vitest";
import { resultOf } from "#lib/app/question-result.ts";
import { questionEvent } from "#lib/events/question-event.ts";
import {
  type Delivery,
  type DeliveryTarget,
  MAX_COPIES,
  type QuestionRecord,
  type Vote,
} from "#lib/questions/question-record.ts";
import {
  copiesNotRecorded,
  copiesRoom,
  draftsFit,
  escalationReserve,
  jsonBytes,
  votesFit,
} from "#lib/questions/record-budget.ts";
import { MAX_DRAFTS_BYTES, MAX_VOTES_BYTES } from "#lib/questions/schema.ts";
import { ALPHABETS, type Alphabet, largestAnswers, largestRecord } from "../../support/largest-questions.ts";

/** Step Functions' task output and EventBridge's entry: 256 KiB; DynamoDB's item: 400 KB. */
const TASK_OUTPUT_BYTES = 262_144;
const EVENT_ENTRY_BYTES = 256_000;
const ITEM_BYTES = 400_000;

const person = (n: number) => `slack:T${"0".repeat(10)}:U${String(n).padStart(10, "0")}`;

/** A target with every id at the longest the API takes. */
const target = (n: number): DeliveryTarget => ({
  channel: "c".repeat(32),
  chatId: `${n}`.padStart(256, "x"),
  threadId: "t".repeat(256),
  serviceUrl: `https://${"s".repeat(504)}`,
});

/** A posted copy: its target, a message id longer than any platform's, and the person it is private to. */
const copy = (n: number): Delivery => ({ ...target(n), messageId: "m".repeat(300), privateTo: person(n) });

/** Every vote the budget takes: the longest answers, by the longest identities, until one more would not fit. */
function votesAtBudget(record: QuestionRecord, alphabet: Alphabet): Vote[] {
  const answers = largestAnswers(record.questions, alphabet);
  const votes: Vote[] = [];
  for (let n = 0; ; n++) {
    const next = [...votes, { by: person(n), answers, atMs: 1_700_000_000_000, key: "k".repeat(64) }];
    if (!votesFit(next)) return votes;
    votes.push(next.at(-1) as Vote);
  }
}

function draftsAtBudget(record: QuestionRecord, alphabet: Alphabet): NonNullable<QuestionRecord["drafts"]> {
  const own = { answers: largestAnswers(record.questions, alphabet), step: 2 };
  let drafts: NonNullable<QuestionRecord["drafts"]> = {};
  for (let n = 0; draftsFit(drafts, person(100 + n), own); n++)
    drafts = { ...drafts, [person(100 + n)]: own };
  return drafts;
}

/**
 * The largest record several people decide: nine answerers, an escalation to ten chats, MAX_COPIES copies
 * (however they came: targets, re-posts, steps), every id at its longest, votes and drafts at budget.
 */
function largestVotedRecord(alphabet: Alphabet): QuestionRecord {
  const pending = largestRecord(alphabet);
  const answerers = Array.from({ length: 9 }, (_, a) => ({ owner: person(a), fromMs: 0 }));
  return {
    ...pending,
    owner: person(99),
    requestedBy: person(98),
    askedBy: `api:${"n".repeat(64)}`,
    answerers,
    quorum: 10,
    escalate: {
      afterSeconds: 60,
      owner: person(97),
      deliverTo: Array.from({ length: 10 }, (_, n) => target(n)),
    },
    deliveries: Array.from({ length: MAX_COPIES }, (_, n) => copy(n)),
    votes: votesAtBudget(pending, alphabet),
    drafts: draftsAtBudget(pending, alphabet),
  };
}

describe("a question's votes and drafts budgets", () => {
  it.each(Object.keys(ALPHABETS) as Alphabet[])(
    "the largest result, event and item fit AWS's limits (%s)",
    (alphabet) => {
      const record = largestVotedRecord(alphabet);
      expect(jsonBytes(record.votes)).toBeGreaterThan(MAX_VOTES_BYTES - 40_000);
      expect(jsonBytes(record.votes)).toBeLessThanOrEqual(MAX_VOTES_BYTES);
      expect(jsonBytes(record.drafts)).toBeLessThanOrEqual(MAX_DRAFTS_BYTES);
      expect(jsonBytes(record.deliveries)).toBeGreaterThan(MAX_COPIES * 1_400);
      // A closing write drops the drafts (the stored item below keeps them while the question is pending).
      const { drafts: _dropped, ...closed } = record;
      const answered: QuestionRecord = {
        ...closed,
        status: "answered",
        answers: largestAnswers(record.questions, alphabet),
        resolvedBy: person(9),
      };
      // The result a run is resumed with: answers and every vote.
      expect(jsonBytes(resultOf(answered))).toBeLessThan(TASK_OUTPUT_BYTES * 0.6);
      const noQuorum: QuestionRecord = { ...closed, status: "no_quorum" };
      expect(jsonBytes(resultOf(noQuorum))).toBeLessThan(TASK_OUTPUT_BYTES * 0.6);
      // The "Question Resolved" event as PutEvents sends it: detail-type, source and the detail's JSON.
      const event = questionEvent("Question Resolved", answered);
      const entry = event.detailType.length + event.source.length + jsonBytes(event.detail);
      expect(entry).toBeLessThan(EVENT_ENTRY_BYTES * 0.9);
      // The stored item: the pending record at its largest (drafts kept) and the answered one (a closing
      // write drops drafts), with a task token beside it.
      const taskToken = "t".repeat(8192);
      expect(jsonBytes({ ...record, answers: answered.answers, taskToken })).toBeLessThan(ITEM_BYTES * 0.9);
    },
  );

  it("a vote or draft past the budget does not fit", () => {
    const record = largestRecord("mixed");
    const votes = votesAtBudget(record, "mixed");
    const one = votes[0] as Vote;
    expect(votesFit(votes)).toBe(true);
    expect(votesFit([...votes, one])).toBe(false);
    const drafts = draftsAtBudget(record, "mixed");
    const own = Object.values(drafts)[0] as NonNullable<QuestionRecord["drafts"]>[string];
    expect(draftsFit(drafts, "slack:T1:U_new", own)).toBe(false);
    // Replacing one's own draft with the same never grows the drafts.
    expect(draftsFit(drafts, Object.keys(drafts)[0] as string, own)).toBe(true);
  });

  it("a question records at most MAX_COPIES copies; past them the log says what becomes of the rest", () => {
    const copies = Array.from({ length: MAX_COPIES - 1 }, (_, n) => copy(n));
    const question = (deliveries: Delivery[]) => ({ deliveries });
    expect(copiesRoom(question(copies))).toBe(1);
    expect(copiesNotRecorded(question(copies), 1)).toBeUndefined();
    expect(copiesRoom(question([...copies, copy(99)]))).toBe(0);
    expect(copiesNotRecorded(question(copies), 3)?.message).toBe(
      `2 of 3 copies not recorded (a question records at most ${MAX_COPIES}, some kept for its escalation): a reply to one still routes to the question, but they are not retired when it ends`,
    );
  });

  it("keeps room for the escalation's targets until its own copies are recorded; the escalation itself may use it", () => {
    const escalate = {
      afterSeconds: 60,
      owner: "slack:T1:U_lead",
      deliverTo: [
        { channel: "slack", chatId: "D_lead" },
        { channel: "telegram", chatId: "42" },
      ],
    };
    const copies = Array.from({ length: MAX_COPIES - 3 }, (_, n) => copy(n));
    const question = { deliveries: copies, escalate };
    expect(escalationReserve(question)).toBe(2);
    expect(copiesRoom(question)).toBe(1);
    expect(copiesRoom(question, "escalation")).toBe(3);
    expect(copiesNotRecorded(question, 2)).toBeDefined();
    expect(copiesNotRecorded(question, 2, "escalation")).toBeUndefined();
    // A re-post into a target's chat (its time come or not) is no escalation copy: both targets stay kept,
    // for the escalation posts to each of them.
    const reposted = {
      ...question,
      deliveries: [...copies, { channel: "slack", chatId: "D_lead", messageId: "1" }],
    };
    expect(escalationReserve(reposted)).toBe(2);
    expect(copiesRoom(reposted)).toBe(0);
    // Once the escalation's own copies are recorded, a target whose chat holds no copy (it refused) stays kept.
    const escalated = {
      ...question,
      deliveries: [
        ...copies,
        { channel: "slack", chatId: "D_lead", messageId: "2", escalation: true as const },
      ],
    };
    expect(escalationReserve(escalated)).toBe(1);
    expect(copiesRoom(escalated)).toBe(1);
    const both = {
      ...escalated,
      deliveries: [...escalated.deliveries, { channel: "telegram", chatId: "42", escalation: true as const }],
    };
    expect(escalationReserve(both)).toBe(0);
    expect(copiesRoom(both)).toBe(1);
  });
});
