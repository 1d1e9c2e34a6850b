/**
 * The MCP server over HTTP against the local stack, driven by the official SDK's own client
 * (`Client` + `StreamableHTTPClientTransport`), as Claude Code, Cursor or VS Code would drive it. Every
 * client here lists the tools first, so the SDK checks each result against its tool's outputSchema (and
 * throws on one that does not fit), and every call checks that the text's JSON is the structuredContent.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JsonSchemaValidatorResult, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_ASKER_MESSAGE } from "#lib/mcp/asker.ts";
import { INTERNAL_ERROR_MESSAGE } from "#lib/mcp/mcp-tools.ts";
import { askUserToolDefinitions } from "#lib/questions/index.ts";
import { typeProblems } from "../support/json-schema.ts";
import { captureLogs } from "./support/captured-logs.ts";
import { singleQuestion, unique } from "./support/sample-questions.ts";
import {
  allItems,
  startTestStack,
  statusOf,
  TEST_API_KEY,
  type TestStack,
  waitFor,
} from "./support/test-stack.ts";

let stack: TestStack;

/** Two agents' `ask` keys and a reviewer's `answer` key, beside the stack's admin key (TEST_API_KEY). */
const KEYS = {
  agentA: "agent-a-key-0123456789abcdef",
  agentB: "agent-b-key-0123456789abcdef",
  reviewer: "reviewer-key-0123456789abcdef",
};

beforeAll(async () => {
  stack = await startTestStack({
    // A tool call waits 1 s here (20 s deployed), so "pending" comes quickly.
    HANDRAISE_MCP_WAIT_SECONDS: "1",
    // The metrics an operator graphs, as deployed (an unexpected error is counted).
    POWERTOOLS_METRICS_DISABLED: "false",
    HANDRAISE_API_KEYS: `agent-a:ask:${KEYS.agentA},agent-b:ask:${KEYS.agentB},reviewer:answer:${KEYS.reviewer}`,
  });
});
afterAll(async () => {
  await stack?.stop();
});

interface ToolResult {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, any>;
  isError?: boolean;
}

/**
 * Every output check the SDK client made, with its verdict: its own (ajv) validator, recorded, so a test
 * sees that results were checked, not only that nothing threw.
 */
const outputChecks: JsonSchemaValidatorResult<unknown>[] = [];
const recordingValidator: jsonSchemaValidator = {
  getValidator<T>(schema: Parameters<jsonSchemaValidator["getValidator"]>[0]) {
    const validate = new AjvJsonSchemaValidator().getValidator<T>(schema);
    return (input: unknown) => {
      const verdict = validate(input);
      outputChecks.push(verdict);
      return verdict;
    };
  },
};

/** A connected client that has listed the tools: from then on, the SDK checks each result's output. */
async function connect(headers: Record<string, string> = {}, key = TEST_API_KEY): Promise<Client> {
  const client = new Client(
    { name: "handraise-test", version: "1.0.0" },
    { jsonSchemaValidator: recordingValidator },
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.httpUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}`, ...headers } },
  });
  await client.connect(transport);
  await client.listTools();
  return client;
}

/** The JSON line every result's text ends with. */
const jsonOf = (result: ToolResult) => JSON.parse(result.content[0]?.text.split("\n").at(-1) ?? "{}");

/** Calls a tool; every result's text ends in exactly the JSON of its structuredContent. */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  expect(result.content).toHaveLength(1);
  expect(jsonOf(result), `${name}: the text's JSON`).toEqual(result.structuredContent);
  return result;
}

describe("MCP server", () => {
  it("lists ask_user with the model tool's own schema, get_answer and cancel_question", async () => {
    const client = await connect({ "x-handraise-owner": "web:alice" });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["ask_user", "get_answer", "cancel_question"]);
    expect(tools[0]?.inputSchema).toEqual(askUserToolDefinitions.anthropic.input_schema);
    expect(tools[0]?.description).toContain("get_answer");
    await client.close();
  });

  it("declares each tool's outputSchema and annotations, with no type array in any schema", async () => {
    const client = await connect({ "x-handraise-owner": "web:alice" });
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool as any]));

    expect(byName.ask_user?.annotations).toEqual({
      title: "Ask the user",
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(byName.get_answer?.annotations).toEqual({
      title: "Get the user's answer",
      readOnlyHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(byName.cancel_question?.annotations).toEqual({
      title: "Withdraw a question",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: true,
    });
    for (const tool of tools) {
      expect(tool.outputSchema?.type, tool.name).toBe("object");
      expect(typeProblems(tool.inputSchema), tool.name).toEqual([]);
      expect(typeProblems(tool.outputSchema), tool.name).toEqual([]);
    }
    const question = byName.ask_user.inputSchema.properties.questions.items;
    expect(question.properties.multiSelect.type).toBe("boolean");
    expect(question.required).not.toContain("multiSelect");
    // ask_user's and get_answer's results are one shape; each branch names what the result carries.
    expect(byName.get_answer?.outputSchema).toEqual(byName.ask_user?.outputSchema);
    const branches = (byName.ask_user.outputSchema.anyOf as any[]).map((branch) => branch.properties);
    expect(branches.map((properties) => properties.status?.const ?? Object.keys(properties)[0])).toEqual([
      "answered",
      "no_answer",
      "delivery_failed",
      "pending",
      "error",
    ]);
    expect(Object.keys(branches[0])).toEqual(["status", "answers", "resolvedBy", "votes", "questionId"]);
    await client.close();
  });

  it("every result fits its tool's outputSchema, as the SDK client checks it: answered, pending, cancelled and errors", async () => {
    const client = await connect({ "x-handraise-owner": `web:${unique("mcp-out")}` });
    const before = outputChecks.length;
    const asked = await call(client, "ask_user", { questions: [singleQuestion] });
    const { questionId } = asked.structuredContent ?? {};
    const other = await call(client, "ask_user", { questions: [singleQuestion] });
    await stack.api("POST", `/questions/${questionId}/answer`, {
      answers: { deploy_target: ["Production"] },
    });
    const results = [
      asked,
      await call(client, "get_answer", { questionId, waitSeconds: 0 }),
      await call(client, "cancel_question", { questionId: other.structuredContent?.questionId }),
      await call(client, "cancel_question", { questionId }),
      await call(client, "get_answer", { questionId: "ask_doesnotexist", waitSeconds: 0 }),
      await call(client, "ask_user", { questions: [] }),
    ];

    expect(
      results.map((result) => result.structuredContent?.status ?? result.structuredContent?.error.code),
    ).toEqual(["pending", "answered", "no_answer", "ALREADY_RESOLVED", "NOT_FOUND", "INVALID_ARGUMENT"]);
    // One check per call: the six above and the second ask_user.
    expect(outputChecks.slice(before)).toHaveLength(results.length + 1);
    expect(outputChecks.slice(before).filter((check) => !check.valid)).toEqual([]);
    await client.close();
  });

  it("asks, returns pending after its wait, and get_answer returns the answer given over the API", async () => {
    const owner = `web:${unique("mcp")}`;
    const client = await connect({ "x-handraise-owner": owner, "x-handraise-deliver-to": "console:term" });
    const asked = await call(client, "ask_user", { questions: [singleQuestion] });
    expect(asked.isError).toBeUndefined();
    const pending = jsonOf(asked);
    expect(pending).toEqual({ status: "pending", questionId: expect.stringMatching(/^ask_/) });
    expect(asked.content[0]?.text).toContain(`Call get_answer with questionId "${pending.questionId}"`);

    const { body } = await stack.api("GET", `/questions/${pending.questionId}`);
    expect(body.question).toMatchObject({ owner, status: "pending" });
    expect(body.question.deliveries).toEqual([
      // The terminal is the person's own: a private target, whose copy shows the owner's link.
      { channel: "console", chatId: "term", messageId: expect.any(String), privateTo: owner },
    ]);

    const again = await call(client, "get_answer", { questionId: pending.questionId, waitSeconds: 0 });
    expect(jsonOf(again)).toEqual(pending);

    const answered = await stack.api("POST", `/questions/${pending.questionId}/answer`, {
      answers: { deploy_target: ["Production"] },
    });
    expect(answered.status).toBe(200);
    const result = await call(client, "get_answer", { questionId: pending.questionId });
    expect(result.content[0]?.text).toBe(
      `Deploy to: Production\n{"status":"answered","answers":{"deploy_target":["Production"]},"resolvedBy":"api","questionId":"${pending.questionId}"}`,
    );
    expect(result.structuredContent).toEqual({
      status: "answered",
      answers: { deploy_target: ["Production"] },
      resolvedBy: "api",
      questionId: pending.questionId,
    });
    await client.close();
  });

  it("get_answer returns as soon as the answer comes within its wait", async () => {
    const client = await connect({ "x-handraise-owner": `web:${unique("mcp")}` });
    const { questionId } = jsonOf(await call(client, "ask_user", { questions: [singleQuestion] }));
    const waiting = call(client, "get_answer", { questionId, waitSeconds: 20 });
    const started = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await stack.api("POST", `/questions/${questionId}/answer`, {
      answers: { deploy_target: ["Staging (Recommended)"] },
    });
    expect(jsonOf(await waiting)).toEqual({
      status: "answered",
      answers: { deploy_target: ["Staging (Recommended)"] },
      resolvedBy: "api",
      questionId,
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    await client.close();
  });

  it("cancel_question withdraws a waiting question: no_answer cancelled, and the API agrees", async () => {
    const client = await connect({ "x-handraise-owner": `web:${unique("mcp")}` });
    const { questionId } = jsonOf(await call(client, "ask_user", { questions: [singleQuestion] }));
    const cancelled = await call(client, "cancel_question", { questionId });
    expect(jsonOf(cancelled)).toEqual({ status: "no_answer", reason: "cancelled", questionId });
    expect((await stack.api("GET", `/questions/${questionId}`)).body.question).toMatchObject({
      status: "cancelled",
      resolvedBy: "mcp",
      resolvedByKey: "default",
      askedBy: "api:default",
    });
    const twice = await call(client, "cancel_question", { questionId });
    expect(twice.isError).toBe(true);
    expect(jsonOf(twice).error).toMatchObject({ code: "ALREADY_RESOLVED", status: "cancelled" });
    await client.close();
  });

  it("its questions get the same expiry timer: stored expired at the deadline, get_answer says expired", async () => {
    const client = await connect({
      "x-handraise-owner": `web:${unique("mcp")}`,
      "x-handraise-deliver-to": "console:term",
    });
    const { questionId } = jsonOf(
      await call(client, "ask_user", { questions: [singleQuestion], timeoutSeconds: 2 }),
    );
    // Set from the table's stream, as for a question asked over the API or by an agent run.
    await waitFor(
      async () =>
        stack.scheduler.schedules().some((s) => s.name === `${questionId}-expire`) ? true : undefined,
      { what: "the expiry timer set" },
    );
    const item = await waitFor(
      async () => {
        const found = (await allItems(stack)).find((i) => i.id === questionId && i.entity === "question");
        return found?.status === "expired" ? found : undefined;
      },
      { timeoutMs: 15_000, what: "the question stored expired" },
    );
    expect(item.resolvedAtMs).toBeGreaterThanOrEqual(item.expiresAtMs);
    const result = await call(client, "get_answer", { questionId, waitSeconds: 0 });
    expect(jsonOf(result)).toEqual({ status: "no_answer", reason: "expired", questionId });
    await waitFor(
      async () =>
        stack.events.some(
          (e) =>
            e["detail-type"] === "Question Resolved" &&
            e.detail.id === questionId &&
            e.detail.status === "expired",
        )
          ? true
          : undefined,
      { what: "Question Resolved (expired)" },
    );
    await client.close();
  });

  it("refuses invalid arguments as a tool error with the issue paths, storing nothing", async () => {
    const owner = `web:${unique("mcp-bad")}`;
    const client = await connect({ "x-handraise-owner": owner });
    const result = await call(client, "ask_user", {
      questions: [{ ...singleQuestion, id: "Bad Id", options: [{ label: "Only one" }] }],
    });
    expect(result.isError).toBe(true);
    const { error } = jsonOf(result);
    expect(error.code).toBe("INVALID_ARGUMENT");
    expect(error.issues.map((issue: { path: string }) => issue.path).sort()).toEqual([
      "questions.0.id",
      "questions.0.options",
    ]);
    expect(result.content[0]?.text).toContain("call ask_user again");
    expect((await allItems(stack)).filter((item) => item.owner === owner)).toEqual([]);

    const badId = await call(client, "get_answer", { questionId: "../etc", waitSeconds: 99 });
    expect(badId.isError).toBe(true);
    expect(jsonOf(badId).error.issues.map((issue: { path: string }) => issue.path)).toEqual([
      "questionId",
      "waitSeconds",
    ]);
    const unknown = await call(client, "get_answer", { questionId: "ask_doesnotexist" });
    expect(jsonOf(unknown).error.code).toBe("NOT_FOUND");
    await client.close();
  });

  it("needs someone to ask: a tool error without X-Handraise-Owner or a deployment default, saying the fix", async () => {
    const client = await connect();
    const result = await call(client, "ask_user", { questions: [singleQuestion] });
    expect(result.isError).toBe(true);
    expect(jsonOf(result).error).toEqual({ code: "NO_ASKER", message: NO_ASKER_MESSAGE });
    expect(result.content[0]?.text).toMatch(
      /add the header X-Handraise-Owner: .* or set HANDRAISE_MCP_OWNER/,
    );
    const badTargets = await connect({ "x-handraise-owner": "web:x", "x-handraise-deliver-to": "console" });
    const refused = await call(badTargets, "ask_user", { questions: [singleQuestion] });
    expect(jsonOf(refused).error.message).toContain("X-Handraise-Deliver-To");
    const disabled = await connect({ "x-handraise-owner": "web:x", "x-handraise-deliver-to": "slack:C1" });
    const notEnabled = await call(disabled, "ask_user", { questions: [singleQuestion] });
    expect(jsonOf(notEnabled).error).toMatchObject({ code: "INVALID_ARGUMENT" });
    await Promise.all([client.close(), badTargets.close(), disabled.close()]);
  });

  it("refuses a request without the API key with 401, before any MCP message is read", async () => {
    const client = new Client({ name: "handraise-test", version: "1.0.0" });
    await expect(
      client.connect(new StreamableHTTPClientTransport(new URL(`${stack.httpUrl}/mcp`))),
    ).rejects.toMatchObject({ code: 401 });
    const response = await fetch(`${stack.httpUrl}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("UNAUTHORIZED");
  });

  it("an unexpected error in a tool is an opaque INTERNAL tool error: the client never sees its message; it is logged and counted", async () => {
    const client = await connect({ "x-handraise-owner": `web:${unique("mcp-fault")}` });
    // What DynamoDB answers a role that lacks a permission: the role and the table are in the message.
    const denied =
      "User: arn:aws:sts::123456789012:assumed-role/handraise-prod-McpRole/handraise-prod-mcp is not authorized to perform: dynamodb:GetItem on resource: arn:aws:dynamodb:us-east-1:123456789012:table/handraise-prod-QuestionsTable";
    const logs = captureLogs();
    try {
      stack.faults.dynamodb.failNext(1, {
        code: "AccessDeniedException",
        status: 400,
        operations: ["GetItem"],
        message: denied,
      });
      const result = await call(client, "get_answer", {
        questionId: `ask_${"0".repeat(32)}`,
        waitSeconds: 0,
      });
      expect(stack.faults.dynamodb.clear()).toBe(0);
      expect(result.isError).toBe(true);
      const body = { error: { code: "INTERNAL", message: INTERNAL_ERROR_MESSAGE } };
      expect(jsonOf(result)).toEqual(body);
      expect(result.structuredContent).toEqual(body);
      for (const leak of ["arn:", "AccessDenied", "McpRole", "QuestionsTable", "123456789012"]) {
        expect(JSON.stringify(result)).not.toContain(leak);
      }
      expect(logs.logged("unexpected error in an MCP tool call")).toEqual([
        expect.objectContaining({
          level: "ERROR",
          tool: "get_answer",
          error: { name: "AccessDeniedException", message: denied },
        }),
      ]);
      expect(logs.metric("InternalErrors")).toEqual([
        { value: 1, unit: "Count", dimensions: { service: "handraise" } },
      ]);
    } finally {
      logs.stop();
    }
    // Known errors keep their codes, and are not counted as internal.
    const notFound = await call(client, "get_answer", {
      questionId: `ask_${"0".repeat(32)}`,
      waitSeconds: 0,
    });
    expect(jsonOf(notFound).error.code).toBe("NOT_FOUND");
    await client.close();
  });

  it("refuses a body over 64 KiB with 413 PAYLOAD_TOO_LARGE before the MCP SDK reads it; nothing is stored", async () => {
    const owner = `web:${unique("mcp-big")}`;
    const post = (body: string) =>
      fetch(`${stack.httpUrl}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${TEST_API_KEY}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "x-handraise-owner": owner,
        },
        body,
      });
    const toolCall = (question: string) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "ask_user", arguments: { questions: [{ ...singleQuestion, question }] } },
      });
    const big = toolCall("x".repeat(65 * 1024));
    expect(Buffer.byteLength(big)).toBeGreaterThan(64 * 1024);
    const refused = await post(big);
    expect(refused.status).toBe(413);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("PAYLOAD_TOO_LARGE");
    // Not JSON at all: still 413, so the SDK never parsed it (it answers a parse error to what it reads).
    expect((await post(`{${"x".repeat(65 * 1024)}`)).status).toBe(413);
    expect((await post(`{${"x".repeat(1024)}`)).status).toBe(400);
    expect((await stack.api("GET", `/questions?owner=${owner}`)).body.questions).toEqual([]);
  });

  it("is stateless: no session id, and GET (no SSE stream) and DELETE (no session) answer 405", async () => {
    const response = await fetch(`${stack.httpUrl}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TEST_API_KEY}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "curl", version: "1" },
        },
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(response.headers.get("mcp-session-id")).toBeNull();
    const initialized = (await response.json()) as { result: { serverInfo: { name: string } } };
    expect(initialized.result.serverInfo.name).toBe("handraise");
    const get = await fetch(`${stack.httpUrl}/mcp`, { headers: { authorization: `Bearer ${TEST_API_KEY}` } });
    expect(get.status).toBe(405);
    const del = await fetch(`${stack.httpUrl}/mcp`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${TEST_API_KEY}` },
    });
    expect(del.status).toBe(405);
  });
});

describe("MCP with an ask key", () => {
  it("asks as api:<key name>; get_answer names who answered; another ask key's question is NOT_FOUND", async () => {
    const owner = `web:${unique("mcp-keys")}`;
    const agentA = await connect({ "x-handraise-owner": owner }, KEYS.agentA);
    const agentB = await connect({ "x-handraise-owner": owner }, KEYS.agentB);
    const { questionId } = jsonOf(await call(agentA, "ask_user", { questions: [singleQuestion] }));
    expect((await stack.api("GET", `/questions/${questionId}`)).body.question.askedBy).toBe("api:agent-a");

    // To agent B the question does not exist: it can neither read nor cancel it.
    for (const [tool, args] of [
      ["get_answer", { questionId, waitSeconds: 0 }],
      ["cancel_question", { questionId }],
    ] as const) {
      const refused = await call(agentB, tool, args);
      expect(refused.isError, tool).toBe(true);
      expect(jsonOf(refused).error.code, tool).toBe("NOT_FOUND");
    }
    expect(await statusOf(stack, questionId)).toBe("pending");

    // A person (here the reviewer's answer key) answers; the agent's result names who.
    const answered = await stack.api(
      "POST",
      `/questions/${questionId}/answer`,
      { answers: { deploy_target: ["Production"] }, resolvedBy: "alice" },
      { auth: `Bearer ${KEYS.reviewer}` },
    );
    expect(answered.status).toBe(200);
    const result = await call(agentA, "get_answer", { questionId, waitSeconds: 0 });
    expect(jsonOf(result)).toEqual({
      status: "answered",
      answers: { deploy_target: ["Production"] },
      resolvedBy: "api:alice",
      questionId,
    });
    expect(result.structuredContent).toMatchObject({ resolvedBy: "api:alice", questionId });
    await Promise.all([agentA.close(), agentB.close()]);
  });

  it("cancels its own question, recording its key", async () => {
    const agentA = await connect({ "x-handraise-owner": `web:${unique("mcp-keys")}` }, KEYS.agentA);
    const { questionId } = jsonOf(await call(agentA, "ask_user", { questions: [singleQuestion] }));
    expect(jsonOf(await call(agentA, "cancel_question", { questionId }))).toEqual({
      status: "no_answer",
      reason: "cancelled",
      questionId,
    });
    expect((await stack.api("GET", `/questions/${questionId}`)).body.question).toMatchObject({
      status: "cancelled",
      resolvedBy: "mcp",
      resolvedByKey: "agent-a",
    });
    await agentA.close();
  });
});

describe("MCP: the context (who is asking and why)", () => {
  it("comes from X-Handraise-Context, percent-encoded, onto the record; the model's arguments cannot carry it", async () => {
    const context = "Release agent for <alice> & *ops*:\nv1.4 — green.";
    const client = await connect({
      "x-handraise-owner": `web:${unique("mcp-context")}`,
      "x-handraise-context": encodeURIComponent(context),
    });
    const { questionId } = jsonOf(await call(client, "ask_user", { questions: [singleQuestion] }));
    expect((await stack.api("GET", `/questions/${questionId}`)).body.question.context).toBe(context);

    // Not an ask_user argument: the model never writes it.
    const fromModel = await call(client, "ask_user", { questions: [singleQuestion], context: "Trust me" });
    expect(fromModel.isError).toBe(true);
    expect(jsonOf(fromModel).error.code).toBe("INVALID_ARGUMENT");
    await client.close();
  });

  it("a context header that breaks the rules is a tool error naming the header; nothing is stored", async () => {
    const before = (await allItems(stack)).length;
    const owner = { "x-handraise-owner": `web:${unique("mcp-context")}` };
    const tooLong = await connect({ ...owner, "x-handraise-context": "x".repeat(501) });
    const control = await connect({ ...owner, "x-handraise-context": "bell%07" });
    const badEncoding = await connect({ ...owner, "x-handraise-context": "50% done" });
    const results = await Promise.all(
      [tooLong, control, badEncoding].map((client) =>
        call(client, "ask_user", { questions: [singleQuestion] }),
      ),
    );
    expect(results.map((result) => jsonOf(result).error)).toEqual([
      {
        code: "NO_ASKER",
        message: "X-Handraise-Context: context must be at most 500 characters after trimming.",
      },
      {
        code: "NO_ASKER",
        message:
          "X-Handraise-Context: context must not contain control or direction characters (line breaks are allowed).",
      },
      {
        code: "NO_ASKER",
        message: "X-Handraise-Context: not valid percent-encoding (write a % sign as %25).",
      },
    ]);
    expect((await allItems(stack)).length).toBe(before);
    await Promise.all([tooLong.close(), control.close(), badEncoding.close()]);
  });
});
