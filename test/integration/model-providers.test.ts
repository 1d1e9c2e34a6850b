/**
 * Real model providers on the local stack: the agent state machine, the real handlers, and a local fake of
 * each provider's HTTP API (test/integration/support/fake-models.ts) that records every request. For each
 * provider: the model asks, the question is answered over the API, the model gets the answer under its call
 * id and replies; a 429 with `retry-after` is waited out; five 500s end the run with Handraise.ModelError,
 * and no key shows in its cause, its history or the logs.
 */
import { GetExecutionHistoryCommand, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ASK_USER_GUIDANCE, systemPrompt } from "#lib/agent/system-prompt.ts";
import { askUserToolDefinitions } from "#lib/questions/tool-definitions.ts";
import {
  askThenReply,
  type FakeModel,
  type ProviderName,
  rateLimited,
  replyFor,
  serverError,
  startFakeModel,
  usageOf,
} from "./support/fake-models.ts";
import type { RecordedCall } from "./support/fake-platform.ts";
import { singleQuestion, unique } from "./support/sample-questions.ts";
import { startTestStack, type TestStack, waitFor, waitForExecutionEnd } from "./support/test-stack.ts";

const PROVIDERS: ProviderName[] = ["openai", "anthropic", "bedrock"];
const KEYS = {
  openai: "sk-test-openai-3f9c0a7d1e5b4c2a9d8e",
  anthropic: "sk-ant-test-8b1d6e2f4a9c7e3b5a1c",
  team: "sk-team-5e7a9c1b3d2f4e6a8c0b",
};
/** Each provider's own style of tool call id. */
const CALL_IDS: Record<ProviderName, string> = {
  openai: "call_Q7x2kLm9PzR4",
  anthropic: "toolu_01A09q90qw90lq917835lq9",
  bedrock: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q",
};
const PROMPT = "Ship release 1.4.";
const SYSTEM = "You are the release assistant of team Atlas.";
const BEDROCK_MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0";

let stack: TestStack;
const fakes = {} as Record<ProviderName, FakeModel>;
/** Everything the handlers logged or printed while this file ran. */
const logs: string[] = [];
const restore: (() => void)[] = [];

function capture(target: any, method: string): void {
  const original = target[method];
  target[method] = (...args: unknown[]) => {
    logs.push(args.map((arg) => (typeof arg === "string" ? arg : String(arg))).join(" "));
    // Kept, not printed: the handlers' lines (questions, retries) would only clutter the test output.
    return method === "write" ? true : undefined;
  };
  restore.push(() => {
    target[method] = original;
  });
}

beforeAll(async () => {
  for (const provider of PROVIDERS)
    fakes[provider] = await startFakeModel(provider, askThenReply(CALL_IDS[provider]));
  for (const method of ["log", "info", "warn", "error"]) capture(console, method);
  capture(process.stdout, "write");
  capture(process.stderr, "write");
  stack = await startTestStack({
    OPENAI_API_KEY: KEYS.openai,
    ANTHROPIC_API_KEY: KEYS.anthropic,
    HANDRAISE_SECRET_TEAM_OPENAI: KEYS.team,
    AWS_ENDPOINT_URL_BEDROCK_RUNTIME: fakes.bedrock.url,
  });
});
afterAll(async () => {
  await stack?.stop();
  for (const fake of Object.values(fakes)) await fake.stop();
  for (const undo of restore.reverse()) undo();
});
beforeEach(() => {
  for (const provider of PROVIDERS) fakes[provider].setBrain(askThenReply(CALL_IDS[provider]));
});

function modelOf(provider: ProviderName, extra: Record<string, unknown> = {}) {
  if (provider === "openai") {
    return { provider, model: "gpt-test", baseUrl: `${fakes.openai.url}/v1`, system: SYSTEM, ...extra };
  }
  if (provider === "anthropic") {
    return { provider, model: "claude-test", baseUrl: fakes.anthropic.url, system: SYSTEM, ...extra };
  }
  return { provider, modelId: BEDROCK_MODEL, region: "us-east-1", system: SYSTEM, ...extra };
}

async function start(sessionKey: string, model: unknown): Promise<string> {
  const { executionArn } = await stack.sfn.send(
    new StartExecutionCommand({
      stateMachineArn: stack.stateMachineArns.agent,
      input: JSON.stringify({ sessionKey, owner: "web:alice", deliverTo: [], prompt: PROMPT, model }),
    }),
  );
  if (!executionArn) throw new Error("no execution ARN");
  return executionArn;
}

async function answerPendingQuestion(sessionKey: string, answer: string): Promise<void> {
  const question = await waitFor(
    async () => (await stack.api("GET", `/questions?sessionKey=${sessionKey}`)).body.questions[0],
    { what: `a pending question in ${sessionKey}` },
  );
  expect(question.questions).toEqual([{ ...singleQuestion, allowOther: true }]);
  const answered = await stack.api("POST", `/questions/${question.id}/answer`, {
    answers: { deploy_target: [answer] },
  });
  expect(answered.status).toBe(200);
}

async function historyOf(executionArn: string) {
  return (
    (await stack.sfn.send(new GetExecutionHistoryCommand({ executionArn, maxResults: 1000 }))).events ?? []
  );
}

/** The handlers' "model call retried" log lines for a provider, parsed (Powertools Logger, one JSON per line). */
function retriesLogged(provider: ProviderName): Record<string, unknown>[] {
  return logs
    .flatMap((text) => text.split("\n"))
    .filter((line) => line.includes('"model call retried"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.provider === provider);
}

/** The requests a provider's fake received from `before` on. */
const requestsSince = (provider: ProviderName, before: number): RecordedCall[] =>
  fakes[provider].requests().slice(before);

/** The documented authentication of each provider: a bearer key, an x-api-key, a SigV4 signature. */
function expectAuthentication(provider: ProviderName, request: RecordedCall, key?: string): void {
  expect(request.headers["content-type"]).toBe("application/json");
  if (provider === "openai") {
    expect(request.headers.authorization).toBe(`Bearer ${key ?? KEYS.openai}`);
  } else if (provider === "anthropic") {
    expect(request.headers["x-api-key"]).toBe(KEYS.anthropic);
    expect(request.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request.headers.authorization).toBeUndefined();
  } else {
    expect(request.path).toBe(`/model/${encodeURIComponent(BEDROCK_MODEL)}/converse`);
    expect(request.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=\S+, Signature=[0-9a-f]{64}$/,
    );
    expect(request.headers["x-amz-date"]).toMatch(/^\d{8}T\d{6}Z$/);
  }
}

/** The first request: the system prompt, the prompt, and ask_user in the provider's own tool format. */
function expectFirstRequest(provider: ProviderName, body: any): void {
  const system = systemPrompt(SYSTEM);
  expect(system.startsWith(ASK_USER_GUIDANCE)).toBe(true);
  expect(system.endsWith(SYSTEM)).toBe(true);
  if (provider === "openai") {
    expect(body).toEqual({
      model: "gpt-test",
      messages: [
        { role: "system", content: system },
        { role: "user", content: PROMPT },
      ],
      tools: [askUserToolDefinitions.openai],
    });
  } else if (provider === "anthropic") {
    expect(body).toEqual({
      model: "claude-test",
      max_tokens: 4096,
      system,
      messages: [{ role: "user", content: [{ type: "text", text: PROMPT }] }],
      tools: [askUserToolDefinitions.anthropic],
    });
  } else {
    // The model id travels in the path, not the body.
    expect(body).toEqual({
      system: [{ text: system }],
      messages: [{ role: "user", content: [{ text: PROMPT }] }],
      toolConfig: { tools: [askUserToolDefinitions.bedrock] },
    });
  }
}

/**
 * The second request: the model's own call replayed, then the result carrying the answer under its id, and
 * who gave it (answered over the API without a resolvedBy: `api`).
 */
function expectAnswerReturned(provider: ProviderName, body: any, answer: string): void {
  const id = CALL_IDS[provider];
  const input = { questions: [singleQuestion] };
  const result = expect.stringContaining(
    `{"status":"answered","answers":{"deploy_target":["${answer}"]},"resolvedBy":"api"}`,
  );
  if (provider === "openai") {
    expect(body.messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: "I need to know where to deploy.",
        tool_calls: [
          { id, type: "function", function: { name: "ask_user", arguments: JSON.stringify(input) } },
        ],
      },
      { role: "tool", tool_call_id: id, content: result },
    ]);
    expect(body.messages[3].content).toContain(`Deploy to: ${answer}`);
  } else if (provider === "anthropic") {
    expect(body.messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: [
          { type: "text", text: "I need to know where to deploy." },
          { type: "tool_use", id, name: "ask_user", input },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: result }] },
    ]);
  } else {
    expect(body.messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: [
          { text: "I need to know where to deploy." },
          { toolUse: { toolUseId: id, name: "ask_user", input } },
        ],
      },
      { role: "user", content: [{ toolResult: { toolUseId: id, content: [{ text: result }] } }] },
    ]);
  }
}

/** The usage the run's output must total: what the fake reported for each request that got a turn. */
function expectedUsage(requests: RecordedCall[]) {
  const served = requests.filter((request) => request.body.messages);
  return {
    inputTokens: served.reduce((sum, request) => sum + usageOf(request.body).input, 0),
    outputTokens: served.reduce((sum, request) => sum + usageOf(request.body).output, 0),
    modelCalls: served.length,
  };
}

describe.each(PROVIDERS)("%s on the local stack", (provider) => {
  it("asks one question, gets the answer back under its call id, and replies with it", async () => {
    const before = fakes[provider].requests().length;
    const sessionKey = unique(`${provider}-round-trip`);
    const executionArn = await start(sessionKey, modelOf(provider));
    await answerPendingQuestion(sessionKey, "Production");
    const execution = await waitForExecutionEnd(stack, executionArn);
    expect(execution.status).toBe("SUCCEEDED");

    const requests = requestsSince(provider, before);
    expect(requests).toHaveLength(2);
    const [first, second] = requests as [RecordedCall, RecordedCall];
    expectAuthentication(provider, first);
    expectAuthentication(provider, second);
    expectFirstRequest(provider, first.body);
    expectAnswerReturned(provider, second.body, "Production");
    expect(JSON.parse(execution.output ?? "{}")).toEqual({
      reply: "Deploying to Production.",
      usage: expectedUsage(requests),
    });
  });

  it("waits out a 429 with retry-after: 1 and the run still succeeds", async () => {
    const before = fakes[provider].requests().length;
    fakes[provider].failNext(1, rateLimited(provider, 1));
    const sessionKey = unique(`${provider}-429`);
    const executionArn = await start(sessionKey, modelOf(provider));
    await answerPendingQuestion(sessionKey, "Staging (Recommended)");
    const execution = await waitForExecutionEnd(stack, executionArn);
    expect(execution.status).toBe("SUCCEEDED");
    expect(JSON.parse(execution.output ?? "{}").reply).toBe("Deploying to Staging (Recommended).");

    const requests = requestsSince(provider, before);
    expect(requests).toHaveLength(3);
    const [limited, retried] = requests as [RecordedCall, RecordedCall];
    expect(retried.at - limited.at).toBeGreaterThanOrEqual(1000);
    expect(retried.body).toEqual(limited.body);
    expect(retriesLogged(provider)).toContainEqual(
      expect.objectContaining({ level: "WARN", attempt: 1, delayMs: 1000, status: 429 }),
    );
  });

  it("ends the run with Handraise.ModelError after five 500s, with no key in its cause, history or logs", async () => {
    const before = fakes[provider].requests().length;
    // A careless server that echoes the credentials it got back in its error message.
    fakes[provider].failNext(5, (call) =>
      serverError(provider, `got ${call.headers.authorization ?? call.headers["x-api-key"]}`),
    );
    const sessionKey = unique(`${provider}-500`);
    const executionArn = await start(sessionKey, modelOf(provider));
    const execution = await waitForExecutionEnd(stack, executionArn, 30_000);

    expect(execution.status).toBe("FAILED");
    expect(execution.error).toBe("Handraise.ModelError");
    const label = provider === "bedrock" ? `bedrock ${BEDROCK_MODEL} in us-east-1` : `${provider} `;
    expect(execution.cause).toContain(label);
    expect(execution.cause).toMatch(
      /failed 5 times in a row; the last time: HTTP 500 \S+: The server had an error/,
    );
    // Exactly five attempts, all within one model step: the state machine retried nothing.
    expect(requestsSince(provider, before)).toHaveLength(5);
    const history = await historyOf(executionArn);
    const entered = history.flatMap((event) => event.stateEnteredEventDetails?.name ?? []);
    expect(entered).toEqual(["ModelStep", "ModelFailed", "RunFailed"]);

    if (provider !== "bedrock") {
      expect(execution.cause).toContain("[redacted]");
      const seen = [execution.cause ?? "", JSON.stringify(history), logs.join("\n")];
      for (const key of Object.values(KEYS)) for (const text of seen) expect(text).not.toContain(key);
      // Not even a recognisable piece of it.
      for (const text of seen) expect(text).not.toContain(KEYS[provider].slice(-12));
    }
    expect(retriesLogged(provider).map((line) => line.attempt)).toEqual(expect.arrayContaining([1, 2, 3, 4]));
  }, 40_000);
});

describe("tool calls the run answers at once", () => {
  it("an unknown tool gets a tool error under its id, and the loop guard ends a model that never stops", async () => {
    const before = fakes.openai.requests().length;
    fakes.openai.setBrain(({ index }) => ({
      toolCalls: [{ id: `call_search${index}`, name: "search_web", input: { query: "release notes" } }],
    }));
    const executionArn = await start(unique("loop"), modelOf("openai", { maxSteps: 3 }));
    const execution = await waitForExecutionEnd(stack, executionArn);
    expect(execution.status).toBe("FAILED");
    expect(execution.error).toBe("Handraise.StepLimitExceeded");
    expect(execution.cause).toMatch(/^The model made 3 calls without replying \(model\.maxSteps is 3\)/);

    const requests = requestsSince("openai", before);
    expect(requests).toHaveLength(3);
    const [call, result] = requests[1]?.body.messages.slice(-2) ?? [];
    expect(call.tool_calls[0]).toMatchObject({
      id: expect.stringMatching(/^call_search\d+$/),
      function: { name: "search_web" },
    });
    expect(result).toEqual({
      role: "tool",
      tool_call_id: call.tool_calls[0].id,
      content: JSON.stringify({
        error: { code: "UNKNOWN_TOOL", message: 'There is no tool named "search_web".' },
      }),
    });
  });

  it("invalid ask_user arguments go back as a tool error the model corrects; the run never suspends on them", async () => {
    const before = fakes.anthropic.requests().length;
    const invalid = {
      questions: [{ ...singleQuestion, options: [{ label: "Other" }, { label: "Production" }] }],
    };
    fakes.anthropic.setBrain(({ results, index }) => {
      if (index === 0 || results.length === 0) {
        return { toolCalls: [{ id: "toolu_bad", name: "ask_user", input: invalid }] };
      }
      if (results[0]?.isError)
        return {
          toolCalls: [{ id: "toolu_good", name: "ask_user", input: { questions: [singleQuestion] } }],
        };
      return { reply: replyFor(results[0]?.text ?? "") };
    });
    const sessionKey = unique("invalid");
    const executionArn = await start(sessionKey, modelOf("anthropic"));
    await answerPendingQuestion(sessionKey, "Production");
    const execution = await waitForExecutionEnd(stack, executionArn);
    expect(JSON.parse(execution.output ?? "{}").reply).toBe("Deploying to Production.");

    const requests = requestsSince("anthropic", before);
    expect(requests).toHaveLength(3);
    expect(requests[1]?.body.messages.at(-1)).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_bad",
          is_error: true,
          content: expect.stringContaining('"code":"INVALID_ARGUMENT"'),
        },
      ],
    });
    const entered = (await historyOf(executionArn)).flatMap(
      (event) => event.stateEnteredEventDetails?.name ?? [],
    );
    expect(entered.filter((name) => name === "AskUser")).toHaveLength(1);
  });
});

describe("API keys and faults", () => {
  it("a run that names another secret sends that key (HANDRAISE_SECRET_<NAME> locally)", async () => {
    const before = fakes.openai.requests().length;
    const sessionKey = unique("team-key");
    const executionArn = await start(sessionKey, modelOf("openai", { apiKeySecret: "team-openai" }));
    await answerPendingQuestion(sessionKey, "Production");
    expect((await waitForExecutionEnd(stack, executionArn)).status).toBe("SUCCEEDED");
    for (const request of requestsSince("openai", before)) expectAuthentication("openai", request, KEYS.team);
  });

  it("a secret that is not configured ends the run with a ModelError saying where to put the key", async () => {
    const before = fakes.openai.requests().length;
    const executionArn = await start(unique("no-key"), modelOf("openai", { apiKeySecret: "nobody" }));
    const execution = await waitForExecutionEnd(stack, executionArn);
    expect(execution.error).toBe("Handraise.ModelError");
    expect(execution.cause).toBe(
      "No API key: the secret models/nobody is not configured. Locally, set HANDRAISE_SECRET_NOBODY; deployed, store the SSM SecureString <HANDRAISE_SSM_PREFIX>/models/nobody.",
    );
    expect(requestsSince("openai", before)).toHaveLength(0);
  });

  it("a request that times out is tried again within the step's time", async () => {
    const before = fakes.openai.requests().length;
    fakes.openai.delayNext(2_500);
    const sessionKey = unique("timeout");
    const executionArn = await start(sessionKey, modelOf("openai", { requestTimeoutSeconds: 1 }));
    await answerPendingQuestion(sessionKey, "Production");
    expect((await waitForExecutionEnd(stack, executionArn)).status).toBe("SUCCEEDED");
    const requests = requestsSince("openai", before);
    expect(requests).toHaveLength(3);
    expect(requests[1]?.body).toEqual(requests[0]?.body);
    expect(retriesLogged("openai")).toContainEqual(
      expect.objectContaining({ attempt: 1, reason: "no answer within 1 s (timed out)" }),
    );
  });
});
