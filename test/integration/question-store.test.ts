import { DeleteItemCommand, GetItemCommand, PutItemCommand, QueryCommand } from "@aws-sdk/client-dynamodb";
import { marshall, unmarshall } from "@aws-sdk/util-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ensureTable,
  type LocalDynamoDb,
  localDynamoDbClient,
  startLocalDynamoDb,
} from "#infra/local/dynamodb.ts";
import { normalizeAskUserArgs } from "#lib/questions/index.ts";
import { createDynamoDbQuestionStore } from "#lib/store/dynamodb-question-store.ts";
import { keys } from "#lib/store/keys.ts";
import type { NewQuestion, Outcome, QuestionStore } from "#lib/store/question-store.ts";

const TABLE = "store-test";
let dynamodb: LocalDynamoDb;
let client: ReturnType<typeof localDynamoDbClient>;
let store: QuestionStore;
const capacity: number[] = [];

beforeAll(async () => {
  dynamodb = await startLocalDynamoDb({ port: 0 });
  client = localDynamoDbClient(dynamodb.url);
  await ensureTable(client, TABLE);
  store = createDynamoDbQuestionStore({
    client,
    tableName: TABLE,
    retentionSeconds: 3600,
    onConsumedCapacity: (c) => capacity.push(c.CapacityUnits ?? 0),
  });
});
afterAll(async () => {
  client?.destroy();
  await dynamodb?.stop();
});

const T0 = 1_800_000_000_000;
let counter = 0;
function newQuestion(overrides: Partial<NewQuestion> = {}): NewQuestion {
  const request = normalizeAskUserArgs({
    questions: [{ id: "q", header: "H", question: "Q?", options: [{ label: "A" }, { label: "B" }] }],
    timeoutSeconds: 60,
  });
  return {
    ...request,
    id: `ask_${++counter}_${Date.now()}`,
    owner: "web:alice",
    deliverTo: [],
    createdAtMs: T0,
    ...overrides,
  };
}

/** Two questions, so a draft can hold the first answer while the second is still open (the stepper's case). */
function twoStepQuestion(overrides: Partial<NewQuestion> = {}): NewQuestion {
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

/** The item as stored, read past the store: what a refused write must have left alone. */
async function storedItem(id: string): Promise<Record<string, unknown> | undefined> {
  const out = await client.send(
    new GetItemCommand({ TableName: TABLE, Key: { pk: { S: keys.question(id) } }, ConsistentRead: true }),
  );
  return out.Item && unmarshall(out.Item);
}

describe("DynamoDB question store", () => {
  it("creates a pending record whose deadline is creation + timeout, without exposing the token", async () => {
    const created = await store.create(newQuestion({ taskToken: "secret-token", runId: "run-1" }), T0);
    expect(created.kind).toBe("created");
    if (created.kind !== "created") return;
    expect(created.record).toMatchObject({ status: "pending", expiresAtMs: T0 + 60_000, deliveries: [] });
    expect(JSON.stringify(created.record)).not.toContain("secret-token");
    expect(JSON.stringify(await store.get(created.record.id, T0))).not.toContain("secret-token");
  });

  it("keeps the task token out of the pending indexes", async () => {
    const question = newQuestion({ owner: "web:projection", taskToken: "token-not-in-index" });
    await store.create(question, T0);
    const out = await client.send(
      new QueryCommand({
        TableName: TABLE,
        IndexName: "pendingByOwner",
        KeyConditionExpression: "ownerKey = :o",
        ExpressionAttributeValues: { ":o": { S: keys.ownerIndex("web:projection") } },
      }),
    );
    expect(out.Items).toHaveLength(1);
    expect(out.Items?.[0]?.taskToken).toBeUndefined();
    expect(out.Items?.[0]?.questions).toBeDefined();
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
    await client.send(
      new PutItemCommand({
        TableName: TABLE,
        Item: marshall({
          pk: keys.sessionSlot(sessionKey),
          entity: "sessionSlot",
          questionId: first.id,
          expiresAtMs: T0 + 60_000,
          expiresAt: 0,
        }),
      }),
    );
    expect((await store.create(newQuestion({ sessionKey }), T0 + 2)).kind).toBe("created");
  });

  it("heals a slot whose question vanished (TTL) and one past its deadline", async () => {
    const sessionKey = `vanished-${Date.now()}`;
    const first = newQuestion({ sessionKey });
    await store.create(first, T0);
    await client.send(
      new DeleteItemCommand({ TableName: TABLE, Key: { pk: { S: keys.question(first.id) } } }),
    );
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
    const storedToken = async (token: string) => {
      const out = await client.send(
        new GetItemCommand({
          TableName: TABLE,
          Key: { pk: { S: keys.linkToken(token) } },
          ConsistentRead: true,
        }),
      );
      return out.Item && unmarshall(out.Item);
    };

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

  /*
   * Each call's requests, in order: a request is a round trip, and the benchmark (bench/answer-paths.ts)
   * judges the answer paths by how many come before a response. A refactor of the store must keep these.
   */
  describe("requests per call", () => {
    const sent: string[] = [];
    let recording = false;
    beforeAll(() => {
      client.middlewareStack.add(
        (next, context) => (args) => {
          if (recording) sent.push(String(context.commandName).replace(/Command$/, ""));
          return next(args);
        },
        { step: "initialize", name: "countRequests" },
      );
    });
    afterAll(() => {
      client.middlewareStack.remove("countRequests");
    });
    async function requestsOf(call: () => Promise<unknown>): Promise<string[]> {
      sent.length = 0;
      recording = true;
      try {
        await call();
      } finally {
        recording = false;
      }
      return [...sent];
    }

    it("asking: one put, a second for the session slot; a busy session reads the holder and undoes the put", async () => {
      const sessionKey = `requests-${Date.now()}`;
      const held = newQuestion({ sessionKey, runId: "run-r", taskToken: "tok-r" });
      expect(await requestsOf(() => store.create(newQuestion(), T0))).toEqual(["PutItem"]);
      expect(await requestsOf(() => store.create(held, T0))).toEqual(["PutItem", "PutItem"]);
      expect(await requestsOf(() => store.create(newQuestion({ sessionKey }), T0 + 1))).toEqual([
        "PutItem",
        "PutItem",
        "GetItem",
        "GetItem",
        "DeleteItem",
      ]);
      expect(await requestsOf(() => store.create({ ...held, taskToken: "tok-r2" }, T0 + 1))).toEqual([
        "PutItem",
        "UpdateItem",
      ]);
    });

    it("answering and the stepper: one conditional write each, a read only when it was refused", async () => {
      const question = twoStepQuestion();
      await store.create(question, T0);
      const answered: Outcome = { status: "answered", answers: { colour: ["Red"], size: ["S"] } };
      expect(await requestsOf(() => store.get(question.id, T0))).toEqual(["GetItem"]);
      expect(await requestsOf(() => store.saveDraft(question.id, { colour: ["Red"] }, 0, T0 + 1))).toEqual([
        "UpdateItem",
      ]);
      expect(await requestsOf(() => store.close(question.id, answered, T0 + 2))).toEqual(["UpdateItem"]);
      expect(await requestsOf(() => store.close(question.id, answered, T0 + 3))).toEqual([
        "UpdateItem",
        "GetItem",
      ]);
      expect(await requestsOf(() => store.saveDraft(question.id, { colour: ["Red"] }, 0, T0 + 3))).toEqual([
        "UpdateItem",
        "GetItem",
      ]);
      expect(await requestsOf(() => store.release(question.id, answered, T0 + 3))).toEqual(["UpdateItem"]);
      expect(await requestsOf(() => store.expire(question.id, T0 + 60_000))).toEqual(["UpdateItem"]);
      expect(
        await requestsOf(() =>
          store.recordResumeFailure(question.id, { code: "TaskTimedOut", atMs: T0 + 4 }),
        ),
      ).toEqual(["UpdateItem"]);
    });

    it("deliveries: read the question, index the posted messages in one batch, then one update", async () => {
      const question = newQuestion({ deliverTo: [{ channel: "console", chatId: "c1" }] });
      await store.create(question, T0);
      const posted = [{ index: 0, delivery: { channel: "console", chatId: "c1", messageId: "m1" } }];
      expect(await requestsOf(() => store.recordDeliveries(question.id, posted, T0 + 1))).toEqual([
        "GetItem",
        "BatchWriteItem",
        "UpdateItem",
      ]);
      const more = [{ channel: "console", chatId: "c2", messageId: "m2" }];
      expect(await requestsOf(() => store.addDeliveries(question.id, more, T0 + 2))).toEqual([
        "GetItem",
        "BatchWriteItem",
        "UpdateItem",
      ]);
      // A copy without a message id has nothing to index.
      const unposted = [{ channel: "console", chatId: "c3" }];
      expect(await requestsOf(() => store.addDeliveries(question.id, unposted, T0 + 3))).toEqual([
        "GetItem",
        "UpdateItem",
      ]);
      expect(await requestsOf(() => store.findByMessage("console", "c2", "m2"))).toEqual(["GetItem"]);
      expect(await store.findByMessage("console", "c2", "m2")).toBe(question.id);
      expect(await requestsOf(() => store.recordDeliveries(`ask_none_${Date.now()}`, posted, T0))).toEqual([
        "GetItem",
      ]);
    });

    it("listing and dedupe: one query for a listing that fits, one put to claim, one delete to give back", async () => {
      const owner = `web:requests-${Date.now()}`;
      await store.create(newQuestion({ owner }), T0);
      expect(await requestsOf(() => store.listPending({ owner }, T0 + 1))).toEqual(["Query"]);
      expect(await requestsOf(() => store.listPendingPage({ filters: { owner }, limit: 5 }, T0 + 1))).toEqual(
        ["Query"],
      );
      const key = `requests-${Date.now()}`;
      expect(await requestsOf(() => store.claimEvent(key, 60, T0))).toEqual(["PutItem"]);
      expect(await requestsOf(() => store.claimEvent(key, 60, T0))).toEqual(["PutItem"]);
      expect(await requestsOf(() => store.releaseEvent(key))).toEqual(["DeleteItem"]);
    });

    it("link tokens: one put to save, one conditional delete to take (taken or not)", async () => {
      const token = {
        token: `req_${Date.now()}`,
        questionId: "ask_r",
        answerer: "telegram:1",
        expiresAtMs: T0 + 1,
      };
      expect(await requestsOf(() => store.saveLinkToken(token))).toEqual(["PutItem"]);
      expect(await requestsOf(() => store.takeLinkToken(token.token, "telegram:2", T0))).toEqual([
        "DeleteItem",
      ]);
      expect(await requestsOf(() => store.takeLinkToken(token.token, "telegram:1", T0))).toEqual([
        "DeleteItem",
      ]);
      expect(await requestsOf(() => store.takeLinkToken(token.token, "telegram:1", T0))).toEqual([
        "DeleteItem",
      ]);
    });
  });

  it("reports consumed capacity for every request (the benchmark counts cost with it)", () => {
    expect(capacity.length).toBeGreaterThan(10);
    expect(capacity.every((units) => units > 0)).toBe(true);
  });
});
