/**
 * What every QuestionStore (lib/store/question-store.ts) does, as one set of tests run against each adapter
 * with the same assertions: the DynamoDB store on dynalite and the in-memory one
 * (test/integration/question-store.test.ts). A test that passes here on one and fails on the other has
 * found a way to tell them apart through the port.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { normalizeAskUserArgs } from "#lib/questions/index.ts";
import { MAX_COPIES } from "#lib/questions/question-record.ts";
import { keys } from "#lib/store/keys.ts";
import {
  type NewQuestion,
  type Outcome,
  PRIVATE_CHAT_KEPT,
  PRIVATE_CHAT_LOOKUP,
  type QuestionStore,
  type VoteOutcome,
} from "#lib/store/question-store.ts";
import { newQuestion as storeQuestion } from "./records.ts";

/** A store to test, and a way past it into the items it keeps (as one may look into the table). */
export interface StoreUnderTest {
  store: QuestionStore;
  /** The item stored under `pk`, read past the store: what a refused write must have left alone. */
  storedItem(pk: string): Promise<Record<string, unknown> | undefined>;
  /** Writes an item past the store: what a crash between two writes leaves behind. */
  putItem(item: Record<string, unknown> & { pk: string }): Promise<void>;
  /** Deletes an item past the store: what TTL does. */
  deleteItem(pk: string): Promise<void>;
  /**
   * The `nth` request from now (1: the next) is applied and its response lost (a 500 after the write), so it
   * is sent again as the SDK retries it.
   */
  loseResponse(nth?: number): void;
}

export const T0 = 1_800_000_000_000;
let counter = 0;

/** A one-question ask of 60 s by `web:alice` at T0, with an id no other test uses. */
export function newQuestion(overrides: Partial<NewQuestion> = {}): NewQuestion {
  const request = normalizeAskUserArgs({
    questions: [{ id: "q", header: "H", question: "Q?", options: [{ label: "A" }, { label: "B" }] }],
    timeoutSeconds: 60,
  });
  return storeQuestion({
    ...request,
    id: `ask_${++counter}_${Date.now()}`,
    owner: "web:alice",
    createdAtMs: T0,
    ...overrides,
  });
}

/** Two questions, so a draft can hold the first answer while the second is still open (the stepper's case). */
export function twoStepQuestion(overrides: Partial<NewQuestion> = {}): NewQuestion {
  const request = normalizeAskUserArgs({
    questions: [
      {
        id: "colour",
        header: "Colour",
        question: "Which colour?",
        options: [{ label: "Red" }, { label: "Blue" }],
      },
      { id: "size", header: "Size", question: "Which size?", options: [{ label: "S" }, { label: "L" }] },
    ],
    timeoutSeconds: 60,
  });
  return { ...newQuestion(overrides), ...request };
}

/** Registers the contract's tests for the store `open` returns (called once, before them). */
export function describeQuestionStoreContract(name: string, open: () => Promise<StoreUnderTest>): void {
  describe(`${name}: the QuestionStore contract`, () => {
    let subject: StoreUnderTest;
    let store: QuestionStore;
    beforeAll(async () => {
      subject = await open();
      store = subject.store;
    });
    const storedItem = (id: string) => subject.storedItem(keys.question(id));

    it("creates a pending record whose deadline is creation + timeout, without exposing the token", async () => {
      const created = await store.create(newQuestion({ taskToken: "secret-token", runId: "run-1" }), T0);
      expect(created.kind).toBe("created");
      if (created.kind !== "created") return;
      expect(created.record).toMatchObject({ status: "pending", expiresAtMs: T0 + 60_000, deliveries: [] });
      expect(JSON.stringify(created.record)).not.toContain("secret-token");
      expect(JSON.stringify(await store.get(created.record.id, T0))).not.toContain("secret-token");
    });

    it("derives expired on read once the deadline has passed, and lists it no more", async () => {
      const question = newQuestion({ owner: "web:expiry" });
      await store.create(question, T0);
      expect((await store.get(question.id, T0 + 59_999))?.status).toBe("pending");
      expect((await store.get(question.id, T0 + 60_000))?.status).toBe("expired");
      expect(await store.listPending({ owner: "web:expiry" }, T0 + 1)).toHaveLength(1);
      expect(await store.listPending({ owner: "web:expiry" }, T0 + 60_000)).toHaveLength(0);
    });

    it("pages pending questions: every filter ANDed, each page after the last question of the one before", async () => {
      const owner = `web:paged-${Date.now()}`;
      const created: NewQuestion[] = [];
      for (let i = 0; i < 7; i++) {
        const question = newQuestion({ owner, agentId: i % 2 === 0 ? "even" : "odd", createdAtMs: T0 + i });
        await store.create(question, T0 + i);
        created.push(question);
      }
      const evens = created.filter((_, i) => i % 2 === 0).map((q) => q.id);
      const filters = { owner, agentId: "even" };

      const first = await store.listPendingPage({ filters, limit: 3 }, T0 + 10);
      const second = await store.listPendingPage({ filters, limit: 3, after: first.next }, T0 + 10);
      const expired = await store.listPendingPage({ filters, limit: 10 }, T0 + 70_000);

      expect(first.questions.map((q) => q.id)).toEqual(evens.slice(0, 3));
      expect(first.next).toEqual({ createdAtMs: T0 + 4, id: evens[2] });
      expect(second.questions.map((q) => q.id)).toEqual(evens.slice(3));
      expect(second.next).toBeUndefined();
      expect(expired).toEqual({ questions: [] });
    });

    it("closes exactly once: of 20 concurrent closes one wins and gets the token", async () => {
      const question = newQuestion({ taskToken: "tok-race" });
      await store.create(question, T0);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          store.close(
            question.id,
            { status: "answered", answers: { q: [`v${i}`] }, resolvedBy: `r${i}` },
            T0 + 1,
          ),
        ),
      );
      const winners = results.filter((r) => r.kind === "closed");
      expect(winners).toHaveLength(1);
      expect(winners[0]?.kind === "closed" && winners[0].taskToken).toBe("tok-race");
      const losers = results.filter((r) => r.kind === "not_pending");
      expect(losers).toHaveLength(19);
      // The record the winning write returns is exactly what a read shows afterwards (it is computed from the
      // item before the write, which the write returns).
      const stored = await store.get(question.id, T0 + 2);
      const winner = winners[0];
      expect(winner?.kind === "closed" ? winner.record : undefined).toEqual(stored);
      expect(stored).toMatchObject({
        status: "answered",
        resolvedAtMs: T0 + 1,
        resolvedBy: expect.stringMatching(/^r\d+$/),
      });
    });

    describe("vote (a question with a quorum)", () => {
      const voteOf = (by: string, label: string, atMs = T0 + 1) => ({ by, answers: { q: [label] }, atMs });

      it("starts with no votes; of votes counted from the same read one lands and the others are stale", async () => {
        const question = newQuestion({ quorum: 3, taskToken: "tok-vote" });
        const created = await store.create(question, T0);
        expect(created.kind === "created" && created.record).toMatchObject({ quorum: 3, votes: [] });
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            store.vote(question.id, [voteOf(`web:p${i}`, "A")], 0, T0 + 1),
          ),
        );
        expect(results.filter((r) => r.kind === "recorded")).toHaveLength(1);
        const stale = results.filter((r) => r.kind === "stale");
        expect(stale).toHaveLength(19);
        // A stale write changed nothing, and tells the votes as they now are, to count again from.
        expect(stale[0]?.kind === "stale" && stale[0].record.votes).toHaveLength(1);
        const stored = await store.get(question.id, T0 + 2);
        expect(stored).toMatchObject({ status: "pending", votes: [{ answers: { q: ["A"] } }] });
      });

      it("a question that keeps no votes (quorum 1) takes its first from none, once", async () => {
        const question = newQuestion({ taskToken: "tok-abstain" });
        await store.create(question, T0);
        const skip = { ...voteOf("web:a", "A"), answers: {}, skipped: true as const };
        const results = await Promise.all([
          store.vote(question.id, [skip], 0, T0 + 1),
          store.vote(question.id, [{ ...skip, by: "web:b" }], 0, T0 + 1),
        ]);
        expect(results.map((r) => r.kind).sort()).toEqual(["recorded", "stale"]);
        expect((await store.get(question.id, T0 + 2))?.votes).toHaveLength(1);
        // What lets the table's stream pass the vote to its consumer at quorum 1 too (serverless.yml).
        expect(await storedItem(question.id)).toMatchObject({ votedAtMs: T0 + 1 });
      });

      it("a closing vote closes once, hands over the token, keeps every vote; later votes are not_pending", async () => {
        const question = newQuestion({ quorum: 2, taskToken: "tok-close" });
        await store.create(question, T0);
        const first = voteOf("web:a", "A");
        expect((await store.vote(question.id, [first], 0, T0 + 1)).kind).toBe("recorded");
        const both = [first, voteOf("web:b", "A", T0 + 2)];
        const outcome: VoteOutcome = { status: "answered", answers: { q: ["A"] }, resolvedBy: "web:b" };
        const [one, two] = await Promise.all([
          store.vote(question.id, both, 1, T0 + 2, outcome),
          store.vote(question.id, [first, voteOf("web:c", "A", T0 + 2)], 1, T0 + 2, outcome),
        ]);
        const closed = [one, two].filter((r) => r?.kind === "closed");
        expect(closed).toHaveLength(1);
        expect(closed[0]?.kind === "closed" && closed[0].taskToken).toBe("tok-close");
        expect([one, two].filter((r) => r?.kind === "not_pending")).toHaveLength(1);
        const stored = await store.get(question.id, T0 + 3);
        expect(stored).toMatchObject({ status: "answered", answers: { q: ["A"] }, resolvedBy: "web:b" });
        expect(stored?.votes).toHaveLength(2);
        expect(closed[0]?.kind === "closed" ? closed[0].record : undefined).toEqual(stored);
        expect(await store.listPending({ owner: question.owner }, T0 + 3)).not.toContainEqual(
          expect.objectContaining({ id: question.id }),
        );
        const late = await store.vote(question.id, [...both, voteOf("web:c", "A")], 2, T0 + 3);
        expect(late.kind).toBe("not_pending");
      });

      it("closes as no_quorum with the votes, and refuses a vote after the deadline or on no question", async () => {
        const question = newQuestion({ quorum: 2 });
        await store.create(question, T0);
        const votes = [voteOf("web:a", "A"), voteOf("web:b", "B")];
        const result = await store.vote(question.id, votes, 0, T0 + 1, {
          status: "no_quorum",
          resolvedBy: "web:b",
        });
        expect(result.kind === "closed" && result.record).toMatchObject({ status: "no_quorum", votes });
        const other = newQuestion({ quorum: 2 });
        await store.create(other, T0);
        expect((await store.vote(other.id, [voteOf("web:a", "A")], 0, T0 + 60_000)).kind).toBe("not_pending");
        expect((await store.vote("ask_never", [voteOf("web:a", "A")], 0, T0)).kind).toBe("not_found");
        expect(await subject.storedItem(keys.question("ask_never"))).toBeUndefined();
      });

      it("refuses a write that would make the item larger than DynamoDB's 400 KB, changing nothing", async () => {
        const question = newQuestion({ quorum: 3 });
        await store.create(question, T0);
        const before = await subject.storedItem(keys.question(question.id));
        // Two votes of 210 KB each: within no budget (the use case checks those), over the item limit.
        const huge = (by: string) => ({ by, answers: { q: ["x".repeat(210_000)] }, atMs: T0 + 1 });
        await expect(
          store.vote(question.id, [huge("web:a"), huge("web:b")], 0, T0 + 1),
        ).rejects.toMatchObject({
          name: "ValidationException",
        });
        expect(await subject.storedItem(keys.question(question.id))).toEqual(before);
      });
    });

    it("refuses to close after the deadline (a late answer changes nothing)", async () => {
      const question = newQuestion();
      await store.create(question, T0);
      const late = await store.close(question.id, { status: "answered", answers: { q: ["A"] } }, T0 + 60_000);
      expect(late).toMatchObject({ kind: "not_pending", record: { status: "expired" } });
    });

    it("one pending question per session; the slot is free once its question has closed", async () => {
      const sessionKey = `s-${Date.now()}`;
      const first = newQuestion({ sessionKey });
      expect((await store.create(first, T0)).kind).toBe("created");
      const second = newQuestion({ sessionKey });
      expect(await store.create(second, T0 + 1)).toEqual({ kind: "session_busy", pendingId: first.id });
      expect(await store.get(second.id, T0 + 1)).toBeUndefined();
      await store.close(first.id, { status: "cancelled", reason: "cancelled" }, T0 + 2);
      expect((await store.create(newQuestion({ sessionKey }), T0 + 3)).kind).toBe("created");
    });

    it("heals a slot left behind by a crash: the slot's question has ended, so a new question takes it", async () => {
      const sessionKey = `crash-${Date.now()}`;
      const first = newQuestion({ sessionKey });
      await store.create(first, T0);
      // Simulate a crash between closing the question and releasing the slot: close, then put the slot back.
      await store.close(first.id, { status: "answered", answers: { q: ["A"] } }, T0 + 1);
      await subject.putItem({
        pk: keys.sessionSlot(sessionKey),
        entity: "sessionSlot",
        questionId: first.id,
        expiresAtMs: T0 + 60_000,
        expiresAt: 0,
      });
      expect((await store.create(newQuestion({ sessionKey }), T0 + 2)).kind).toBe("created");
    });

    it("heals a slot whose question vanished (TTL) and one past its deadline", async () => {
      const sessionKey = `vanished-${Date.now()}`;
      const first = newQuestion({ sessionKey });
      await store.create(first, T0);
      await subject.deleteItem(keys.question(first.id));
      expect((await store.create(newQuestion({ sessionKey }), T0 + 1)).kind).toBe("created");

      const other = `deadline-${Date.now()}`;
      await store.create(newQuestion({ sessionKey: other }), T0);
      expect((await store.create(newQuestion({ sessionKey: other }), T0 + 60_000)).kind).toBe("created");
    });

    it("same id again → id_in_use; the same run re-registering replaces the token and keeps the record", async () => {
      const question = newQuestion({ runId: "run-9", taskToken: "first" });
      await store.create(question, T0);
      expect(await store.create({ ...question, runId: "other-run", taskToken: "x" }, T0 + 1)).toEqual({
        kind: "id_in_use",
      });
      await store.addDeliveries(question.id, [{ channel: "console", chatId: "t", messageId: "m" }], T0);
      const retried = await store.create({ ...question, taskToken: "second" }, T0 + 1);
      expect(retried.kind).toBe("token_replaced");
      expect(retried.kind === "token_replaced" && retried.record.deliveries).toHaveLength(1);
      const closed = await store.close(question.id, { status: "answered", answers: { q: ["A"] } }, T0 + 2);
      expect(closed.kind === "closed" && closed.taskToken).toBe("second");
    });

    it("markStreamResume notes a closed question's resume (streamResumeStarted), never a pending one's", async () => {
      const question = newQuestion({ runId: "run-12", taskToken: "t" });
      await store.create(question, T0);
      await store.markStreamResume(question.id, T0 + 1);
      expect(await store.streamResumeStarted(question.id)).toBe(false);
      await store.close(question.id, { status: "answered", answers: { q: ["A"] } }, T0 + 2);
      expect(await store.streamResumeStarted(question.id)).toBe(false);
      await store.markStreamResume(question.id, T0 + 3);
      expect(await store.streamResumeStarted(question.id)).toBe(true);
      await store.markStreamResume("no-such-question", T0 + 3);
      expect(await store.streamResumeStarted("no-such-question")).toBe(false);
    });

    it("the same run re-registering a question that closed meanwhile → closed_for_run with its outcome", async () => {
      const question = newQuestion({ runId: "run-10", taskToken: "first" });
      await store.create(question, T0);
      await store.close(question.id, { status: "answered", answers: { q: ["A"] } }, T0 + 500);
      const retried = await store.create({ ...question, taskToken: "second" }, T0 + 2000);
      expect(retried.kind).toBe("closed_for_run");
      expect(retried.kind === "closed_for_run" && retried.record).toMatchObject({
        id: question.id,
        status: "answered",
        answers: { q: ["A"] },
      });
      // Another question under the same id (an own agent reusing a tool-call id): in use, not its outcome.
      expect(
        await store.create(
          {
            ...question,
            taskToken: "third",
            questions: [{ ...question.questions[0], header: "Other" }],
          } as NewQuestion,
          T0 + 2000,
        ),
      ).toEqual({ kind: "id_in_use" });
      expect(
        await store.create({ ...question, owner: "web:someone-else", taskToken: "x" }, T0 + 2000),
      ).toEqual({
        kind: "id_in_use",
      });
      // Another run, or a question that ended with nothing for the run (expired, delivery_failed): in use.
      expect(await store.create({ ...question, runId: "other-run", taskToken: "x" }, T0 + 2000)).toEqual({
        kind: "id_in_use",
      });
      const expired = newQuestion({ runId: "run-11", taskToken: "first" });
      await store.create(expired, T0);
      await store.expire(expired.id, T0 + expired.timeoutSeconds * 1000);
      expect(
        await store.create({ ...expired, taskToken: "second" }, T0 + expired.timeoutSeconds * 1000 + 1),
      ).toEqual({
        kind: "id_in_use",
      });
    });

    it("a token replaced takes a fresh writeId, so the first put's retry (its own write) cannot undo it", async () => {
      const question = newQuestion({ runId: "run-10", taskToken: "first" });
      await store.create(question, T0);
      const firstPut = (await subject.storedItem(keys.question(question.id)))?.writeId;
      expect(firstPut).toEqual(expect.any(String));
      await store.create({ ...question, taskToken: "second" }, T0 + 1);
      const replaced = await subject.storedItem(keys.question(question.id));
      expect(replaced).toMatchObject({ taskToken: "second", writeId: expect.any(String) });
      expect(replaced?.writeId).not.toBe(firstPut);
    });

    describe("saveDraft (the stepper's answers so far)", () => {
      it("keeps the draft on a pending question, and get reads it back", async () => {
        const question = twoStepQuestion();
        await store.create(question, T0);

        const saved = await store.saveDraft(question.id, { colour: ["Red"] }, 1, T0 + 1);
        const read = await store.get(question.id, T0 + 2);

        expect(saved).toMatchObject({
          kind: "saved",
          record: { status: "pending", draft: { colour: ["Red"] }, step: 1 },
        });
        expect(read?.draft).toEqual({ colour: ["Red"] });
        expect(read?.step).toBe(1);
        expect(saved.kind === "saved" && saved.record).toEqual(read);
        // The whole draft is replaced by the next step's, never merged in the table.
        await store.saveDraft(question.id, { size: ["L"] }, 0, T0 + 3);
        expect(await store.get(question.id, T0 + 4)).toMatchObject({ draft: { size: ["L"] }, step: 0 });
      });

      it("with several answerers keeps each person's draft apart, and closing drops them all", async () => {
        const question = twoStepQuestion({ askedAnswerers: [{ owner: "web:bob" }] });
        const created = await store.create(question, T0);
        expect(created.kind === "created" && created.record.drafts).toEqual({});

        await Promise.all([
          store.saveDraft(question.id, { colour: ["Red"] }, 1, T0 + 1, "telegram:42"),
          store.saveDraft(question.id, { colour: ["Blue"] }, 1, T0 + 1, "web:bob"),
        ]);
        await store.saveDraft(question.id, { size: ["L"] }, 0, T0 + 2, "web:bob");
        const read = await store.get(question.id, T0 + 3);
        expect(read?.drafts).toEqual({
          "telegram:42": { answers: { colour: ["Red"] }, step: 1 },
          "web:bob": { answers: { size: ["L"] }, step: 0 },
        });
        expect(read?.draft).toBeUndefined();

        await store.close(question.id, { status: "cancelled", reason: "cancelled" }, T0 + 4);
        expect((await store.get(question.id, T0 + 5))?.drafts).toBeUndefined();
      });

      it.each([
        {
          ended: "answered",
          end: (id: string) =>
            store.close(id, { status: "answered", answers: { colour: ["Blue"], size: ["S"] } }, T0 + 1),
          at: T0 + 2,
        },
        {
          ended: "cancelled",
          end: (id: string) => store.close(id, { status: "cancelled", reason: "cancelled" }, T0 + 1),
          at: T0 + 2,
        },
        { ended: "expired", end: async () => {}, at: T0 + 60_000 },
      ])("refuses a draft on an $ended question and writes nothing", async ({ ended, end, at }) => {
        const question = twoStepQuestion();
        await store.create(question, T0);
        await end(question.id);
        const before = await storedItem(question.id);

        const refused = await store.saveDraft(question.id, { colour: ["Red"] }, 0, at);

        expect(refused).toMatchObject({ kind: "not_pending", record: { id: question.id, status: ended } });
        expect(refused.kind === "not_pending" && refused.record.draft).toBeUndefined();
        const after = await storedItem(question.id);
        expect(after).toEqual(before);
        expect(after).not.toHaveProperty("draft");
      });

      it("says not_found for an id that was never asked, and creates no item", async () => {
        const id = `ask_unknown_${Date.now()}`;
        expect(await store.saveDraft(id, { colour: ["Red"] }, 0, T0)).toEqual({ kind: "not_found" });
        expect(await storedItem(id)).toBeUndefined();
      });

      it("is dropped when the question closes: neither the closed record nor a later get has it", async () => {
        const question = twoStepQuestion();
        await store.create(question, T0);
        await store.saveDraft(question.id, { colour: ["Red"] }, 0, T0 + 1);

        const closed = await store.close(
          question.id,
          { status: "answered", answers: { colour: ["Red"], size: ["S"] } },
          T0 + 2,
        );

        expect(closed).toMatchObject({ kind: "closed", record: { status: "answered" } });
        expect(closed.kind === "closed" && closed.record).not.toHaveProperty("draft");
        expect(await store.get(question.id, T0 + 3)).not.toHaveProperty("draft");
        expect(await storedItem(question.id)).not.toHaveProperty("draft");
        expect(await storedItem(question.id)).not.toHaveProperty("step");
      });

      it("is not carried by a pending listing (the indexes do not project it)", async () => {
        const owner = `web:draft-listing-${Date.now()}`;
        const question = twoStepQuestion({ owner });
        await store.create(question, T0);
        await store.saveDraft(question.id, { colour: ["Red"] }, 0, T0 + 1);

        const listed = await store.listPending({ owner }, T0 + 2);

        expect(listed.map((record) => record.id)).toEqual([question.id]);
        expect(listed[0]).not.toHaveProperty("draft");
        // The draft is there all the same: the listing leaves it out, it was not lost.
        expect((await store.get(question.id, T0 + 2))?.draft).toEqual({ colour: ["Red"] });
      });
    });

    describe("link tokens (one person's link, handed over once)", () => {
      const DEADLINE = T0 + 60_000;
      const tokenFor = (answerer = "telegram:42") => ({
        token: `tok_${++counter}_${Date.now()}`,
        questionId: "ask_linked",
        answerer,
        expiresAtMs: DEADLINE,
      });
      const storedToken = (token: string) => subject.storedItem(keys.linkToken(token));

      it("is stored as its own item, removed by TTL at the question's deadline", async () => {
        const token = tokenFor();
        await store.saveLinkToken(token);
        expect(await storedToken(token.token)).toEqual({
          pk: keys.linkToken(token.token),
          entity: "linkToken",
          questionId: "ask_linked",
          answerer: "telegram:42",
          expiresAtMs: DEADLINE,
          expiresAt: DEADLINE / 1000,
          writeId: expect.any(String),
        });
      });

      it("is taken once, by the answerer it was made for; someone else's take changes nothing", async () => {
        const token = tokenFor();
        await store.saveLinkToken(token);
        expect(await store.takeLinkToken(token.token, "telegram:99", T0)).toBeUndefined();
        expect(await storedToken(token.token)).toBeDefined();
        const takes = await Promise.all(
          Array.from({ length: 10 }, () => store.takeLinkToken(token.token, "telegram:42", T0)),
        );
        expect(takes.filter((t) => t !== undefined)).toEqual([token]);
        expect(await storedToken(token.token)).toBeUndefined();
        expect(await store.takeLinkToken(token.token, "telegram:42", T0)).toBeUndefined();
      });

      it("is not taken at or after its deadline, nor when it was never made", async () => {
        const token = tokenFor();
        await store.saveLinkToken(token);
        expect(await store.takeLinkToken(token.token, "telegram:42", DEADLINE)).toBeUndefined();
        expect(await storedToken(token.token)).toBeDefined();
        const never = `never_${Date.now()}`;
        expect(await store.takeLinkToken(never, "telegram:42", T0)).toBeUndefined();
        expect(await storedToken(never)).toBeUndefined();
      });

      it("is never written over: saving a token that exists fails and keeps the first", async () => {
        const token = tokenFor();
        await store.saveLinkToken(token);
        await expect(store.saveLinkToken({ ...token, answerer: "telegram:99" })).rejects.toThrow();
        expect((await storedToken(token.token))?.answerer).toBe("telegram:42");
      });
    });
    it("lists by owner, session, agent and asker, and keeps an asker's listing to its own questions", async () => {
      const owner = `web:indexes-${Date.now()}`;
      const asked = newQuestion({ owner, askedBy: "api:k1", listUnderAsker: true, agentId: "agent-x" });
      const other = newQuestion({ owner, askedBy: "api:k2", listUnderAsker: true, createdAtMs: T0 + 1 });
      const unlisted = newQuestion({ owner, askedBy: "api:k1", createdAtMs: T0 + 2 });
      const session = newQuestion({ owner, sessionKey: `s-idx-${Date.now()}`, createdAtMs: T0 + 3 });
      const elsewhere = newQuestion({ askedBy: "api:k1", listUnderAsker: true, createdAtMs: T0 + 4 });
      for (const question of [asked, other, unlisted, session, elsewhere]) await store.create(question, T0);
      const ids = (records: { id: string }[]) => records.map((record) => record.id);

      expect(ids(await store.listPending({ owner }, T0 + 10))).toEqual([
        asked.id,
        other.id,
        unlisted.id,
        session.id,
      ]);
      expect(ids(await store.listPending({ agentId: "agent-x" }, T0 + 10))).toContain(asked.id);
      expect(ids(await store.listPending({ sessionKey: session.sessionKey ?? "" }, T0 + 10))).toEqual([
        session.id,
      ]);
      const page = await store.listPendingPage({ filters: { owner, askedBy: "api:k1" }, limit: 10 }, T0 + 10);
      expect(ids(page.questions)).toEqual([asked.id]);
      expect(
        ids(
          (
            await store.listPendingPage(
              { filters: { owner: elsewhere.owner, askedBy: "api:k1" }, limit: 10 },
              T0 + 10,
            )
          ).questions,
        ),
      ).toEqual([elsewhere.id]);
      expect(
        ids(
          (
            await store.listPendingPage(
              { filters: { agentId: "agent-x", owner: "web:else" }, limit: 10 },
              T0 + 10,
            )
          ).questions,
        ),
      ).toEqual([]);
      // A listed record carries only what the indexes project: no token, no reminders, no asker.
      const listed = (await store.listPending({ owner }, T0 + 10))[0];
      expect(listed).toEqual({
        id: asked.id,
        status: "pending",
        questions: asked.questions,
        owner,
        agentId: "agent-x",
        deliveries: [],
        createdAtMs: T0,
        expiresAtMs: T0 + 60_000,
      });
      await store.close(asked.id, { status: "cancelled", reason: "cancelled" }, T0 + 11);
      // The asker's index holds `elsewhere` still, so this listing reads past what it leaves out.
      expect(
        (await store.listPendingPage({ filters: { owner, askedBy: "api:k1" }, limit: 10 }, T0 + 12))
          .questions,
      ).toEqual([]);
    });

    it("refuses a listing without owner, session or agent, with a RangeError", async () => {
      await expect(store.listPendingPage({ filters: {} as never, limit: 1 }, T0)).rejects.toThrow(RangeError);
      await expect(store.listPending({} as never, T0)).rejects.toThrow(
        "a pending listing needs at least one of owner, sessionKey or agentId",
      );
    });

    it("records each posted copy in place of its target, appends further copies, and routes each by message", async () => {
      const question = newQuestion({
        deliverTo: [
          { channel: "telegram", chatId: "1" },
          { channel: "slack", chatId: "C1" },
        ],
      });
      await store.create(question, T0);
      const recorded = await store.recordDeliveries(
        question.id,
        [{ index: 1, delivery: { channel: "slack", chatId: "C1", messageId: "s1" } }],
        T0 + 1,
      );
      expect(recorded?.deliveries).toEqual([
        { channel: "telegram", chatId: "1" },
        { channel: "slack", chatId: "C1", messageId: "s1" },
      ]);
      const added = await store.addDeliveries(
        question.id,
        [{ channel: "telegram", chatId: "2", messageId: "t2" }],
        T0 + 2,
      );
      expect(added?.deliveries).toHaveLength(3);
      expect(await store.findByMessage("slack", "C1", "s1")).toBe(question.id);
      expect(await store.findByMessage("telegram", "2", "t2")).toBe(question.id);
      expect(await store.findByMessage("telegram", "1", "s1")).toBeUndefined();
      expect(await store.addDeliveries(question.id, [], T0 + 3)).toEqual(added);

      // A question that ended while its copies were posted says so: they have to be retired.
      await store.close(question.id, { status: "answered", answers: { q: ["A"] } }, T0 + 4);
      const late = await store.addDeliveries(
        question.id,
        [{ channel: "discord", chatId: "d", messageId: "x" }],
        T0 + 5,
      );
      expect(late).toMatchObject({ status: "answered", answers: { q: ["A"] } });
      expect(late?.deliveries).toHaveLength(4);
      expect(await store.findByMessage("discord", "d", "x")).toBe(question.id);

      const unknown = `ask_none_${Date.now()}`;
      expect(
        await store.addDeliveries(unknown, [{ channel: "discord", chatId: "d", messageId: "y" }], T0),
      ).toBeUndefined();
      expect(
        await store.recordDeliveries(
          unknown,
          [{ index: 0, delivery: { channel: "x", chatId: "y", messageId: "z" } }],
          T0,
        ),
      ).toBeUndefined();
      expect(await store.findByMessage("discord", "d", "y")).toBeUndefined();
      expect(await storedItem(unknown)).toBeUndefined();
    });

    it("records at most MAX_COPIES copies, racing appends included; every one still routes by message", async () => {
      const question = newQuestion({ deliverTo: [{ channel: "telegram", chatId: "1" }] });
      await store.create(question, T0);
      const copy = (n: number) => ({ channel: "telegram", chatId: "2", messageId: `m${n}` });
      const filled = await store.addDeliveries(
        question.id,
        Array.from({ length: MAX_COPIES - 3 }, (_, n) => copy(n)),
        T0 + 1,
      );
      expect(filled?.deliveries).toHaveLength(MAX_COPIES - 2);
      // Five appends of one copy each race for the two places left: two are recorded, none past the cap.
      await Promise.all(
        [0, 1, 2, 3, 4].map((n) => store.addDeliveries(question.id, [copy(100 + n)], T0 + 2)),
      );
      const full = await store.get(question.id, T0 + 3);
      expect(full?.deliveries).toHaveLength(MAX_COPIES);
      // Past the cap nothing more is recorded, but what is said to the copy still reaches the question.
      const past = await store.addDeliveries(question.id, [copy(200)], T0 + 4);
      expect(past?.deliveries).toHaveLength(MAX_COPIES);
      expect(past?.deliveries).not.toContainEqual(copy(200));
      for (const n of [0, 100, 101, 102, 103, 104, 200]) {
        expect(await store.findByMessage("telegram", "2", `m${n}`)).toBe(question.id);
      }
    });

    it("an append that loses a race for the room records what still fits and returns the question as it now is", async () => {
      const question = newQuestion({ deliverTo: [{ channel: "telegram", chatId: "1" }] });
      await store.create(question, T0);
      const copy = (n: number) => ({ channel: "telegram", chatId: "2", messageId: `r${n}` });
      await store.addDeliveries(
        question.id,
        Array.from({ length: MAX_COPIES - 4 }, (_, n) => copy(n)),
        T0 + 1,
      );
      // Three places left: two appends of two race. Whichever comes second is fitted to the one place the
      // first left, never refused whole: the list ends full.
      const [first, second] = await Promise.all([
        store.addDeliveries(question.id, [copy(100), copy(101)], T0 + 2),
        store.addDeliveries(question.id, [copy(200), copy(201)], T0 + 2),
      ]);
      const full = await store.get(question.id, T0 + 3);
      expect(full?.deliveries).toHaveLength(MAX_COPIES);
      // Each returns the question as it was after its own write or a fresh read: one of them sees it full.
      expect(Math.max(first?.deliveries.length ?? 0, second?.deliveries.length ?? 0)).toBe(MAX_COPIES);
    });

    it("keeps room for the escalation's targets: other copies stop short of it, the escalation's own are recorded", async () => {
      const question = newQuestion({
        deliverTo: [{ channel: "telegram", chatId: "1" }],
        escalate: {
          afterSeconds: 30,
          owner: "telegram:7",
          deliverTo: [
            { channel: "telegram", chatId: "7" },
            { channel: "telegram", chatId: "8" },
          ],
        },
      });
      await store.create(question, T0);
      const copy = (n: number) => ({ channel: "telegram", chatId: "2", messageId: `e${n}` });
      const filled = await store.addDeliveries(
        question.id,
        Array.from({ length: MAX_COPIES }, (_, n) => copy(n)),
        T0 + 1,
      );
      expect(filled?.deliveries).toHaveLength(MAX_COPIES - 2);
      const escalated = await store.addDeliveries(
        question.id,
        [
          { channel: "telegram", chatId: "7", messageId: "x7" },
          { channel: "telegram", chatId: "8", messageId: "x8" },
        ],
        T0 + 30_000,
        "escalation",
      );
      expect(escalated?.deliveries).toHaveLength(MAX_COPIES);
      expect(escalated?.deliveries.slice(-2).map((d) => d.chatId)).toEqual(["7", "8"]);
    });

    it("keeps every escalation target's room until its own copies are recorded, a re-post in a target's chat too", async () => {
      const question = newQuestion({
        deliverTo: [{ channel: "telegram", chatId: "1" }],
        escalate: {
          afterSeconds: 30,
          owner: "telegram:7",
          deliverTo: [
            { channel: "telegram", chatId: "7" },
            { channel: "telegram", chatId: "8" },
          ],
        },
      });
      await store.create(question, T0);
      const copy = (n: number) => ({ channel: "telegram", chatId: "2", messageId: `e${n}` });
      await store.addDeliveries(
        question.id,
        Array.from({ length: MAX_COPIES - 4 }, (_, n) => copy(n)),
        T0 + 1,
      );
      // Past the escalation time, before its copies are written: a re-post in target 7's chat takes the one
      // free copy, and the next (there or anywhere) finds none.
      const reposted = await store.addDeliveries(
        question.id,
        [{ channel: "telegram", chatId: "7", messageId: "r1" }],
        T0 + 30_001,
      );
      expect(reposted?.deliveries).toHaveLength(MAX_COPIES - 2);
      const more = await store.addDeliveries(
        question.id,
        [{ channel: "telegram", chatId: "7", messageId: "r2" }],
        T0 + 30_002,
      );
      expect(more?.deliveries).toHaveLength(MAX_COPIES - 2);
      const escalated = await store.addDeliveries(
        question.id,
        [
          { channel: "telegram", chatId: "7", messageId: "x7", escalation: true },
          { channel: "telegram", chatId: "8", messageId: "x8", escalation: true },
        ],
        T0 + 30_003,
        "escalation",
      );
      expect(escalated?.deliveries).toHaveLength(MAX_COPIES);
      expect(escalated?.deliveries.slice(-2)).toEqual([
        { channel: "telegram", chatId: "7", messageId: "x7", escalation: true },
        { channel: "telegram", chatId: "8", messageId: "x8", escalation: true },
      ]);
    });

    it("replaces a copy in place, the earlier message still routing; one not recorded is added instead", async () => {
      const question = newQuestion({ deliverTo: [{ channel: "whatsapp", chatId: "15550001" }] });
      await store.create(question, T0);
      await store.recordDeliveries(
        question.id,
        [{ index: 0, delivery: { channel: "whatsapp", chatId: "15550001", messageId: "wamid.1" } }],
        T0 + 1,
      );
      await store.addDeliveries(question.id, [{ channel: "telegram", chatId: "2", messageId: "t" }], T0 + 1);
      const step = {
        channel: "whatsapp",
        chatId: "15550001",
        messageId: "wamid.2",
        privateTo: "whatsapp:15550001",
      };
      const replaced = await store.replaceCopy(
        question.id,
        { channel: "whatsapp", chatId: "15550001", messageId: "wamid.1" },
        step,
        T0 + 2,
      );
      expect(replaced?.deliveries).toEqual([step, { channel: "telegram", chatId: "2", messageId: "t" }]);
      expect(await store.findByMessage("whatsapp", "15550001", "wamid.1")).toBe(question.id);
      expect(await store.findByMessage("whatsapp", "15550001", "wamid.2")).toBe(question.id);
      // The copy it names is no longer recorded (replaced meanwhile): the new one is appended.
      const next = { ...step, messageId: "wamid.3" };
      const added = await store.replaceCopy(
        question.id,
        { channel: "whatsapp", chatId: "15550001", messageId: "wamid.1" },
        next,
        T0 + 3,
      );
      expect(added?.deliveries).toEqual([step, { channel: "telegram", chatId: "2", messageId: "t" }, next]);
      expect(await store.replaceCopy(`ask_none_${Date.now()}`, step, next, T0 + 4)).toBeUndefined();
    });

    it("a copy that takes over the escalation's keeps its mark, so the escalation's room stays given back", async () => {
      const question = newQuestion({ deliverTo: [{ channel: "telegram", chatId: "1" }] });
      await store.create(question, T0);
      const escalated = {
        channel: "whatsapp",
        chatId: "15550009",
        messageId: "wamid.e1",
        privateTo: "whatsapp:15550009",
        escalation: true as const,
      };
      await store.addDeliveries(question.id, [escalated], T0 + 1, "escalation");
      const step = {
        channel: "whatsapp",
        chatId: "15550009",
        messageId: "wamid.e2",
        privateTo: "whatsapp:15550009",
      };
      const replaced = await store.replaceCopy(question.id, escalated, step, T0 + 2);
      expect(replaced?.deliveries?.at(-1)).toEqual({ ...step, escalation: true });
    });

    it("routes by the thread a copy started (`startedThread`), never by a thread it was posted into", async () => {
      const question = newQuestion({ deliverTo: [{ channel: "gchat", chatId: "spaces/A" }] });
      await store.create(question, T0);
      const started = {
        channel: "gchat",
        chatId: "spaces/A",
        messageId: "spaces/A/messages/m1",
        threadId: "spaces/A/threads/t1",
        startedThread: true as const,
      };
      const joined = {
        channel: "gchat",
        chatId: "spaces/B",
        messageId: "spaces/B/messages/m2",
        threadId: "spaces/B/threads/t2",
      };
      await store.recordDeliveries(question.id, [{ index: 0, delivery: started }], T0 + 1);
      await store.addDeliveries(question.id, [joined], T0 + 2);
      expect(await store.findByMessage("gchat", "spaces/A", "spaces/A/threads/t1")).toBe(question.id);
      expect(await store.findByMessage("gchat", "spaces/A", "spaces/A/messages/m1")).toBe(question.id);
      expect(await store.findByMessage("gchat", "spaces/B", "spaces/B/messages/m2")).toBe(question.id);
      expect(await store.findByMessage("gchat", "spaces/B", "spaces/B/threads/t2")).toBeUndefined();
    });

    it("notes the copies posted to a person answerer in their private chat, newest first; not the owner's", async () => {
      const chat = `bob-${Date.now()}`;
      const first = newQuestion({ id: `ask_priv1_${chat}`, askedAnswerers: [{ owner: "web:bob" }] });
      const second = newQuestion({ id: `ask_priv2_${chat}`, askedAnswerers: [{ owner: "web:bob" }] });
      for (const question of [first, second]) {
        await store.create(question, T0);
        await store.recordDeliveries(
          question.id,
          [
            {
              index: 0,
              delivery: {
                channel: "telegram",
                chatId: chat,
                messageId: `m-${question.id}`,
                privateTo: "web:bob",
              },
            },
            {
              index: 1,
              delivery: {
                channel: "telegram",
                chatId: `o-${chat}`,
                messageId: "o1",
                privateTo: "telegram:42",
              },
            },
          ],
          T0 + 1,
        );
      }
      expect(await store.findPrivateQuestions("telegram", chat, "web:bob")).toEqual([second.id, first.id]);
      // The owner's copies are found through the owner index, as before: nothing is noted for them.
      expect(await store.findPrivateQuestions("telegram", `o-${chat}`, "web:alice")).toEqual([]);
      expect(await store.findPrivateQuestions("telegram", chat, "web:carol")).toEqual([]);
      // A copy posted again (/question) notes the question once.
      await store.addDeliveries(
        first.id,
        [{ channel: "telegram", chatId: chat, messageId: "again", privateTo: "web:bob" }],
        T0 + 2,
      );
      expect(await store.findPrivateQuestions("telegram", chat, "web:bob")).toEqual([first.id, second.id]);
    });

    it("keeps a private chat's list as long as the longest-lived question it lists, whatever the order", async () => {
      const chat = `ttl-${Date.now()}`;
      const noteIn = async (question: NewQuestion, at: number) => {
        await store.create(question, T0);
        await store.addDeliveries(
          question.id,
          [{ channel: "telegram", chatId: chat, messageId: `m-${question.id}`, privateTo: "web:bob" }],
          at,
        );
      };
      const ttl = async (pk: string) => (await subject.storedItem(pk))?.expiresAt as number;
      const entry = keys.privateChat("telegram", chat, "web:bob");
      const long = newQuestion({
        id: `ask_long_${chat}`,
        timeoutSeconds: 3600,
        askedAnswerers: [{ owner: "web:bob" }],
      });
      const short = newQuestion({ id: `ask_short_${chat}`, askedAnswerers: [{ owner: "web:bob" }] });
      const longer = newQuestion({
        id: `ask_longer_${chat}`,
        timeoutSeconds: 7200,
        askedAnswerers: [{ owner: "web:bob" }],
      });
      await noteIn(long, T0 + 1);
      // A newer question with an earlier deadline does not cut the entry's life short of the older one's.
      await noteIn(short, T0 + 2);
      expect(await ttl(keys.question(short.id))).toBeLessThan(await ttl(keys.question(long.id)));
      expect(await ttl(entry)).toBe(await ttl(keys.question(long.id)));
      // One with a later deadline still extends it.
      await noteIn(longer, T0 + 3);
      expect(await ttl(entry)).toBe(await ttl(keys.question(longer.id)));
      expect(await store.findPrivateQuestions("telegram", chat, "web:bob")).toEqual([
        longer.id,
        short.id,
        long.id,
      ]);
    });

    it("keeps a private chat's list to its newest questions as more are noted", async () => {
      const chat = `many-${Date.now()}`;
      const ids: string[] = [];
      for (let n = 0; n < PRIVATE_CHAT_KEPT + 2; n++) {
        const question = newQuestion({ id: `ask_many${n}_${chat}`, askedAnswerers: [{ owner: "web:bob" }] });
        ids.push(question.id);
        await store.create(question, T0);
        await store.addDeliveries(
          question.id,
          [{ channel: "telegram", chatId: chat, messageId: `m${n}`, privateTo: "web:bob" }],
          T0 + 1,
        );
      }
      const item = await subject.storedItem(keys.privateChat("telegram", chat, "web:bob"));
      expect(item?.questionIds).toEqual(ids.slice(-PRIVATE_CHAT_KEPT));
      expect(await store.findPrivateQuestions("telegram", chat, "web:bob")).toEqual(
        ids.slice(-PRIVATE_CHAT_LOOKUP).reverse(),
      );
    });

    it("release closes once, only while the question waits on the token given, and keeps its token", async () => {
      const question = newQuestion({ runId: "run-rel", taskToken: "tok-rel" });
      await store.create(question, T0);
      const cancelled = { status: "cancelled", reason: "cancelled" } as const;
      expect(await store.release(question.id, cancelled, T0 + 1, { taskToken: "other" })).toBe(false);
      expect((await store.get(question.id, T0 + 1))?.status).toBe("pending");
      const releases = await Promise.all(
        Array.from({ length: 5 }, () =>
          store.release(question.id, cancelled, T0 + 2, { taskToken: "tok-rel" }),
        ),
      );
      expect(releases.filter(Boolean)).toHaveLength(1);
      expect(await store.get(question.id, T0 + 3)).toMatchObject({
        status: "cancelled",
        reason: "cancelled",
        resolvedAtMs: T0 + 2,
      });
      expect(await storedItem(question.id)).toMatchObject({ taskToken: "tok-rel" });
      expect(await store.listPending({ owner: question.owner }, T0 + 3)).not.toContainEqual(
        expect.objectContaining({ id: question.id }),
      );
      expect(await store.release(`ask_none_${Date.now()}`, cancelled, T0)).toBe(false);
    });

    it("expire closes only at or after the deadline, once, and never after an answer", async () => {
      const question = newQuestion();
      await store.create(question, T0);
      expect(await store.expire(question.id, T0 + 59_999)).toBe(false);
      const expiries = await Promise.all(
        Array.from({ length: 5 }, () => store.expire(question.id, T0 + 60_000)),
      );
      expect(expiries.filter(Boolean)).toHaveLength(1);
      expect(await store.get(question.id, T0 + 60_001)).toMatchObject({
        status: "expired",
        resolvedAtMs: T0 + 60_000,
      });

      const answered = newQuestion();
      await store.create(answered, T0);
      await store.close(answered.id, { status: "answered", answers: { q: ["B"] } }, T0 + 1);
      expect(await store.expire(answered.id, T0 + 60_000)).toBe(false);
      expect((await store.get(answered.id, T0 + 60_000))?.status).toBe("answered");
    });

    it("notes a resume failure only on a question that has ended, and creates nothing", async () => {
      const pending = newQuestion();
      await store.create(pending, T0);
      const failure = { code: "TaskTimedOut", atMs: T0 + 5 };
      await store.recordResumeFailure(pending.id, failure);
      expect(await storedItem(pending.id)).not.toHaveProperty("resumeFailure");
      await store.close(pending.id, { status: "answered", answers: { q: ["A"] } }, T0 + 1);
      await store.recordResumeFailure(pending.id, failure);
      expect(await storedItem(pending.id)).toMatchObject({ resumeFailure: failure });
      const unknown = `ask_none_${Date.now()}`;
      await store.recordResumeFailure(unknown, failure);
      expect(await storedItem(unknown)).toBeUndefined();
    });

    it("claims an event once until it is given back", async () => {
      const key = `event-${++counter}-${Date.now()}`;
      const claims = await Promise.all(Array.from({ length: 5 }, () => store.claimEvent(key, 60, T0)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await store.claimEvent(key, 60, T0 + 1)).toBe(false);
      await store.releaseEvent(key);
      expect(await store.claimEvent(key, 60, T0 + 2)).toBe(true);
      expect(await subject.storedItem(keys.inboundEvent(key))).toEqual({
        pk: keys.inboundEvent(key),
        entity: "inboundEvent",
        expiresAt: Math.ceil((T0 + 2) / 1000) + 60,
        writeId: expect.any(String),
      });
    });

    describe("a write applied, its response lost, then retried (the SDK sends the same request again)", () => {
      const answered: Outcome = { status: "answered", answers: { q: ["A"] }, resolvedBy: "api" };

      it("close: the retry is told it closed the question, never that it had already ended", async () => {
        const question = newQuestion({ runId: "run-lost", taskToken: "tok-lost" });
        await store.create(question, T0);
        subject.loseResponse();
        const closed = await store.close(question.id, answered, T0 + 1);
        expect(closed).toMatchObject({
          kind: "closed",
          // The token left the item with the attempt whose response was lost: the stream resumes the run.
          responseLost: true,
          taskToken: undefined,
          record: { status: "answered", answers: { q: ["A"] }, resolvedBy: "api", resolvedAtMs: T0 + 1 },
        });
        expect(JSON.stringify(closed)).not.toContain("writeId");
        expect(JSON.stringify(await store.get(question.id, T0 + 2))).not.toContain("writeId");
        const later = await store.close(question.id, { status: "cancelled", reason: "skipped" }, T0 + 2);
        expect(later).toMatchObject({ kind: "not_pending", record: { status: "answered" } });
        expect(await storedItem(question.id)).not.toHaveProperty("taskToken");
      });

      it("a close whose response came back is not marked as lost", async () => {
        const question = newQuestion({ taskToken: "tok-kept" });
        await store.create(question, T0);
        const closed = await store.close(question.id, answered, T0 + 1);
        expect(closed).toMatchObject({ kind: "closed", taskToken: "tok-kept" });
        expect(closed).not.toHaveProperty("responseLost");
      });

      it("vote: a kept vote is told recorded, never stale; a closing vote is told it closed", async () => {
        const question = newQuestion({ quorum: 2 });
        await store.create(question, T0);
        const bob = { by: "web:bob", answers: { q: ["A"] }, atMs: T0 + 1 };
        const carol = { by: "web:carol", answers: { q: ["A"] }, atMs: T0 + 2 };
        subject.loseResponse();
        expect(await store.vote(question.id, [bob], 0, T0 + 1)).toMatchObject({
          kind: "recorded",
          record: { status: "pending", votes: [bob] },
        });
        const closing: VoteOutcome = { status: "answered", answers: { q: ["A"] } };
        subject.loseResponse();
        expect(await store.vote(question.id, [bob, carol], 1, T0 + 2, closing)).toMatchObject({
          kind: "closed",
          responseLost: true,
          record: { status: "answered", votes: [bob, carol] },
        });
      });

      it("release and expire: the retry reports the close it made", async () => {
        const released = newQuestion({ taskToken: "tok-release" });
        await store.create(released, T0);
        subject.loseResponse();
        expect(
          await store.release(
            released.id,
            { status: "cancelled", reason: "cancelled", resolvedBy: "wait-ended" },
            T0 + 1,
            { taskToken: "tok-release" },
          ),
        ).toBe(true);
        expect(await store.get(released.id, T0 + 2)).toMatchObject({ status: "cancelled" });

        const expired = newQuestion();
        await store.create(expired, T0);
        subject.loseResponse();
        expect(await store.expire(expired.id, T0 + 60_000)).toBe(true);
        expect(await store.expire(expired.id, T0 + 60_001)).toBe(false);
      });

      it("event claim: the first delivery keeps its claim; a repeat is still a duplicate", async () => {
        const key = `event-lost-${++counter}-${Date.now()}`;
        subject.loseResponse();
        expect(await store.claimEvent(key, 60, T0)).toBe(true);
        expect(await store.claimEvent(key, 60, T0 + 1)).toBe(false);
      });

      it("ask: the question is created (not a retried task's, not an id in use), its session slot taken", async () => {
        const question = newQuestion({
          runId: "run-ask-lost",
          taskToken: "tok-ask",
          sessionKey: `s-${++counter}`,
        });
        subject.loseResponse();
        expect(await store.create(question, T0)).toMatchObject({ kind: "created" });
        const bare = newQuestion();
        subject.loseResponse();
        expect(await store.create(bare, T0)).toMatchObject({ kind: "created" });
      });

      it("ask: a session slot taken over from an ended question stays taken by the retry", async () => {
        const sessionKey = `s-takeover-${++counter}`;
        const ended = newQuestion({ sessionKey });
        await store.create(ended, T0);
        await store.close(ended.id, answered, T0 + 1);
        const next = newQuestion({ sessionKey });
        // Put the question, try the slot (held), read the slot and its question, take it over: that put is lost.
        subject.loseResponse(5);
        expect(await store.create(next, T0 + 2)).toMatchObject({ kind: "created" });
        expect(await subject.storedItem(keys.sessionSlot(sessionKey))).toMatchObject({ questionId: next.id });
      });

      it("link token: the retried put of a new token is no clash", async () => {
        const token = {
          token: `lost_${++counter}`,
          questionId: "ask_l",
          answerer: "telegram:1",
          expiresAtMs: T0 + 60_000,
        };
        subject.loseResponse();
        await store.saveLinkToken(token);
        expect(await store.takeLinkToken(token.token, "telegram:1", T0)).toEqual(token);
      });
    });

    it("returns records a caller can change without changing what is stored", async () => {
      const question = twoStepQuestion();
      const created = await store.create(question, T0);
      if (created.kind !== "created") throw new Error(created.kind);
      created.record.questions[0]?.options.push({ label: "Green" });
      const read = await store.get(question.id, T0);
      read?.deliveries.push({ channel: "console", chatId: "x" });
      expect(await store.get(question.id, T0)).toMatchObject({ deliveries: [] });
      expect((await store.get(question.id, T0))?.questions[0]?.options).toHaveLength(2);
    });
  });
}
