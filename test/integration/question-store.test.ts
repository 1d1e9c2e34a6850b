import { DeleteItemCommand, GetItemCommand, PutItemCommand, QueryCommand } from "@aws-sdk/client-dynamodb";
import { marshall, unmarshall } from "@aws-sdk/util-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ensureTable,
  type LocalDynamoDb,
  localDynamoDbClient,
  startLocalDynamoDb,
} from "#infra/local/dynamodb.ts";
import table from "#infra/table.json" with { type: "json" };
import { createDynamoDbQuestionStore } from "#lib/store/dynamodb-question-store.ts";
import { createInMemoryQuestionStore, type ItemImages } from "#lib/store/in-memory-question-store.ts";
import { keys, PENDING_INDEX_PROJECTION } from "#lib/store/keys.ts";
import type { Outcome, QuestionStore } from "#lib/store/question-store.ts";
import { questionChangeFrom } from "#lib/store/question-stream.ts";
import {
  describeQuestionStoreContract,
  newQuestion,
  T0,
  twoStepQuestion,
} from "#test/support/question-store-contract.ts";

const TABLE = "store-test";
let dynamodb: LocalDynamoDb;
let client: ReturnType<typeof localDynamoDbClient>;
let store: QuestionStore;
const capacity: number[] = [];
/** Requests to come before the one whose response is lost (loseResponse); undefined: none is. */
let losing: number | undefined;

beforeAll(async () => {
  dynamodb = await startLocalDynamoDb({ port: 0 });
  client = localDynamoDbClient(dynamodb.url);
  // A lost response: the request reaches the table and is applied, then its answer is a 500, which the
  // SDK's retry strategy retries with the same request (the retry runs the steps after `initialize` again).
  const lost = Symbol("lose this request's first response");
  client.middlewareStack.add(
    (next, context) => (args) => {
      if (losing !== undefined && --losing === 0) {
        losing = undefined;
        (context as Record<symbol, boolean>)[lost] = true;
      }
      return next(args);
    },
    { step: "initialize", name: "pickLostResponse" },
  );
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      const marks = context as Record<symbol, boolean>;
      if (marks[lost]) {
        marks[lost] = false;
        throw Object.assign(new Error("We encountered an internal error. Please try again."), {
          name: "InternalServerError",
          $fault: "server",
          $metadata: { httpStatusCode: 500 },
        });
      }
      return out;
    },
    { step: "deserialize", name: "loseResponse" },
  );
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

describeQuestionStoreContract("DynamoDB question store", async () => ({
  store,
  async storedItem(pk) {
    const out = await client.send(
      new GetItemCommand({ TableName: TABLE, Key: { pk: { S: pk } }, ConsistentRead: true }),
    );
    return out.Item && unmarshall(out.Item);
  },
  async putItem(item) {
    await client.send(new PutItemCommand({ TableName: TABLE, Item: marshall(item) }));
  },
  async deleteItem(pk) {
    await client.send(new DeleteItemCommand({ TableName: TABLE, Key: { pk: { S: pk } } }));
  },
  loseResponse(nth = 1) {
    losing = nth;
  },
}));

describeQuestionStoreContract("in-memory question store", async () => {
  let losing: number | undefined;
  const memory = createInMemoryQuestionStore({
    retentionSeconds: 3600,
    loseResponse: () => {
      if (losing === undefined || --losing > 0) return false;
      losing = undefined;
      return true;
    },
  });
  return {
    store: memory,
    storedItem: async (pk) => {
      const item = memory.items.get(pk);
      return item && structuredClone(item);
    },
    putItem: async (item) => {
      memory.items.set(item.pk, structuredClone(item));
    },
    deleteItem: async (pk) => {
      memory.items.delete(pk);
    },
    loseResponse(nth = 1) {
      losing = nth;
    },
  };
});

describe("in-memory question store", () => {
  it("reports its changes as the table's stream does: a question stored, and closed with its run's token", async () => {
    const changes: ItemImages[] = [];
    const memory = createInMemoryQuestionStore({ retentionSeconds: 3600, onChange: (c) => changes.push(c) });
    const question = newQuestion({ sessionKey: "s-stream", runId: "run-s", taskToken: "tok-s" });
    await memory.create(question, T0);
    await memory.saveDraft(question.id, { q: ["A"] }, 0, T0 + 1);
    await memory.saveDraft(question.id, { q: ["A"] }, 0, T0 + 1);
    await memory.close(question.id, { status: "answered", answers: { q: ["B"] } }, T0 + 2);
    await memory.close(question.id, { status: "answered", answers: { q: ["A"] } }, T0 + 3);

    const read = changes.map((c) => questionChangeFrom(c.oldImage, c.newImage, T0 + 4));
    // The question, its session slot, its draft (the second, the same, changed nothing), its close.
    expect(changes).toHaveLength(4);
    expect(read[0]).toMatchObject({ kind: "requested", record: { id: question.id, status: "pending" } });
    expect(read[1]).toBeUndefined();
    expect(changes[1]?.newImage?.pk).toEqual({ S: keys.sessionSlot("s-stream") });
    expect(read[2]).toBeUndefined();
    expect(read[3]).toMatchObject({
      kind: "closed",
      taskToken: "tok-s",
      record: { status: "answered", answers: { q: ["B"] } },
    });
  });

  it("reports a pending question's new votes as `voted`, naming only the new voters; other changes not", async () => {
    const changes: ItemImages[] = [];
    const memory = createInMemoryQuestionStore({ retentionSeconds: 3600, onChange: (c) => changes.push(c) });
    const question = newQuestion({ id: "ask_voted", quorum: 3 });
    await memory.create(question, T0);
    await memory.saveDraft(question.id, { q: ["A"] }, 0, T0 + 1);
    const bob = { by: "web:bob", answers: { q: ["A"] }, atMs: T0 + 2 };
    const carol = { by: "web:carol", answers: { q: ["B"] }, atMs: T0 + 3 };
    await memory.vote(question.id, [bob], 0, T0 + 2);
    await memory.vote(question.id, [bob, carol], 1, T0 + 3);
    const read = changes.map((c) => questionChangeFrom(c.oldImage, c.newImage, T0 + 4));
    expect(read[0]).toMatchObject({ kind: "requested" });
    expect(read[1]).toBeUndefined();
    expect(read[2]).toMatchObject({ kind: "voted", voters: ["web:bob"], record: { status: "pending" } });
    expect(read[3]).toMatchObject({ kind: "voted", voters: ["web:carol"] });
  });

  it("projects into its listings what every pending index of the table projects", () => {
    for (const index of table.GlobalSecondaryIndexes) {
      expect([...index.Projection.NonKeyAttributes].sort()).toEqual([...PENDING_INDEX_PROJECTION].sort());
    }
  });
});

describe("DynamoDB question store: the table", () => {
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

  it("replaces a copy only while the entry it read is still that copy: channel and chat too, not the message id alone", async () => {
    const question = newQuestion({ deliverTo: [{ channel: "telegram", chatId: "-100" }] });
    await store.create(question, T0);
    const copy = { channel: "telegram", chatId: "-100", messageId: "5" };
    await store.recordDeliveries(question.id, [{ index: 0, delivery: copy }], T0 + 1);
    // Between replaceCopy's read and its write, the entry becomes another chat's message of the same number
    // (Telegram numbers messages per chat).
    const other = { channel: "telegram", chatId: "-200", messageId: "5" };
    let armed = true;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { UpdateExpression?: string };
        if (
          armed &&
          context.commandName === "UpdateItemCommand" &&
          input.UpdateExpression?.includes("deliveries[0]")
        ) {
          armed = false;
          const item = unmarshall(
            (
              await client.send(
                new GetItemCommand({
                  TableName: TABLE,
                  Key: { pk: { S: keys.question(question.id) } },
                  ConsistentRead: true,
                }),
              )
            ).Item ?? {},
          );
          await client.send(
            new PutItemCommand({ TableName: TABLE, Item: marshall({ ...item, deliveries: [other] }) }),
          );
        }
        return next(args);
      },
      { step: "initialize", name: "interleaveReplace" },
    );
    try {
      const step = { ...copy, messageId: "6" };
      const after = await store.replaceCopy(question.id, copy, step, T0 + 2);
      expect(armed).toBe(false);
      // The other chat's copy stays; the step is recorded beside it.
      expect(after?.deliveries).toEqual([other, step]);
    } finally {
      client.middlewareStack.remove("interleaveReplace");
    }
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
