/**
 * `GET /openapi.json` on the local stack (docs/api.md, "The API's description"): public and cacheable, clean
 * under a maintained OpenAPI linter (Redocly's recommended-strict rules), naming every route the question API
 * and the MCP server serve — and true: real responses of each route, its success and each of its errors, fit
 * the schema the document gives for that status (ajv, JSON Schema 2020-12 as OpenAPI 3.1 has it).
 */
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readServerlessFunctions } from "#infra/local/serverless-functions.ts";
import { PROJECT_ROOT } from "#infra/local/stack.ts";
import { startInProcessStack } from "../support/in-process-stack.ts";
import { singleQuestion, unique } from "./support/sample-questions.ts";
import { startTestStack, TEST_API_KEY, type TestStack } from "./support/test-stack.ts";

const KEYS = {
  asker: "asker-key-0123456789abcdef",
  reviewer: "reviewer-key-0123456789abcdef",
};

type Json = Record<string, any>;

let stack: TestStack;
let document: Json;

beforeAll(async () => {
  stack = await startTestStack({
    HANDRAISE_API_KEYS: `asker:ask:${KEYS.asker},reviewer:answer:${KEYS.reviewer}`,
  });
  const response = await fetch(`${stack.httpUrl}/openapi.json`);
  expect(response.status).toBe(200);
  document = (await response.json()) as Json;
});
afterAll(async () => {
  await stack?.stop();
});

/** A response as the checks need it. */
interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

async function request(
  method: string,
  path: string,
  options: {
    body?: unknown;
    raw?: string;
    key?: string | null;
    headers?: Record<string, string>;
  } = {},
): Promise<Reply> {
  const key = options.key === undefined ? TEST_API_KEY : options.key;
  const response = await fetch(`${stack.httpUrl}${path}`, {
    method,
    headers: {
      "content-type": "application/json",
      ...(key !== null && { authorization: `Bearer ${key}` }),
      ...options.headers,
    },
    ...(options.raw !== undefined
      ? { body: options.raw }
      : options.body !== undefined && { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** `#/components/…` → the object it points at. */
function resolve(node: Json): Json {
  if (typeof node.$ref !== "string") return node;
  const target = (node.$ref as string)
    .slice(2)
    .split("/")
    .reduce<Json>((at, part) => at[part.replaceAll("~1", "/").replaceAll("~0", "~")], document);
  return resolve(target);
}

const ajv = new Ajv2020({ strict: false, allErrors: true }).addFormat("uri", (text: string) =>
  URL.canParse(text),
);
/** Each schema compiled with the document's components beside it, so that its `#/components/…` refs resolve. */
const validatorOf = (schema: Json) => ajv.compile({ ...schema, components: document.components });

/** Every `<METHOD> <path> <status>` a real response was checked against. */
const seen = new Set<string>();

/**
 * Checks `reply` against the document: the operation (`POST /questions/{id}/answer`) names its status, the
 * body fits that status's schema (or there is none, and no body), and every header it requires is there.
 */
function expectDescribed(operation: string, reply: Reply): void {
  const [method = "", path = ""] = operation.split(" ");
  const described = document.paths?.[path]?.[method.toLowerCase()];
  expect(described, `${operation} is in the document`).toBeDefined();
  const declared = described.responses?.[String(reply.status)];
  expect(declared, `${operation} documents status ${reply.status} (body ${reply.text})`).toBeDefined();
  const response = resolve(declared);
  const schema = response.content?.["application/json"]?.schema;
  if (schema === undefined) {
    expect(reply.text, `${operation} ${reply.status} has no body`).toBe("");
  } else {
    expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
    const validate = validatorOf(schema);
    const valid = validate(reply.body);
    expect(valid, `${operation} ${reply.status}: ${ajv.errorsText(validate.errors)} in ${reply.text}`).toBe(
      true,
    );
  }
  for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
    if (resolve(header).required)
      expect(reply.headers.get(name), `${operation} ${reply.status} ${name}`).not.toBeNull();
  }
  seen.add(`${operation} ${reply.status}`);
}

/**
 * A vote refused as busy (503 VOTES_BUSY): other votes landing first a dozen times in a row cannot be made on
 * demand over HTTP, so the same handlers run in process, on a store whose every counting write finds another
 * vote landed first (test/support/in-process-stack.ts).
 */
async function busyVote(): Promise<Reply> {
  const inProcess = await startInProcessStack({});
  inProcess.store.vote = async (questionId, _votes, _seen, nowMs) => {
    const current = await inProcess.store.get(questionId, nowMs);
    if (!current) throw new Error("no question");
    return { kind: "stale", record: current };
  };
  const id = unique("busy");
  const asked = await inProcess.api("POST", "/questions", {
    id,
    questions: [singleQuestion],
    owner: "web:alice",
    answerers: [{ owner: "web:bob" }],
    quorum: 2,
  });
  expect(asked.status).toBe(201);
  const busy = await inProcess.api("POST", `/questions/${id}/answer`, {
    answers: { [singleQuestion.id]: ["Staging"] },
    resolvedBy: "web:bob",
  });
  await inProcess.stop();
  expect(busy.body?.error?.code).toBe("VOTES_BUSY");
  return { status: busy.status, headers: new Headers(busy.headers), text: busy.text, body: busy.body };
}

const ask = (overrides: Json = {}, key?: string | null) =>
  request("POST", "/questions", {
    body: { questions: [singleQuestion], owner: "web:alice", ...overrides },
    ...(key !== undefined && { key }),
  });
const created = async (overrides: Json = {}, key?: string | null): Promise<string> => {
  const reply = await ask(overrides, key);
  expect(reply.status).toBe(201);
  return (reply.body as { id: string }).id;
};
const answer = (
  id: string,
  body: Json = { answers: { deploy_target: ["Production"] } },
  key?: string | null,
) => request("POST", `/questions/${id}/answer`, { body, ...(key !== undefined && { key }) });

/** The next DynamoDB call of `operations` fails as a role without the permission does: the API's 500. */
async function failNextDynamoDb(operations: string[]): Promise<void> {
  // The stream consumer's own reads must not take the fault first.
  await stack.streamsDrained();
  stack.faults.dynamodb.failNext(1, { code: "AccessDeniedException", status: 400, operations });
}

const TOO_LARGE = JSON.stringify({ padding: "x".repeat(65 * 1024) });

describe("the document", () => {
  it("is served without a key, cacheable, with an ETag that answers 304 when it is current", async () => {
    const first = await request("GET", "/openapi.json", { key: null });
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("public, max-age=300");
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[\w-]+"$/);
    expectDescribed("GET /openapi.json", first);

    const again = await request("GET", "/openapi.json", {
      key: null,
      headers: { "if-none-match": `${etag}` },
    });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expectDescribed("GET /openapi.json", again);

    // Weak or strong, alone or in a list, as caches send it.
    for (const tags of [`W/${etag}`, `"older", ${etag}`]) {
      const listed = await request("GET", "/openapi.json", { key: null, headers: { "if-none-match": tags } });
      expect(listed.status, tags).toBe(304);
    }
    const stale = await request("GET", "/openapi.json", {
      key: null,
      headers: { "if-none-match": '"stale"' },
    });
    expect(stale.status).toBe(200);
    expect(stale.text).toBe(first.text);
  });

  it("is OpenAPI 3.1 that Redocly's recommended-strict rules find nothing wrong with", async () => {
    expect(document.openapi).toBe("3.1.0");
    const problems = await lintFromString({
      source: JSON.stringify(document),
      absoluteRef: `${stack.httpUrl}/openapi.json`,
      config: await createConfig({ extends: ["recommended-strict"] }),
    });
    expect(
      problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
    ).toEqual([]);
  });

  it("names the deployment's URL as its server, and the bearer key with its scopes", () => {
    expect(document.servers).toEqual([{ url: stack.httpUrl, description: "This deployment" }]);
    expect(document.components.securitySchemes.apiKey).toMatchObject({ type: "http", scheme: "bearer" });
    for (const scope of ["`ask`", "`answer`", "`admin`"]) {
      expect(document.components.securitySchemes.apiKey.description).toContain(scope);
    }
    expect(document.paths["/questions/{id}/answer"].post.security).toEqual([{ apiKey: ["answer"] }]);
    expect(document.paths["/questions"].post.security).toEqual([{ apiKey: ["ask"] }]);
    expect(document.paths["/openapi.json"].get.security).toEqual([]);
  });

  it("describes every route of the question API, /mcp and itself that serverless.yml serves", () => {
    const served = readServerlessFunctions(PROJECT_ROOT)
      .filter((fn) => ["questionsApi", "mcp", "openApi"].includes(fn.key))
      .flatMap((fn) => fn.routes.map((route) => `${route.method} ${route.path}`));
    const described = Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => ["get", "post", "put", "patch", "delete"].includes(key))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    // GET and DELETE /mcp only ever answer 405 (no stream, no session): said on the path, not operations.
    const onlyRefused = ["GET /mcp", "DELETE /mcp"];
    expect(document.paths["/mcp"].description).toMatch(/GET and DELETE answer 405/);
    expect(described.sort()).toEqual(served.filter((route) => !onlyRefused.includes(route)).sort());
  });

  it("describes each request body with the schema its route parses with", async () => {
    const create = document.components.schemas.CreateQuestionRequest;
    expect(create.additionalProperties).toBe(false);
    expect(Object.keys(create.properties).sort()).toEqual(
      [
        "agentId",
        "answerers",
        "context",
        "deliverTo",
        "escalate",
        "id",
        "notify",
        "owner",
        "questions",
        "quorum",
        "remindAfterSeconds",
        "requestedBy",
        "runId",
        "sessionKey",
        "timeoutSeconds",
      ].sort(),
    );
    // What the schema refuses, the route refuses, and the other way round: the ask_user rules included.
    const validate = validatorOf(create);
    const valid = { questions: [singleQuestion], owner: "web:alice" };
    const cases: Json[] = [
      valid,
      { ...valid, unknown: 1 },
      { ...valid, owner: "alice" },
      { ...valid, questions: [{ ...singleQuestion, options: [{ label: "Only" }] }] },
      { ...valid, questions: [{ ...singleQuestion, id: "Deploy" }] },
      { ...valid, deliverTo: [{ channel: "console" }] },
    ];
    for (const body of cases) {
      const reply = await ask({ ...body, sessionKey: unique("schema") });
      expect(reply.status === 201, JSON.stringify(body)).toBe(validate({ ...body, sessionKey: "s" }));
    }
  });
});

describe("real responses fit the document", () => {
  it("POST /questions: 201, 400 INVALID_ARGUMENT and INVALID_JSON, 401, 409 ID_IN_USE and SESSION_BUSY, 413, 500", async () => {
    const op = "POST /questions";
    const id = unique("openapi");
    const sessionKey = unique("session");
    const first = await ask({
      id,
      sessionKey,
      agentId: "release-bot",
      runId: "run-1",
      timeoutSeconds: 600,
      deliverTo: [{ channel: "console", chatId: "terminal" }],
      remindAfterSeconds: [300],
      escalate: {
        afterSeconds: 120,
        owner: "web:bob",
        deliverTo: [{ channel: "console", chatId: "terminal" }],
      },
      requestedBy: "web:carol",
    });
    expect(first.status).toBe(201);
    expectDescribed(op, first);

    const invalid = await ask({ questions: [] });
    expect(invalid.status).toBe(400);
    expect((invalid.body as Json).error.code).toBe("INVALID_ARGUMENT");
    expectDescribed(op, invalid);
    const notJson = await request("POST", "/questions", { raw: "{" });
    expect((notJson.body as Json).error.code).toBe("INVALID_JSON");
    expectDescribed(op, notJson);
    expectDescribed(op, await ask({}, null));

    const taken = await ask({ id });
    expect((taken.body as Json).error.code).toBe("ID_IN_USE");
    expectDescribed(op, taken);
    const busy = await ask({ sessionKey });
    expect((busy.body as Json).error.code).toBe("SESSION_BUSY");
    expectDescribed(op, busy);

    const tooLarge = await request("POST", "/questions", { raw: TOO_LARGE });
    expect(tooLarge.status).toBe(413);
    expectDescribed(op, tooLarge);

    await failNextDynamoDb(["PutItem", "UpdateItem", "BatchWriteItem"]);
    const failed = await ask();
    expect(failed.status).toBe(500);
    expectDescribed(op, failed);
  });

  it("GET /questions: 200 with nextCursor, 400, 401, 500", async () => {
    const op = "GET /questions";
    const owner = `web:${unique("lister")}`;
    await created({ owner });
    await created({ owner });
    const page = await request("GET", `/questions?owner=${owner}&limit=1`);
    expect(page.status).toBe(200);
    expect((page.body as Json).nextCursor).toEqual(expect.any(String));
    expectDescribed(op, page);
    const last = await request("GET", `/questions?owner=${owner}&cursor=${(page.body as Json).nextCursor}`);
    expect((last.body as Json).questions).toHaveLength(1);
    expectDescribed(op, last);

    const noFilter = await request("GET", "/questions");
    expect(noFilter.status).toBe(400);
    expectDescribed(op, noFilter);
    expectDescribed(op, await request("GET", `/questions?owner=${owner}&limit=0`));
    expectDescribed(op, await request("GET", `/questions?owner=${owner}`, { key: null }));

    await failNextDynamoDb(["Query"]);
    const failed = await request("GET", `/questions?owner=${owner}`);
    expect(failed.status).toBe(500);
    expectDescribed(op, failed);
  });

  it("GET /questions/{id}: 200 pending and ended, 401, 404, 500", async () => {
    const op = "GET /questions/{id}";
    const id = await created({
      deliverTo: [{ channel: "console", chatId: "terminal" }],
      escalate: {
        afterSeconds: 60,
        owner: "web:bob",
        deliverTo: [{ channel: "console", chatId: "terminal" }],
      },
    });
    const pending = await request("GET", `/questions/${id}`);
    expect((pending.body as Json).answerUrl).toEqual(expect.any(String));
    expectDescribed(op, pending);
    expect(
      (await answer(id, { answers: { deploy_target: ["staging"] }, resolvedBy: "dashboard" })).status,
    ).toBe(200);
    const ended = await request("GET", `/questions/${id}`);
    expect((ended.body as Json).question).toMatchObject({ status: "answered", resolvedByKey: "default" });
    expectDescribed(op, ended);

    expectDescribed(op, await request("GET", `/questions/${id}`, { key: null }));
    expectDescribed(op, await request("GET", "/questions/no-such-question"));
    expectDescribed(op, await request("GET", `/questions/${id}`, { key: KEYS.asker }));

    await failNextDynamoDb(["GetItem"]);
    const failed = await request("GET", `/questions/${id}`);
    expect(failed.status).toBe(500);
    expectDescribed(op, failed);
  });

  it("POST /questions/{id}/answer: 200, 202, every 400, 401, every 403, 404, every 409, 413, 500", async () => {
    const op = "POST /questions/{id}/answer";
    const id = await created();
    const codeOf = (reply: Reply) => (reply.body as Json).error.code;

    const wrong = await answer(id, { answers: { nope: ["x"] } });
    expect(codeOf(wrong)).toBe("INVALID_ANSWER");
    expectDescribed(op, wrong);
    const unknownField = await answer(id, { answers: { deploy_target: ["x"] }, extra: true });
    expect(codeOf(unknownField)).toBe("INVALID_ARGUMENT");
    expectDescribed(op, unknownField);
    const notJson = await request("POST", `/questions/${id}/answer`, { raw: "nope" });
    expect(codeOf(notJson)).toBe("INVALID_JSON");
    expectDescribed(op, notJson);
    expectDescribed(op, await answer(id, undefined, null));

    const scope = await answer(id, undefined, KEYS.asker);
    expect(codeOf(scope)).toBe("INSUFFICIENT_SCOPE");
    expectDescribed(op, scope);
    const own = await created({}, KEYS.reviewer);
    const self = await answer(own, undefined, KEYS.reviewer);
    expect(codeOf(self)).toBe("SELF_ANSWER");
    expectDescribed(op, self);
    const forCarol = await created({ requestedBy: "web:carol" });
    const requester = await answer(forCarol, {
      answers: { deploy_target: ["Staging"] },
      resolvedBy: "web:carol",
    });
    expect(codeOf(requester)).toBe("REQUESTER_CANNOT_ANSWER");
    expectDescribed(op, requester);
    expectDescribed(op, await answer("no-such-question"));
    const tooLarge = await request("POST", `/questions/${id}/answer`, { raw: TOO_LARGE });
    expect(tooLarge.status).toBe(413);
    expectDescribed(op, tooLarge);

    const answered = await answer(id, { answers: { deploy_target: ["production"] } });
    expect(answered.body).toEqual({ status: "answered", answers: { deploy_target: ["Production"] } });
    expectDescribed(op, answered);
    const again = await answer(id);
    expect(again.body).toMatchObject({ error: { code: "ALREADY_RESOLVED" }, status: "answered" });
    expectDescribed(op, again);

    // With a quorum the answer is the key's vote: kept (202), and refused from the same key again (409),
    // whoever it names.
    const voting = await created({ answerers: [{ owner: "web:bob" }], quorum: 2 });
    const kept = await answer(voting, { answers: { deploy_target: ["Staging"] }, resolvedBy: "web:bob" });
    expect(kept.status).toBe(202);
    expectDescribed(op, kept);
    const twice = await answer(voting, { answers: { deploy_target: ["Staging"] }, resolvedBy: "web:alice" });
    expect(codeOf(twice)).toBe("ALREADY_ANSWERED");
    expectDescribed(op, twice);
    expectDescribed(op, await busyVote());

    const other = await created();
    await failNextDynamoDb(["GetItem"]);
    const failed = await answer(other);
    expect(failed.status).toBe(500);
    expectDescribed(op, failed);
  });

  it("POST /questions/{id}/cancel: 200, 400, 401, 403, 404, 409, 413, 500", async () => {
    const op = "POST /questions/{id}/cancel";
    const cancel = (id: string, body: Json = {}, key?: string | null) =>
      request("POST", `/questions/${id}/cancel`, { body, ...(key !== undefined && { key }) });
    const id = await created({ requestedBy: "web:carol" });

    expectDescribed(op, await cancel(id, { reason: "later" }));
    expectDescribed(op, await request("POST", `/questions/${id}/cancel`, { raw: "[" }));
    expectDescribed(op, await cancel(id, {}, null));
    const requester = await cancel(id, { resolvedBy: "web:carol" });
    expect((requester.body as Json).error.code).toBe("REQUESTER_CANNOT_ANSWER");
    expectDescribed(op, requester);
    expectDescribed(op, await cancel("no-such-question"));
    expectDescribed(op, await request("POST", `/questions/${id}/cancel`, { raw: TOO_LARGE }));

    const skipped = await cancel(id, { reason: "skipped" });
    expect(skipped.body).toEqual({ status: "cancelled", reason: "skipped" });
    expectDescribed(op, skipped);
    const again = await cancel(id);
    expect(again.status).toBe(409);
    expectDescribed(op, again);

    const other = await created();
    await failNextDynamoDb(["GetItem"]);
    const failed = await cancel(other);
    expect(failed.status).toBe(500);
    expectDescribed(op, failed);
  });

  it("GET /questions/{id}/wait: 200 pending and cancelled, 400, 401, 404, 500", async () => {
    const op = "GET /questions/{id}/wait";
    const id = await created();
    const pending = await request("GET", `/questions/${id}/wait?timeoutMs=0`);
    expect(pending.body).toEqual({ status: "pending" });
    expectDescribed(op, pending);
    await request("POST", `/questions/${id}/cancel`, { body: {} });
    const cancelled = await request("GET", `/questions/${id}/wait?timeoutMs=0`);
    expect(cancelled.body).toEqual({ status: "cancelled", reason: "cancelled" });
    expectDescribed(op, cancelled);

    expectDescribed(op, await request("GET", `/questions/${id}/wait?timeoutMs=soon`));
    expectDescribed(op, await request("GET", `/questions/${id}/wait`, { key: null }));
    expectDescribed(op, await request("GET", "/questions/no-such-question/wait?timeoutMs=0"));

    await failNextDynamoDb(["GetItem"]);
    const failed = await request("GET", `/questions/${id}/wait?timeoutMs=0`);
    expect(failed.status).toBe(500);
    expectDescribed(op, failed);
  });

  it("POST /mcp: 200, 202, 400, 401, 406, 413, 415", async () => {
    const op = "POST /mcp";
    const mcp = (body: string, headers: Record<string, string> = {}, key?: string | null) =>
      request("POST", "/mcp", {
        raw: body,
        headers: { accept: "application/json, text/event-stream", ...headers },
        ...(key !== undefined && { key }),
      });
    const list = await mcp(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
    expect(list.status).toBe(200);
    expectDescribed(op, list);
    const id = await created();
    const call = await mcp(
      JSON.stringify({
        jsonrpc: "2.0",
        id: "call-1",
        method: "tools/call",
        params: { name: "get_answer", arguments: { questionId: id, waitSeconds: 0 } },
      }),
    );
    expect(call.status).toBe(200);
    expectDescribed(op, call);
    const unknownMethod = await mcp(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "nope/nothing" }));
    expect((unknownMethod.body as Json).error.code).toBe(-32601);
    expectDescribed(op, unknownMethod);

    const notification = await mcp(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    expect(notification.status).toBe(202);
    expectDescribed(op, notification);
    expectDescribed(op, await mcp("{not json"));
    expectDescribed(op, await mcp(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }), {}, null));
    expectDescribed(
      op,
      await mcp(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list" }), {
        accept: "application/json",
      }),
    );
    expectDescribed(op, await mcp(TOO_LARGE));
    expectDescribed(
      op,
      await mcp(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/list" }), {
        "content-type": "text/plain",
      }),
    );
  });

  it("the check refuses a body that does not fit its status's schema, and a status the document does not name", () => {
    const reply = (status: number, body: unknown): Reply => ({
      status,
      headers: new Headers({ "content-type": "application/json" }),
      text: JSON.stringify(body),
      body,
    });
    expect(() => expectDescribed("POST /questions/{id}/answer", reply(200, { status: "answered" }))).toThrow(
      /must have required property 'answers'/,
    );
    expect(() =>
      expectDescribed(
        "POST /questions",
        reply(409, { error: { code: "ALREADY_RESOLVED", message: "Ended." } }),
      ),
    ).toThrow(/must be equal to one of the allowed values/);
    expect(() =>
      expectDescribed("GET /questions", reply(409, { error: { code: "X", message: "x" } })),
    ).toThrow(/documents status 409/);
  });

  it("every response the document gives was seen, but the throttle's 429 and an MCP call's unexpected 500", () => {
    const exempt = (key: string) => key.endsWith(" 429") || key === "POST /mcp 500";
    const documented = Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => ["get", "post"].includes(method))
        .flatMap(([method, operation]) =>
          Object.keys((operation as Json).responses).map(
            (status) => `${method.toUpperCase()} ${path} ${status}`,
          ),
        ),
    );
    expect(documented.filter((key) => !exempt(key) && !seen.has(key))).toEqual([]);
  });
});
