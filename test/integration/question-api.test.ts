import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allItems, startTestStack, type TestStack } from "./support/test-stack.ts";

let stack: TestStack;
/** Every DynamoDB request the handlers sent: operation and input. */
const dynamoDbRequests: { operation: string; input: Record<string, any> }[] = [];
beforeAll(async () => {
  stack = await startTestStack(
    {},
    {
      observeDynamoDbClient: (client) =>
        client.middlewareStack.add(
          (next, context) => async (args) => {
            const operation = ((context as { commandName?: string }).commandName ?? "").replace(
              /Command$/,
              "",
            );
            dynamoDbRequests.push({ operation, input: args.input as Record<string, any> });
            return next(args);
          },
          { step: "initialize", name: "recordRequests" },
        ),
    },
  );
});
afterAll(async () => {
  await stack?.stop();
});

let counter = 0;
const unique = (prefix: string) => `${prefix}-${Date.now()}-${++counter}`;

function askBody(overrides: Record<string, unknown> = {}) {
  return {
    questions: [
      {
        id: "deploy_target",
        header: "Deploy to",
        question: "Where should it go?",
        options: [{ label: "Staging (Recommended)" }, { label: "Production" }],
      },
    ],
    owner: "web:alice",
    ...overrides,
  };
}

describe("authentication", () => {
  const routes: [string, string][] = [
    ["POST", "/questions"],
    ["GET", "/questions?owner=web:alice"],
    ["GET", "/questions/ask_x"],
    ["POST", "/questions/ask_x/answer"],
    ["POST", "/questions/ask_x/cancel"],
    ["GET", "/questions/ask_x/wait?timeoutMs=0"],
  ];
  it.each(routes)("%s %s without the key → 401 UNAUTHORIZED", async (method, path) => {
    const response = await stack.api(method, path, method === "POST" ? askBody() : undefined, { auth: null });
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe("UNAUTHORIZED");
  });
  it("a wrong key of the same length is refused", async () => {
    const response = await stack.api("GET", "/questions?owner=web:alice", undefined, {
      auth: "Bearer test-api-key-0123456780",
    });
    expect(response.status).toBe(401);
  });
  it("a request refused for auth stores nothing", async () => {
    const before = (await allItems(stack)).length;
    await stack.api("POST", "/questions", askBody({ id: unique("noauth") }), { auth: "Bearer nope" });
    expect((await allItems(stack)).length).toBe(before);
  });
});

describe("POST /questions", () => {
  it("registers a pending question → 201 with id, status, deadline and the answer page's link", async () => {
    const before = Date.now();
    const response = await stack.api("POST", "/questions", askBody({ timeoutSeconds: 120 }));
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^ask_[0-9a-f]{32}$/),
      status: "pending",
      expiresAtMs: expect.any(Number),
      answerUrl: `${stack.httpUrl}/answer/${response.body.id}?sig=${response.body.answerUrl?.split("sig=")[1]}`,
    });
    expect(response.body.answerUrl).toMatch(/\?sig=[A-Za-z0-9_-]{43}$/);
    expect(response.body.expiresAtMs).toBeGreaterThanOrEqual(before + 120_000);
    expect(response.body.expiresAtMs).toBeLessThanOrEqual(Date.now() + 120_000);
  });

  it("invalid ask_user arguments → 400 INVALID_ARGUMENT with every issue's path, nothing stored", async () => {
    const before = (await allItems(stack)).length;
    const response = await stack.api("POST", "/questions", {
      owner: "web:alice",
      questions: [{ id: "Bad Id", header: "", question: "Q?", options: [{ label: "Only one" }] }],
      timeoutSeconds: 1.5,
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("INVALID_ARGUMENT");
    const paths = response.body.error.issues.map((issue: { path: string }) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "questions.0.id",
        "questions.0.header",
        "questions.0.options",
        "timeoutSeconds",
      ]),
    );
    expect((await allItems(stack)).length).toBe(before);
  });

  it("a question over 1,000 characters or a description over 200 → 400 at their paths, nothing stored", async () => {
    const before = (await allItems(stack)).length;
    const [question] = askBody().questions;
    const response = await stack.api("POST", "/questions", {
      ...askBody(),
      questions: [
        {
          ...question,
          question: "q".repeat(1001),
          options: [{ label: "Staging", description: "d".repeat(201) }, { label: "Production" }],
        },
      ],
    });
    expect(response.status).toBe(400);
    expect(response.body.error.issues).toEqual([
      { path: "questions.0.question", message: "question must be at most 1000 characters after trimming" },
      {
        path: "questions.0.options.0.description",
        message: "description must be at most 200 characters after trimming",
      },
    ]);
    expect((await allItems(stack)).length).toBe(before);
  });

  it("an owner that is not platform-qualified → 400 INVALID_ARGUMENT at path owner", async () => {
    const response = await stack.api("POST", "/questions", askBody({ owner: "alice" }));
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("INVALID_ARGUMENT");
    expect(response.body.error.issues[0].path).toBe("owner");
  });

  it("malformed JSON → 400 INVALID_JSON", async () => {
    const response = await stack.api("POST", "/questions", undefined, { raw: "{not json" });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("INVALID_JSON");
  });

  it("the same explicit id twice → 409 ID_IN_USE", async () => {
    const id = unique("fixed");
    expect((await stack.api("POST", "/questions", askBody({ id }))).status).toBe(201);
    const again = await stack.api("POST", "/questions", askBody({ id }));
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("ID_IN_USE");
  });

  it("a second question in a session while one is pending → 409 SESSION_BUSY naming it; free again once answered", async () => {
    const sessionKey = unique("session");
    const first = await stack.api("POST", "/questions", askBody({ sessionKey }));
    expect(first.status).toBe(201);
    const second = await stack.api("POST", "/questions", askBody({ sessionKey }));
    expect(second.status).toBe(409);
    expect(second.body.error).toEqual({
      code: "SESSION_BUSY",
      message: `Question "${first.body.id}" is already waiting for an answer in this session. Wait for it to end before asking again.`,
      pendingQuestionId: first.body.id,
    });

    await stack.api("POST", `/questions/${first.body.id}/answer`, {
      answers: { deploy_target: ["Production"] },
    });
    const third = await stack.api("POST", "/questions", askBody({ sessionKey }));
    expect(third.status).toBe(201);
  });
});

describe("GET /questions/{id} and GET /questions", () => {
  it("returns the record with canonical questions and the answer page's link; unknown id → 404 NOT_FOUND", async () => {
    const created = await stack.api("POST", "/questions", askBody({ agentId: "agent-7" }));
    const response = await stack.api("GET", `/questions/${created.body.id}`);
    expect(response.status).toBe(200);
    expect(response.body.answerUrl).toBe(created.body.answerUrl);
    expect(response.body.question).toMatchObject({
      id: created.body.id,
      status: "pending",
      owner: "web:alice",
      agentId: "agent-7",
      deliveries: [],
      questions: [
        {
          id: "deploy_target",
          allowOther: true,
          options: [{ label: "Staging (Recommended)" }, { label: "Production" }],
        },
      ],
    });
    const missing = await stack.api("GET", "/questions/ask_doesnotexist");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("NOT_FOUND");
  });

  it("lists pending questions by owner, session or agent, oldest first, without closed ones", async () => {
    const owner = `web:${unique("owner")}`;
    const a = await stack.api("POST", "/questions", askBody({ owner }));
    const b = await stack.api("POST", "/questions", askBody({ owner, agentId: "lister" }));
    const c = await stack.api("POST", "/questions", askBody({ owner }));
    await stack.api("POST", `/questions/${b.body.id}/cancel`, {});
    const byOwner = await stack.api("GET", `/questions?owner=${encodeURIComponent(owner)}`);
    expect(byOwner.status).toBe(200);
    expect(byOwner.body.questions.map((q: { id: string }) => q.id)).toEqual([a.body.id, c.body.id]);
    expect(byOwner.body.questions.every((q: { status: string }) => q.status === "pending")).toBe(true);
  });

  it("lists by sessionKey and by agentId", async () => {
    const sessionKey = unique("s");
    const agentId = unique("agent");
    const created = await stack.api("POST", "/questions", askBody({ sessionKey, agentId }));
    for (const query of [`sessionKey=${sessionKey}`, `agentId=${agentId}`]) {
      const response = await stack.api("GET", `/questions?${query}`);
      expect(response.body.questions.map((q: { id: string }) => q.id)).toEqual([created.body.id]);
    }
  });

  it("without a filter → 400 INVALID_ARGUMENT (listing everything would be a scan)", async () => {
    for (const query of [
      "",
      "?limit=5",
      "?cursor=abc",
      "?owner=",
      "?colour=blue",
      "?owner=web:a&colour=blue",
    ]) {
      const response = await stack.api("GET", `/questions${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error.code).toBe("INVALID_ARGUMENT");
    }
    const none = await stack.api("GET", "/questions");
    expect(none.body.error.message).toMatch(/owner, sessionKey or agentId.*scan/);
  });
});

describe("GET /questions: several filters, pages", () => {
  type Listed = { id: string; owner: string; agentId?: string; sessionKey?: string; createdAtMs: number };
  type Page = { status: number; questions: Listed[]; nextCursor?: string };

  const ask = async (overrides: Record<string, unknown>): Promise<string> =>
    (await stack.api("POST", "/questions", askBody(overrides))).body.id;
  const list = async (query: Record<string, string>): Promise<Page> => {
    const response = await stack.api("GET", `/questions?${new URLSearchParams(query)}`);
    return { status: response.status, ...response.body };
  };
  const ids = (page: Page) => page.questions.map((q) => q.id);
  /** Every page of a listing, following nextCursor until there is none. */
  async function pages(query: Record<string, string>): Promise<Page[]> {
    const all: Page[] = [];
    let cursor: string | undefined;
    do {
      const page = await list(cursor === undefined ? query : { ...query, cursor });
      expect(page.status).toBe(200);
      all.push(page);
      cursor = page.nextCursor;
    } while (cursor !== undefined && all.length < 20);
    return all;
  }
  /** Oldest first: creation time, then id (the pending indexes' sort key). */
  const oldestFirst = (questions: Listed[]) =>
    [...questions].sort((a, b) => a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

  it("combines several filters with AND", async () => {
    const owner = `web:${unique("and")}`;
    const other = `web:${unique("and-other")}`;
    const [agent, otherAgent, sessionKey] = [unique("agent"), unique("agent"), unique("session")];
    const a = await ask({ owner, agentId: agent, sessionKey });
    const b = await ask({ owner, agentId: agent });
    await ask({ owner, agentId: otherAgent });
    await ask({ owner: other, agentId: agent });

    expect(ids(await list({ owner, agentId: agent }))).toEqual([a, b]);
    expect(ids(await list({ owner, agentId: agent, sessionKey }))).toEqual([a]);
    expect(ids(await list({ agentId: otherAgent, sessionKey }))).toEqual([]);
    expect(ids(await list({ owner: other, sessionKey }))).toEqual([]);
    expect(ids(await list({ owner: other, agentId: agent }))).toHaveLength(1);
  });

  it("pages an owner's 120 pending questions in pages of 50: each once, oldest first, the last without nextCursor", async () => {
    const owner = `web:${unique("pages")}`;
    const created: string[] = [];
    for (let i = 0; i < 120; i++) created.push(await ask({ owner }));

    const listed = await pages({ owner });

    expect(listed.map((page) => page.questions.length)).toEqual([50, 50, 20]);
    expect(listed.map((page) => page.nextCursor !== undefined)).toEqual([true, true, false]);
    const all = listed.flatMap((page) => page.questions);
    expect(new Set(all.map((q) => q.id)).size).toBe(120);
    expect(all.map((q) => q.id).sort()).toEqual([...created].sort());
    expect(all).toEqual(oldestFirst(all));
  });

  it("keeps reading past questions the other filters drop until the page is full", async () => {
    const [mine, theirs, agentId] = [`web:${unique("mine")}`, `web:${unique("theirs")}`, unique("shared")];
    const expected: string[] = [];
    for (let i = 0; i < 30; i++) {
      const id = await ask({ owner: i % 3 === 0 ? mine : theirs, agentId });
      if (i % 3 === 0) expected.push(id);
    }

    dynamoDbRequests.length = 0;
    const listed = await pages({ agentId, owner: mine, limit: "3" });

    expect(listed.map((page) => page.questions.length)).toEqual([3, 3, 3, 1]);
    expect(listed.flatMap(ids)).toEqual(expected);
    // More reads than pages: DynamoDB's Limit came before the filter, and the listing read on.
    const queries = dynamoDbRequests.filter((request) => request.operation === "Query");
    expect(queries.length).toBeGreaterThan(listed.length);
  });

  it("a page exactly as long as what is left has no nextCursor", async () => {
    const owner = `web:${unique("exact")}`;
    for (let i = 0; i < 4; i++) await ask({ owner });

    const listed = await pages({ owner, limit: "2" });

    expect(listed.map((page) => [page.questions.length, page.nextCursor !== undefined])).toEqual([
      [2, true],
      [2, false],
    ]);
  });

  it.each(["0", "101", "abc", "-1", "1.5", "", "1e9"])(
    "limit=%j → 400 INVALID_ARGUMENT at query.limit",
    async (limit) => {
      const response = await stack.api("GET", `/questions?owner=web:alice&limit=${limit}`);

      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({
        code: "INVALID_ARGUMENT",
        issues: [{ path: "query.limit", message: "limit must be a whole number from 1 to 100" }],
      });
    },
  );

  it("accepts limit 1 and 100", async () => {
    const owner = `web:${unique("bounds")}`;
    await ask({ owner });
    await ask({ owner });

    const [one, hundred] = [await list({ owner, limit: "1" }), await list({ owner, limit: "100" })];

    expect([one.status, one.questions.length, one.nextCursor !== undefined]).toEqual([200, 1, true]);
    expect([hundred.status, hundred.questions.length, hundred.nextCursor]).toEqual([200, 2, undefined]);
  });

  it("a malformed or tampered cursor → 400 INVALID_ARGUMENT at query.cursor, never a 500", async () => {
    const owner = `web:${unique("tamper")}`;
    await ask({ owner });
    const json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const cursors = [
      "not a cursor",
      "%%%",
      "x".repeat(2000),
      Buffer.from("not json").toString("base64url"),
      json({ foo: 1 }),
      json(null),
      json([1, 2]),
      json("ask_x"),
      json({ createdAtMs: "1", id: "ask_x" }),
      json({ createdAtMs: -1, id: "ask_x" }),
      json({ createdAtMs: 1.5, id: "ask_x" }),
      json({ createdAtMs: 1e20, id: "ask_x" }),
      json({ createdAtMs: 1, id: "" }),
      json({ createdAtMs: 1, id: "a#b" }),
      json({ createdAtMs: 1, id: "x".repeat(2000) }),
      json({ createdAtMs: 1, id: "ask_x", more: true }),
      `${json({ createdAtMs: 1, id: "ask_x" })}=`,
    ];
    for (const cursor of cursors) {
      const response = await stack.api(
        "GET",
        `/questions?owner=${owner}&cursor=${encodeURIComponent(cursor)}`,
      );
      expect(response.status, cursor).toBe(400);
      expect(response.body.error.code).toBe("INVALID_ARGUMENT");
      expect(response.body.error.issues[0].path).toBe("query.cursor");
    }
  });

  it("a cursor pointing at another question or from another listing still reads only this filter's page", async () => {
    const owner = `web:${unique("elsewhere")}`;
    const other = `web:${unique("elsewhere-other")}`;
    const mine: string[] = [];
    const theirs: string[] = [];
    for (let i = 0; i < 5; i++) {
      mine.push(await ask({ owner }));
      theirs.push(await ask({ owner: other }));
    }
    const full = ids(await list({ owner }));
    const foreign = (await list({ owner: other, limit: "2" })).nextCursor as string;
    // The test knows the cursor's encoding on purpose: it rewrites the id inside a real cursor.
    const position = JSON.parse(Buffer.from(foreign, "base64url").toString("utf8"));
    const rewritten = [theirs[4], "ask_00000000000000000000000000000000", mine[3], mine[0]].map((id) =>
      Buffer.from(JSON.stringify({ ...position, id })).toString("base64url"),
    );

    for (const cursor of [foreign, ...rewritten]) {
      const page = await list({ owner, cursor });
      expect(page.status === 200 || page.status === 400, cursor).toBe(true);
      if (page.status !== 200) continue;
      // A suffix of this owner's own listing, in order.
      expect(ids(page)).toEqual(full.slice(full.length - page.questions.length));
    }
    expect(full).toEqual(mine);
  });

  it("reads with Query on the most selective pending index, never with Scan", async () => {
    const owner = `web:${unique("noscan")}`;
    const [agentId, sessionKey] = [unique("agent"), unique("session")];
    await ask({ owner, agentId, sessionKey });
    for (let i = 0; i < 3; i++) await ask({ owner, agentId });
    const indexOf = async (query: Record<string, string>) => {
      dynamoDbRequests.length = 0;
      await pages(query);
      expect(dynamoDbRequests.map((request) => request.operation)).not.toContain("Scan");
      return [
        ...new Set(dynamoDbRequests.map((request) => `${request.operation} ${request.input.IndexName}`)),
      ];
    };

    expect(await indexOf({ owner, limit: "2" })).toEqual(["Query pendingByOwner"]);
    expect(await indexOf({ owner, agentId, limit: "2" })).toEqual(["Query pendingByAgent"]);
    expect(await indexOf({ owner, agentId, sessionKey })).toEqual(["Query pendingBySession"]);
    expect(await indexOf({ agentId, sessionKey })).toEqual(["Query pendingBySession"]);
  });
});

describe("POST /questions/{id}/answer", () => {
  it("canonicalizes the answer, closes the question once, and a second answer → 409 ALREADY_RESOLVED", async () => {
    const created = await stack.api("POST", "/questions", askBody());
    const answered = await stack.api("POST", `/questions/${created.body.id}/answer`, {
      answers: { deploy_target: [" production "] },
    });
    expect(answered.status).toBe(200);
    expect(answered.body).toEqual({ status: "answered", answers: { deploy_target: ["Production"] } });

    const again = await stack.api("POST", `/questions/${created.body.id}/answer`, {
      answers: { deploy_target: ["Staging (Recommended)"] },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("ALREADY_RESOLVED");
    expect(again.body.status).toBe("answered");

    const record = await stack.api("GET", `/questions/${created.body.id}`);
    expect(record.body.question).toMatchObject({
      status: "answered",
      answers: { deploy_target: ["Production"] },
      resolvedBy: "api",
      resolvedAtMs: expect.any(Number),
    });
  });

  it("a value naming a label without its (Recommended) suffix is recorded as that label", async () => {
    const created = await stack.api("POST", "/questions", askBody());
    const answered = await stack.api("POST", `/questions/${created.body.id}/answer`, {
      answers: { deploy_target: ["staging!"] },
    });
    expect(answered.body).toEqual({
      status: "answered",
      answers: { deploy_target: ["Staging (Recommended)"] },
    });
  });

  it("an invalid answer → 400 INVALID_ANSWER at answers.<question id> and the question stays pending", async () => {
    const created = await stack.api("POST", "/questions", askBody());
    const cases: [unknown, string][] = [
      [{ nope: ["x"] }, "answers.nope"],
      [{ deploy_target: [] }, "answers.deploy_target"],
      [{ deploy_target: ["a", "b"] }, "answers.deploy_target"],
      ["text", "answers"],
    ];
    for (const [answers, path] of cases) {
      const response = await stack.api("POST", `/questions/${created.body.id}/answer`, { answers });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({
        code: "INVALID_ANSWER",
        issues: [{ path, message: response.body.error.message }],
      });
    }
    const record = await stack.api("GET", `/questions/${created.body.id}`);
    expect(record.body.question.status).toBe("pending");
  });

  it("unknown question → 404 NOT_FOUND", async () => {
    const response = await stack.api("POST", "/questions/ask_missing/answer", { answers: { a: ["b"] } });
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe("NOT_FOUND");
  });

  it("an answer after the deadline → 409 ALREADY_RESOLVED with status expired", async () => {
    const created = await stack.api("POST", "/questions", askBody({ timeoutSeconds: 1 }));
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const record = await stack.api("GET", `/questions/${created.body.id}`);
    expect(record.body.question.status).toBe("expired");
    const late = await stack.api("POST", `/questions/${created.body.id}/answer`, {
      answers: { deploy_target: ["Production"] },
    });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ error: { code: "ALREADY_RESOLVED" }, status: "expired" });
  });
});

describe("resolvedBy given to the API", () => {
  const resolvedByOf = async (id: string): Promise<string> =>
    (await stack.api("GET", `/questions/${id}`)).body.question.resolvedBy;

  it("is recorded as api:<value>, so it can never read like a chat identity", async () => {
    const answered = await stack.api("POST", "/questions", askBody());
    await stack.api("POST", `/questions/${answered.body.id}/answer`, {
      answers: { deploy_target: ["Production"] },
      resolvedBy: "telegram:42",
    });
    const cancelled = await stack.api("POST", "/questions", askBody());
    await stack.api("POST", `/questions/${cancelled.body.id}/cancel`, {
      reason: "skipped",
      resolvedBy: "ops-dashboard",
    });

    const recorded = [await resolvedByOf(answered.body.id), await resolvedByOf(cancelled.body.id)];

    expect(recorded).toEqual(["api:telegram:42", "api:ops-dashboard"]);
  });

  it("is recorded as api when absent, for an answer and a cancel", async () => {
    const answered = await stack.api("POST", "/questions", askBody());
    await stack.api("POST", `/questions/${answered.body.id}/answer`, { answers: { deploy_target: ["1"] } });
    const cancelled = await stack.api("POST", "/questions", askBody());
    await stack.api("POST", `/questions/${cancelled.body.id}/cancel`, {});

    const recorded = [await resolvedByOf(answered.body.id), await resolvedByOf(cancelled.body.id)];

    expect(recorded).toEqual(["api", "api"]);
  });
});

describe("POST /questions/{id}/cancel", () => {
  it("cancels (default reason cancelled) and a second cancel → 409", async () => {
    const created = await stack.api("POST", "/questions", askBody());
    const cancelled = await stack.api("POST", `/questions/${created.body.id}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({ status: "cancelled", reason: "cancelled" });
    const again = await stack.api("POST", `/questions/${created.body.id}/cancel`, { reason: "skipped" });
    expect(again.status).toBe(409);
    expect(again.body.status).toBe("cancelled");
  });

  it("records the skipped reason; an unknown reason → 400", async () => {
    const created = await stack.api("POST", "/questions", askBody());
    const bad = await stack.api("POST", `/questions/${created.body.id}/cancel`, { reason: "bored" });
    expect(bad.status).toBe(400);
    const skipped = await stack.api("POST", `/questions/${created.body.id}/cancel`, { reason: "skipped" });
    expect(skipped.body).toEqual({ status: "cancelled", reason: "skipped" });
    expect((await stack.api("GET", `/questions/${created.body.id}`)).body.question.reason).toBe("skipped");
  });

  it("unknown question → 404", async () => {
    expect((await stack.api("POST", "/questions/ask_missing/cancel", {})).status).toBe(404);
  });
});

describe("GET /questions/{id}/wait", () => {
  it("returns pending when the wait runs out", async () => {
    const created = await stack.api("POST", "/questions", askBody());
    const started = Date.now();
    const response = await stack.api("GET", `/questions/${created.body.id}/wait?timeoutMs=300`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: "pending" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
  });

  it("returns as soon as the question is answered", async () => {
    const created = await stack.api("POST", "/questions", askBody());
    const waiting = stack.api("GET", `/questions/${created.body.id}/wait?timeoutMs=10000`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    await stack.api("POST", `/questions/${created.body.id}/answer`, { answers: { deploy_target: ["1"] } });
    const response = await waiting;
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(response.body).toEqual({ status: "answered", answers: { deploy_target: ["1"] } });
  });

  it("timeoutMs over 25 000 → 400; unknown question → 404", async () => {
    expect((await stack.api("GET", "/questions/ask_x/wait?timeoutMs=25001")).status).toBe(400);
    const missing = await stack.api("GET", "/questions/ask_missing/wait?timeoutMs=0");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("NOT_FOUND");
  });
});

describe("routing", () => {
  it("an unknown route → 404 NOT_FOUND in the documented error shape", async () => {
    const response = await stack.api("GET", "/nothing-here");
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: { code: "NOT_FOUND", message: "No route GET /nothing-here." } });
  });
});

describe("question ids in the path", () => {
  it.each([
    ["GET", ""],
    ["POST", "/answer"],
    ["POST", "/cancel"],
    ["GET", "/wait?timeoutMs=0"],
  ])("%s /questions/<an id no question can have>%s → 404, never a 500", async (method, suffix) => {
    for (const id of ["x".repeat(3000), "ask%20one", encodeURIComponent("é"), "a.b"]) {
      const response = await stack.api(
        method,
        `/questions/${id}${suffix}`,
        method === "POST" ? {} : undefined,
      );
      expect(response.status, id.slice(0, 20)).toBe(404);
      expect(response.body.error.code).toBe("NOT_FOUND");
    }
  });
});

describe("context: who is asking and why", () => {
  it("is stored trimmed, with its line breaks and markup as written, and returned on the record", async () => {
    const context = "  Release agent for <alice> & *ops*:\r\nv1.4 is green.  ";
    const created = await stack.api("POST", "/questions", askBody({ context }));
    expect(created.status).toBe(201);
    const read = await stack.api("GET", `/questions/${created.body.id}`);
    expect(read.body.question.context).toBe("Release agent for <alice> & *ops*:\nv1.4 is green.");
  });

  it.each([
    ["501 characters", "x".repeat(501), "context must be at most 500 characters after trimming"],
    [
      "a control character",
      "Deploy\u0007now",
      "context must not contain control or direction characters (line breaks are allowed)",
    ],
    [
      "a right-to-left override (it would make the context read other than written)",
      "Release bot for \u202eecila",
      "context must not contain control or direction characters (line breaks are allowed)",
    ],
    [
      "a line separator",
      "Release bot\u2028for alice",
      "context must not contain control or direction characters (line breaks are allowed)",
    ],
    ["blank", " \n ", "context must not be empty or blank"],
    ["not a string", 42, "context must be a string"],
  ])("%s → 400 INVALID_ARGUMENT at path context, nothing stored", async (_, context, message) => {
    const id = unique("bad-context");
    const response = await stack.api("POST", "/questions", askBody({ id, context }));
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("INVALID_ARGUMENT");
    expect(response.body.error.issues).toEqual([{ path: "context", message }]);
    expect((await stack.api("GET", `/questions/${id}`)).status).toBe(404);
  });

  it("exactly 500 characters is taken", async () => {
    const created = await stack.api("POST", "/questions", askBody({ context: "y".repeat(500) }));
    expect(created.status).toBe(201);
    expect((await stack.api("GET", `/questions/${created.body.id}`)).body.question.context).toHaveLength(500);
  });
});
