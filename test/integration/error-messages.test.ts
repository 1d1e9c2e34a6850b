/**
 * Every error the question API and /mcp give for bad input, walked route by route on the local stack:
 * missing, wrong-type, out-of-range and unknown fields, bad query strings, bad JSON, invalid answers, a busy
 * session. Each is told in sentences a person understands — none carries the schema library's wording — each
 * problem names its field, and each is at the right path (query-string problems at `query.<name>`, invalid
 * answers at `answers.<question id>`).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { singleQuestion, unique } from "./support/sample-questions.ts";
import { type ApiResponse, startTestStack, TEST_API_KEY, type TestStack } from "./support/test-stack.ts";

let stack: TestStack;
const ASK_KEY = "walk-ask-key-0123456789abcdef";

beforeAll(async () => {
  stack = await startTestStack({
    HANDRAISE_MCP_WAIT_SECONDS: "1",
    HANDRAISE_API_KEYS: `walker:ask:${ASK_KEY}`,
  });
});
afterAll(async () => {
  await stack?.stop();
});

/** The schema library's own wording (zod's English), which no message may carry. */
const LIBRARY_WORDING = /expected|received|Invalid input|nonoptional|Unrecognized|NaN/;

interface ErrorBody {
  code: string;
  message: string;
  issues?: { path: string; message: string }[];
  pendingQuestionId?: string;
}

/** The field a path names: its last name (`channel` for `deliverTo.0.channel`); `input` for the input itself. */
function fieldOf(path: string): string {
  const names = path.split(".").filter((segment) => segment !== "" && !/^\d+$/.test(segment));
  return names.at(-1) ?? "input";
}

/**
 * The checks every refusal passes: no library wording anywhere, every issue naming its field (a list's name
 * may stand in the singular: `each question must be …` for `questions.0`), and exactly the expected paths.
 */
function expectReadable(error: ErrorBody, paths: string[] | undefined): void {
  expect(error.message).not.toMatch(LIBRARY_WORDING);
  expect(error.message).not.toMatch(/^\s*$/);
  if (paths === undefined) {
    expect(error.issues).toBeUndefined();
    return;
  }
  expect((error.issues ?? []).map((issue) => issue.path)).toEqual(paths);
  for (const issue of error.issues ?? []) {
    expect(issue.message, issue.path).not.toMatch(LIBRARY_WORDING);
    const field = fieldOf(issue.path);
    expect(issue.message.includes(field) || issue.message.includes(field.replace(/s$/, "")), issue.path).toBe(
      true,
    );
  }
  // The summary leads with the first problem's own sentence, not its path glued to it.
  const first = error.issues?.[0];
  if (first && first.path !== "")
    expect(error.message).not.toContain(`${first.path}: ${fieldOf(first.path)}`);
}

function expectRefused(response: ApiResponse, status: number, code: string, paths?: string[]): ErrorBody {
  expect(response.status, response.text).toBe(status);
  const error = response.body.error as ErrorBody;
  expect(error.code).toBe(code);
  expectReadable(error, paths);
  return error;
}

const ask = (body: Record<string, unknown> = {}) =>
  stack.api("POST", "/questions", { questions: [singleQuestion], owner: "web:walker", ...body });

describe("POST /questions refuses bad input in sentences, each at its path", () => {
  it.each<[string, unknown, string[]]>([
    ["missing fields", {}, ["questions", "owner"]],
    [
      "fields of the wrong type",
      { questions: [singleQuestion], owner: 5, deliverTo: "telegram:1", sessionKey: 7, runId: [] },
      ["owner", "sessionKey", "runId", "deliverTo"],
    ],
    [
      "values out of range",
      {
        questions: [singleQuestion],
        owner: "web:walker",
        sessionKey: "",
        agentId: "a".repeat(257),
        id: "not an id",
        deliverTo: Array.from({ length: 11 }, () => ({ channel: "console", chatId: "t" })),
        remindAfterSeconds: [0, 1.5],
      },
      ["id", "sessionKey", "agentId", "deliverTo", "remindAfterSeconds.0", "remindAfterSeconds.1"],
    ],
    [
      "unknown fields, each at its own path",
      {
        questions: [singleQuestion],
        owner: "web:walker",
        timeout: 5,
        deliverTo: [{ channel: "console", chatId: "t", colour: "red" }],
      },
      ["deliverTo.0.colour", "timeout"],
    ],
    [
      "nested objects with fields missing or wrong",
      {
        questions: [singleQuestion],
        owner: "web:walker",
        deliverTo: [1, { channel: "console" }],
        escalate: { afterSeconds: 0, owner: "bob" },
        notify: { url: 5 },
        requestedBy: "alice",
      },
      [
        "deliverTo.0",
        "deliverTo.1.chatId",
        "escalate.afterSeconds",
        "escalate.owner",
        "escalate.deliverTo",
        "notify.url",
        "requestedBy",
      ],
    ],
    ["a body that is not an object", [1, 2], [""]],
  ])("%s → 400 INVALID_ARGUMENT", async (_, body, paths) => {
    expectRefused(await stack.api("POST", "/questions", body), 400, "INVALID_ARGUMENT", paths);
  });

  it("messages say the rule: required, the type and size of a list, the owner's form", async () => {
    const missing = expectRefused(await stack.api("POST", "/questions", {}), 400, "INVALID_ARGUMENT", [
      "questions",
      "owner",
    ]);
    expect(missing.issues?.map((issue) => issue.message)).toEqual([
      "questions is required",
      "owner is required",
    ]);
    expect(missing.message).toBe("Invalid request: questions is required, and 1 more problem.");

    const wrong = expectRefused(await ask({ deliverTo: "telegram:1" }), 400, "INVALID_ARGUMENT", [
      "deliverTo",
    ]);
    expect(wrong.message).toBe(
      "Invalid request: deliverTo must be a list of at most 10 {channel, chatId} objects.",
    );
    const owner = expectRefused(await ask({ owner: "alice" }), 400, "INVALID_ARGUMENT", ["owner"]);
    expect(owner.issues?.[0]?.message).toMatch(/^owner must be platform-qualified, e\.g\. "telegram:12345"/);
    const nested = expectRefused(
      await ask({ deliverTo: [{ channel: "console" }] }),
      400,
      "INVALID_ARGUMENT",
      ["deliverTo.0.chatId"],
    );
    expect(nested.message).toBe("Invalid request: chatId is required (at deliverTo.0.chatId).");
  });

  it('the example of docs/api.md, "Errors"', async () => {
    const response = await stack.api("POST", "/questions", {
      questions: [],
      owner: "alice",
      deliverTo: [{ channel: "telegram" }],
      timeout: 60,
    });
    const owner = 'owner must be platform-qualified, e.g. "telegram:12345", "slack:T1:U1" or "web:alice"';
    expect(response.body).toEqual({
      error: {
        code: "INVALID_ARGUMENT",
        message: `Invalid request: ${owner}, and 2 more problems.`,
        issues: [
          { path: "owner", message: owner },
          { path: "deliverTo.0.chatId", message: "chatId is required" },
          { path: "timeout", message: "timeout is not a field of this request" },
        ],
      },
    });
  });

  it("the ask_user arguments break the contract's rules → its own sentences, at their paths", async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{ questions: "deploy?" }, ["questions"]],
      [{ questions: [] }, ["questions"]],
      [
        { questions: [{ ...singleQuestion, options: [{ label: "Only" }], colour: 1 }] },
        ["questions.0.options", "questions.0.colour"],
      ],
      [{ questions: [{ ...singleQuestion, password: "x" }] }, ["questions.0.password"]],
      [{ questions: [1] }, ["questions.0"]],
      [{ timeoutSeconds: "60" }, ["timeoutSeconds"]],
    ];
    for (const [body, paths] of cases) expectRefused(await ask(body), 400, "INVALID_ARGUMENT", paths);
  });

  it("a target, a reminder, an escalation or a requester the ask cannot take → 400 at its path", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [
        {
          deliverTo: [
            { channel: "console", chatId: "t" },
            { channel: "pigeon", chatId: "1" },
          ],
        },
        "deliverTo.1.channel",
      ],
      [{ timeoutSeconds: 60, remindAfterSeconds: [30, 60] }, "remindAfterSeconds.1"],
      [
        {
          timeoutSeconds: 60,
          escalate: { afterSeconds: 90, owner: "web:bob", deliverTo: [{ channel: "console", chatId: "t" }] },
        },
        "escalate.afterSeconds",
      ],
      [{ requestedBy: "web:walker" }, "requestedBy"],
      [{ notify: { url: "ftp://example.com/hook" } }, "notify.url"],
    ];
    for (const [body, path] of cases) expectRefused(await ask(body), 400, "INVALID_ARGUMENT", [path]);
  });

  it("bad JSON → 400 INVALID_JSON, saying the body is not JSON", async () => {
    const error = expectRefused(
      await stack.api("POST", "/questions", undefined, { raw: "{" }),
      400,
      "INVALID_JSON",
    );
    expect(error.message).toContain("body");
  });

  it("a busy session → 409 SESSION_BUSY naming the question that waits (pendingQuestionId)", async () => {
    const sessionKey = unique("walk-busy");
    const first = await ask({ sessionKey });
    expect(first.status).toBe(201);
    const error = expectRefused(await ask({ sessionKey }), 409, "SESSION_BUSY");
    expect(error.pendingQuestionId).toBe(first.body.id);
    expect(error.message).toContain(`"${first.body.id}"`);
  });

  it("to an ask key, a session busy with another key's question is busy, but that question is not named", async () => {
    const sessionKey = unique("walk-busy-other");
    expect((await ask({ sessionKey })).status).toBe(201);
    const response = await stack.api(
      "POST",
      "/questions",
      { questions: [singleQuestion], owner: "web:walker", sessionKey },
      { auth: `Bearer ${ASK_KEY}` },
    );
    const error = expectRefused(response, 409, "SESSION_BUSY");
    expect(error.pendingQuestionId).toBeUndefined();
    expect(error.message).toMatch(/^Another question is already waiting/);
  });
});

describe("query strings: problems at query.<name>", () => {
  it.each<[string, string, string[]]>([
    ["limit not a number", "/questions?owner=web:walker&limit=abc", ["query.limit"]],
    ["limit out of range", "/questions?owner=web:walker&limit=101", ["query.limit"]],
    ["limit not whole", "/questions?owner=web:walker&limit=1.5", ["query.limit"]],
    ["a cursor that is not one", "/questions?owner=web:walker&cursor=nope", ["query.cursor"]],
    ["an empty filter", "/questions?owner=", ["query.owner"]],
    ["an unknown parameter", "/questions?owner=web:walker&timeout=5", ["query.timeout"]],
    ["no filter at all", "/questions", ["query"]],
    ["timeoutMs not a number", "/questions/ask_x/wait?timeoutMs=abc", ["query.timeoutMs"]],
    ["timeoutMs over 25000", "/questions/ask_x/wait?timeoutMs=25001", ["query.timeoutMs"]],
    ["timeoutMs negative", "/questions/ask_x/wait?timeoutMs=-1", ["query.timeoutMs"]],
    ["timeoutMs not whole", "/questions/ask_x/wait?timeoutMs=0.5", ["query.timeoutMs"]],
    ["an unknown wait parameter", "/questions/ask_x/wait?timeout=5", ["query.timeout"]],
  ])("%s → 400 INVALID_ARGUMENT", async (_, path, paths) => {
    expectRefused(await stack.api("GET", path), 400, "INVALID_ARGUMENT", paths);
  });

  it("say the rule: timeoutMs's whole range, limit's, and that an unknown name is no parameter", async () => {
    const timeout = await stack.api("GET", "/questions/ask_x/wait?timeoutMs=abc");
    expect(timeout.body.error.issues).toEqual([
      { path: "query.timeoutMs", message: "timeoutMs must be a whole number from 0 to 25000" },
    ]);
    expect(timeout.body.error.message).toBe(
      "Invalid request: timeoutMs must be a whole number from 0 to 25000.",
    );
    const limit = await stack.api("GET", "/questions?owner=web:walker&limit=0");
    expect(limit.body.error.issues).toEqual([
      { path: "query.limit", message: "limit must be a whole number from 1 to 100" },
    ]);
    const unknown = await stack.api("GET", "/questions?owner=web:walker&timeout=5");
    expect(unknown.body.error.issues).toEqual([
      { path: "query.timeout", message: "timeout is not a query parameter of this route" },
    ]);
  });
});

describe("POST /questions/{id}/answer and /cancel", () => {
  let id: string;
  beforeAll(async () => {
    const created = await ask({
      questions: [singleQuestion, { ...singleQuestion, id: "notes", multiSelect: true }],
    });
    id = created.body.id;
  });

  it.each<[string, unknown, string[]]>([
    ["no answers", {}, ["answers"]],
    ["an unknown field", { answers: { deploy_target: ["1"], notes: ["x"] }, by: "me" }, ["by"]],
    ["resolvedBy empty, or not a string", { answers: {}, resolvedBy: "" }, ["resolvedBy"]],
    ["resolvedBy too long", { answers: {}, resolvedBy: "r".repeat(257) }, ["resolvedBy"]],
  ])("answer: %s → 400 INVALID_ARGUMENT", async (_, body, paths) => {
    expectRefused(await stack.api("POST", `/questions/${id}/answer`, body), 400, "INVALID_ARGUMENT", paths);
  });

  it.each<[string, unknown, string]>([
    ["an answer to no question of it", { nope: ["x"] }, "answers.nope"],
    ["a question left unanswered", { deploy_target: ["Production"] }, "answers.notes"],
    ["an empty answer", { deploy_target: [], notes: ["x"] }, "answers.deploy_target"],
    ["a blank value", { deploy_target: ["  "], notes: ["x"] }, "answers.deploy_target"],
    [
      "two values for a single-select question",
      { deploy_target: ["a", "b"], notes: ["x"] },
      "answers.deploy_target",
    ],
    ["answers that are not an object of lists", ["Production"], "answers"],
  ])("answer: %s → 400 INVALID_ANSWER at its question's path", async (_, answers, path) => {
    const error = expectRefused(
      await stack.api("POST", `/questions/${id}/answer`, { answers }),
      400,
      "INVALID_ANSWER",
      [path],
    );
    expect(error.issues?.[0]?.message).toBe(error.message);
    expect((await stack.api("GET", `/questions/${id}`)).body.question.status).toBe("pending");
  });

  it.each<[string, unknown, string[]]>([
    ["an unknown reason", { reason: "later" }, ["reason"]],
    ["an unknown field", { why: "no" }, ["why"]],
    ["resolvedBy of the wrong type", { resolvedBy: 5 }, ["resolvedBy"]],
  ])("cancel: %s → 400 INVALID_ARGUMENT", async (_, body, paths) => {
    const error = expectRefused(
      await stack.api("POST", `/questions/${id}/cancel`, body),
      400,
      "INVALID_ARGUMENT",
      paths,
    );
    if (paths[0] === "reason") expect(error.issues?.[0]?.message).toBe("reason must be cancelled or skipped");
  });

  it("bad JSON → 400 INVALID_JSON on both", async () => {
    for (const route of ["answer", "cancel"]) {
      expectRefused(
        await stack.api("POST", `/questions/${id}/${route}`, undefined, { raw: "[" }),
        400,
        "INVALID_JSON",
      );
    }
  });
});

// ── /mcp ─────────────────────────────────────────────────────────────────────────────────────────────

async function connect(headers: Record<string, string>, key = TEST_API_KEY): Promise<Client> {
  const client = new Client({ name: "handraise-walk", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.httpUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}`, ...headers } },
  });
  await client.connect(transport);
  return client;
}

interface ToolResult {
  content: { type: string; text: string }[];
  structuredContent?: { error?: ErrorBody };
  isError?: boolean;
}

/** A tool error: the same checks, on its JSON (the last line of its text, and its structuredContent). */
async function toolRefusal(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  code: string,
  paths?: string[],
) {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  expect(result.isError).toBe(true);
  const text = result.content[0]?.text ?? "";
  expect(text).not.toMatch(LIBRARY_WORDING);
  const error = JSON.parse(text.split("\n").at(-1) ?? "{}").error as ErrorBody;
  expect(error.code).toBe(code);
  expectReadable(error, paths);
  return error;
}

describe("/mcp tool errors", () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect({ "x-handraise-owner": `web:${unique("walk-mcp")}` });
  });
  afterAll(async () => {
    await client?.close();
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ["no questions", {}, ["questions"]],
    ["questions of the wrong type", { questions: "deploy?" }, ["questions"]],
    ["an unknown field", { questions: [singleQuestion], timeout: 5 }, ["timeout"]],
    ["timeoutSeconds not whole", { questions: [singleQuestion], timeoutSeconds: 1.5 }, ["timeoutSeconds"]],
    [
      "an option missing its label",
      { questions: [{ ...singleQuestion, options: [{ label: "A" }, {}] }] },
      ["questions.0.options.1.label"],
    ],
  ])("ask_user: %s → INVALID_ARGUMENT", async (_, args, paths) => {
    await toolRefusal(client, "ask_user", args, "INVALID_ARGUMENT", paths);
  });

  it.each<[string, string, Record<string, unknown>, string[]]>([
    ["get_answer", "no questionId", {}, ["questionId"]],
    ["get_answer", "questionId of the wrong type", { questionId: 5 }, ["questionId"]],
    ["get_answer", "waitSeconds out of range", { questionId: "ask_x", waitSeconds: 99 }, ["waitSeconds"]],
    ["get_answer", "waitSeconds not whole", { questionId: "ask_x", waitSeconds: 1.5 }, ["waitSeconds"]],
    ["get_answer", "waitSeconds not a number", { questionId: "ask_x", waitSeconds: "soon" }, ["waitSeconds"]],
    ["get_answer", "an unknown field", { questionId: "ask_x", wait: 5 }, ["wait"]],
    ["cancel_question", "no questionId", {}, ["questionId"]],
    ["cancel_question", "an unknown field", { questionId: "ask_x", reason: "x" }, ["reason"]],
  ])("%s: %s → INVALID_ARGUMENT", async (tool, _, args, paths) => {
    await toolRefusal(client, tool, args, "INVALID_ARGUMENT", paths);
  });

  it("say the rule: waitSeconds's whole range, and which argument is unknown", async () => {
    const range = await toolRefusal(
      client,
      "get_answer",
      { questionId: "ask_x", waitSeconds: 99 },
      "INVALID_ARGUMENT",
      ["waitSeconds"],
    );
    expect(range.message).toBe("Invalid arguments: waitSeconds must be a whole number from 0 to 25.");
    const unknown = await toolRefusal(
      client,
      "get_answer",
      { questionId: "ask_x", wait: 5 },
      "INVALID_ARGUMENT",
      ["wait"],
    );
    expect(unknown.issues?.[0]?.message).toBe("wait is not a field of this request");
  });

  it("a malformed X-Handraise-Owner or X-Handraise-Deliver-To → NO_ASKER naming the header", async () => {
    const badOwner = await connect({ "x-handraise-owner": "alice" });
    const owner = await toolRefusal(badOwner, "ask_user", { questions: [singleQuestion] }, "NO_ASKER");
    expect(owner.message).toMatch(/^X-Handraise-Owner must be platform-qualified, e\.g\. /);
    await badOwner.close();
    const badTargets = await connect({
      "x-handraise-owner": "web:walker",
      "x-handraise-deliver-to": "console",
    });
    const targets = await toolRefusal(badTargets, "ask_user", { questions: [singleQuestion] }, "NO_ASKER");
    expect(targets.message).toContain("X-Handraise-Deliver-To");
    await badTargets.close();
  });
});
