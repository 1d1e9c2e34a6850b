/**
 * Keys with scopes on the question API (docs/api.md, "Keys and scopes"), on the local stack: an `ask` key
 * works only with the questions it asked (another's does not exist for it) and answers nothing; an `answer`
 * key answers any question but its own; the admin key (`default`, HANDRAISE_API_KEY) does anything. And the
 * person a question is asked for (`requestedBy`) never answers it over the API.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { singleQuestion, unique } from "./support/sample-questions.ts";
import { type ApiResponse, startTestStack, type TestStack } from "./support/test-stack.ts";

const KEYS = {
  agentA: "agent-a-key-0123456789abcdef",
  agentB: "agent-b-key-0123456789abcdef",
  reviewer: "reviewer-key-0123456789abcdef",
};

let stack: TestStack;
/** Every DynamoDB request the handlers sent: operation and index. */
const dynamoDbRequests: { operation: string; index?: string }[] = [];

beforeAll(async () => {
  stack = await startTestStack(
    {
      HANDRAISE_API_KEYS: `agent-a:ask:${KEYS.agentA},agent-b:ask:${KEYS.agentB},reviewer:answer:${KEYS.reviewer}`,
    },
    {
      observeDynamoDbClient: (client) =>
        client.middlewareStack.add(
          (next, context) => async (args) => {
            const operation = ((context as { commandName?: string }).commandName ?? "").replace(
              /Command$/,
              "",
            );
            const input = args.input as { IndexName?: string };
            dynamoDbRequests.push({ operation, ...(input.IndexName && { index: input.IndexName }) });
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

type Key = keyof typeof KEYS | "admin";
const as = (key: Key) => (key === "admin" ? {} : { auth: `Bearer ${KEYS[key]}` });
const call = (key: Key, method: string, path: string, body?: unknown) =>
  stack.api(method, path, body, as(key));

/** A question asked with `key` for a fresh owner; its id. */
async function askAs(key: Key, fields: Record<string, unknown> = {}): Promise<string> {
  const created = await call(key, "POST", "/questions", {
    questions: [singleQuestion],
    owner: `web:${unique("keys")}`,
    ...fields,
  });
  expect(created.status, created.text).toBe(201);
  return created.body.id as string;
}

const answer = (key: Key, id: string, extra: Record<string, unknown> = {}) =>
  call(key, "POST", `/questions/${id}/answer`, { answers: { deploy_target: ["Production"] }, ...extra });
const read = (id: string) => call("admin", "GET", `/questions/${id}`).then((r) => r.body.question);

/** The response headers of a request (stack.api keeps only the body). */
async function headersOf(path: string, init: RequestInit): Promise<{ status: number; headers: Headers }> {
  const response = await fetch(`${stack.httpUrl}${path}`, init);
  await response.text();
  return { status: response.status, headers: response.headers };
}

function expectNotFound(response: ApiResponse, id: string) {
  expect(response.status).toBe(404);
  // The same body as for no question at all: nothing says the question exists.
  expect(response.body).toEqual({ error: { code: "NOT_FOUND", message: `No question with id "${id}".` } });
}

describe("authentication", () => {
  it('a 401 says how to authenticate: WWW-Authenticate: Bearer realm="handraise"', async () => {
    for (const authorization of [undefined, "Bearer wrong-key-0123456789abcdef", `Basic ${KEYS.agentA}`]) {
      const { status, headers } = await headersOf("/questions?owner=web:x", {
        headers: authorization ? { authorization } : {},
      });
      expect(status).toBe(401);
      expect(headers.get("www-authenticate")).toBe('Bearer realm="handraise"');
    }
  });

  it("takes the scheme name in any case (bearer, BEARER)", async () => {
    for (const scheme of ["bearer", "BEARER", "Bearer"]) {
      const response = await stack.api("GET", "/questions?owner=web:x", undefined, {
        auth: `${scheme} ${KEYS.agentA}`,
      });
      expect(response.status, scheme).toBe(200);
    }
  });
});

describe("an ask key", () => {
  it("asks, reads, lists, waits for and cancels its own questions, recorded as api:<name>", async () => {
    const owner = `web:${unique("own")}`;
    const id = await askAs("agentA", { owner, sessionKey: unique("s") });
    const got = await call("agentA", "GET", `/questions/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.question).toMatchObject({ id, askedBy: "api:agent-a" });
    const listed = await call("agentA", "GET", `/questions?owner=${owner}`);
    expect(listed.body.questions.map((q: { id: string }) => q.id)).toEqual([id]);
    const waited = await call("agentA", "GET", `/questions/${id}/wait?timeoutMs=0`);
    expect(waited.body).toEqual({ status: "pending" });
    // A person skips; an agent's key only withdraws its question.
    const skipped = await call("agentA", "POST", `/questions/${id}/cancel`, { reason: "skipped" });
    expect(skipped.status).toBe(403);
    expect(skipped.body.error.code).toBe("INSUFFICIENT_SCOPE");
    expect((await read(id)).status).toBe("pending");
    const cancelled = await call("agentA", "POST", `/questions/${id}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(await read(id)).toMatchObject({
      status: "cancelled",
      resolvedBy: "api",
      resolvedByKey: "agent-a",
    });
  });

  it("finds another key's question nowhere: GET, wait and cancel are 404 as for no question; it stays pending", async () => {
    for (const asker of ["agentB", "reviewer", "admin"] as const) {
      const id = await askAs(asker);
      expectNotFound(await call("agentA", "GET", `/questions/${id}`), id);
      expectNotFound(await call("agentA", "GET", `/questions/${id}/wait?timeoutMs=0`), id);
      expectNotFound(await call("agentA", "POST", `/questions/${id}/cancel`, {}), id);
      expect((await read(id)).status).toBe("pending");
    }
  });

  it("lists only its own questions, a page at a time, from its own index (a Query, never a Scan)", async () => {
    const owner = `web:${unique("shared-owner")}`;
    const mine = [];
    for (let i = 0; i < 3; i++) {
      mine.push(await askAs("agentA", { owner }));
      await askAs("agentB", { owner });
    }
    await askAs("admin", { owner });
    dynamoDbRequests.length = 0;
    const first = await call("agentA", "GET", `/questions?owner=${owner}&limit=2`);
    const second = await call(
      "agentA",
      "GET",
      `/questions?owner=${owner}&limit=2&cursor=${first.body.nextCursor}`,
    );
    const ids = [...first.body.questions, ...second.body.questions].map((q: { id: string }) => q.id);
    expect(ids).toEqual(mine);
    expect(first.body.questions).toHaveLength(2);
    expect(second.body.nextCursor).toBeUndefined();
    expect(new Set(dynamoDbRequests.map((r) => `${r.operation} ${r.index}`))).toEqual(
      new Set(["Query pendingByAsker"]),
    );
    // The admin key lists every question of the owner.
    const all = await call("admin", "GET", `/questions?owner=${owner}`);
    expect(all.body.questions).toHaveLength(7);
  });

  it("answers nothing, not even its own question: 403 INSUFFICIENT_SCOPE with WWW-Authenticate", async () => {
    const own = await askAs("agentA");
    const other = await askAs("agentB");
    for (const id of [own, other, "ask_doesnotexist"]) {
      const refused = await answer("agentA", id);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe("INSUFFICIENT_SCOPE");
    }
    const { status, headers } = await headersOf(`/questions/${own}/answer`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEYS.agentA}`, "content-type": "application/json" },
      body: JSON.stringify({ answers: { deploy_target: ["Production"] } }),
    });
    expect(status).toBe(403);
    expect(headers.get("www-authenticate")).toBe('Bearer error="insufficient_scope"');
    expect((await read(own)).status).toBe("pending");
  });
});

describe("the owner's answer link (answerUrl)", () => {
  it("goes only to a key that could answer the question itself: never to the key that asked it", async () => {
    // The link answers as the owner: in an agent's hands it would approve the agent's own question.
    const created = await call("agentA", "POST", "/questions", {
      questions: [singleQuestion],
      owner: `web:${unique("keys")}`,
    });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty("answerUrl");
    const id = created.body.id as string;
    expect((await call("agentA", "GET", `/questions/${id}`)).body).not.toHaveProperty("answerUrl");
    // Another key that may answer it, and the operator's, get it.
    expect((await call("reviewer", "GET", `/questions/${id}`)).body.answerUrl).toMatch(/\/answer\//);
    expect((await call("admin", "GET", `/questions/${id}`)).body.answerUrl).toMatch(/\/answer\//);
    // An answer key's own question: not even to it (SELF_ANSWER by another door).
    const own = await call("reviewer", "POST", "/questions", {
      questions: [singleQuestion],
      owner: `web:${unique("keys")}`,
    });
    expect(own.body).not.toHaveProperty("answerUrl");
    expect((await call("reviewer", "GET", `/questions/${own.body.id}`)).body).not.toHaveProperty("answerUrl");
  });
});

describe("an answer key", () => {
  it("reads and answers any question but its own, recording resolvedBy and resolvedByKey", async () => {
    const id = await askAs("agentA");
    expect((await call("reviewer", "GET", `/questions/${id}`)).status).toBe(200);
    const answered = await answer("reviewer", id, { resolvedBy: "alice" });
    expect(answered.status).toBe(200);
    expect(await read(id)).toMatchObject({
      status: "answered",
      askedBy: "api:agent-a",
      resolvedBy: "api:alice",
      resolvedByKey: "reviewer",
    });
  });

  it("may not answer a question it asked: 403 SELF_ANSWER with WWW-Authenticate; it may cancel it", async () => {
    const id = await askAs("reviewer");
    const refused = await answer("reviewer", id);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("SELF_ANSWER");
    const { headers } = await headersOf(`/questions/${id}/answer`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEYS.reviewer}`, "content-type": "application/json" },
      body: JSON.stringify({ answers: { deploy_target: ["Production"] } }),
    });
    expect(headers.get("www-authenticate")).toBe('Bearer error="insufficient_scope"');
    expect((await read(id)).status).toBe("pending");
    expect((await call("reviewer", "POST", `/questions/${id}/cancel`, {})).status).toBe(200);
  });

  it("cancels any question", async () => {
    const id = await askAs("agentB");
    expect((await call("reviewer", "POST", `/questions/${id}/cancel`, { reason: "skipped" })).status).toBe(
      200,
    );
    expect(await read(id)).toMatchObject({
      status: "cancelled",
      reason: "skipped",
      resolvedByKey: "reviewer",
    });
  });
});

describe("the admin key", () => {
  it("reads, lists, answers and cancels every question, its own too", async () => {
    const own = await askAs("admin");
    expect(await read(own)).toMatchObject({ askedBy: "api:default" });
    expect((await answer("admin", own)).status).toBe(200);
    expect(await read(own)).toMatchObject({ status: "answered", resolvedByKey: "default" });
    const agents = await askAs("agentA");
    expect((await call("admin", "GET", `/questions/${agents}/wait?timeoutMs=0`)).status).toBe(200);
    expect((await call("admin", "POST", `/questions/${agents}/cancel`, {})).status).toBe(200);
  });
});

describe("requestedBy: the person the agent acts for", () => {
  it("is stored and shown on the record", async () => {
    const id = await askAs("agentA", { requestedBy: "slack:T1:U9" });
    expect(await read(id)).toMatchObject({ requestedBy: "slack:T1:U9", askedBy: "api:agent-a" });
  });

  it("equal to the owner with no one else to answer → 400 INVALID_ARGUMENT at requestedBy, nothing stored", async () => {
    const id = unique("self-request");
    const refused = await call("agentA", "POST", "/questions", {
      id,
      questions: [singleQuestion],
      owner: "web:carol",
      requestedBy: "web:carol",
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: "INVALID_ARGUMENT",
      issues: [{ path: "requestedBy" }],
    });
    expect((await call("admin", "GET", `/questions/${id}`)).status).toBe(404);
    // Not an owner-form identity → 400 at requestedBy too.
    const malformed = await call("agentA", "POST", "/questions", {
      questions: [singleQuestion],
      owner: "web:carol",
      requestedBy: "carol",
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.issues.map((i: { path: string }) => i.path)).toEqual(["requestedBy"]);
  });

  it("may be the owner when someone else may answer (an escalation), and still never answers", async () => {
    const id = await askAs("agentA", {
      owner: "web:carol",
      requestedBy: "web:carol",
      escalate: { afterSeconds: 1, owner: "web:dave", deliverTo: [{ channel: "console", chatId: "dave" }] },
    });
    const refused = await answer("reviewer", id, { resolvedBy: "web:carol" });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toEqual({
      code: "REQUESTER_CANNOT_ANSWER",
      message: "You asked for this; someone else must answer.",
    });
  });

  it("named as resolvedBy of an answer or a cancel → 403 REQUESTER_CANNOT_ANSWER under any key, nothing changes", async () => {
    const id = await askAs("agentA", { requestedBy: "slack:T1:U9" });
    for (const key of ["reviewer", "admin"] as const) {
      const answered = await answer(key, id, { resolvedBy: "slack:T1:U9" });
      expect(answered.status).toBe(403);
      expect(answered.body.error.code).toBe("REQUESTER_CANNOT_ANSWER");
      const cancelled = await call(key, "POST", `/questions/${id}/cancel`, { resolvedBy: "slack:T1:U9" });
      expect(cancelled.status).toBe(403);
      expect(cancelled.body.error.code).toBe("REQUESTER_CANNOT_ANSWER");
    }
    const cancelledByAgent = await call("agentA", "POST", `/questions/${id}/cancel`, {
      resolvedBy: "slack:T1:U9",
    });
    expect(cancelledByAgent.body.error.code).toBe("REQUESTER_CANNOT_ANSWER");
    expect((await read(id)).status).toBe("pending");
    // Anyone else answers it.
    expect((await answer("reviewer", id, { resolvedBy: "slack:T1:U2" })).status).toBe(200);
  });
});
