/**
 * The provider adapters without a network: OpenAI and Anthropic over a fake `fetch`, Bedrock over a fake
 * Converse transport. What each sends for a transcript (the shapes its API documents), how it reads each
 * documented answer, and how it turns failures into a ModelError that names what went wrong and never the key.
 * (test/integration/model-providers.test.ts runs the same adapters against HTTP fakes on the local stack.)
 */
import { describe, expect, it } from "vitest";
import type { ConverseSend } from "#lib/agent/bedrock-provider.ts";
import { ModelError } from "#lib/agent/model-error.ts";
import type { AgentModel } from "#lib/agent/model-step.ts";
import { createModelProviders } from "#lib/agent/providers.ts";
import { ASK_USER_GUIDANCE } from "#lib/agent/system-prompt.ts";
import type { ToolOutcome, Transcript } from "#lib/agent/transcript.ts";
import { ConfigError } from "#lib/config.ts";
import type { SecretName } from "#lib/secrets/secret-catalog.ts";
import type { Secrets } from "#lib/secrets/secrets.ts";

const KEY = "sk-unit-0123456789abcdefghij";
const question = {
  id: "deploy_target",
  header: "Deploy to",
  question: "Where?",
  options: [{ label: "Staging" }, { label: "Production" }],
};
const answered: ToolOutcome = { status: "answered", answers: { deploy_target: ["Production"] } };
const invalid: ToolOutcome = {
  status: "error",
  error: { code: "INVALID_ARGUMENT", message: "bad" },
  text: '{"error":{"code":"INVALID_ARGUMENT"}}',
};

/** A conversation after two tool calls of one turn were answered: one asked, one refused. */
const transcript: Transcript = {
  messages: [
    { role: "user", content: "" },
    {
      role: "assistant",
      content: "Let me ask.",
      toolCalls: [
        { id: "c1", name: "ask_user", arguments: { questions: [question] } },
        { id: "c2", name: "ask_user", arguments: "{not json" },
      ],
    },
    { role: "tool", toolCallId: "c1", text: "Deploy to: Production\n{...}", outcome: answered },
    {
      role: "tool",
      toolCallId: "c2",
      text: invalid.status === "error" ? invalid.text : "",
      outcome: invalid,
    },
  ],
  pendingToolCalls: [],
  modelCalls: 1,
};

function secrets(values: Record<string, string>): Secrets {
  return {
    async get(name: SecretName) {
      const value = values[name];
      if (value === "changeme") throw new ConfigError("OPENAI_API_KEY is a placeholder, not a secret.");
      return value;
    },
    getGroup: async () => ({}),
  };
}

interface Sent {
  url: string;
  headers: Record<string, string>;
  body: any;
}

/** A fetch that records each request and answers with the next reply (status, JSON body, headers). */
function fakeFetch(...replies: { status?: number; body: unknown; headers?: Record<string, string> }[]) {
  const sent: Sent[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    sent.push({
      url: String(input),
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
      body: JSON.parse(String(init?.body)),
    });
    const reply = replies.shift() ?? { status: 500, body: {} };
    return new Response(JSON.stringify(reply.body), {
      status: reply.status ?? 200,
      headers: { "content-type": "application/json", ...reply.headers },
    });
  };
  return { sent, fetch: fetch as typeof globalThis.fetch };
}

function providers(
  options: { fetch?: typeof fetch; converse?: ConverseSend; keys?: Record<string, string> } = {},
) {
  let t = 0;
  const sleeps: number[] = [];
  const providerFor = createModelProviders({
    secrets: secrets(options.keys ?? { "models/openai": KEY, "models/anthropic": KEY }),
    now: () => t,
    sleep: async (ms) => {
      sleeps.push(ms);
      t += ms;
    },
    random: () => 0,
    ...(options.fetch && { fetch: options.fetch }),
    ...(options.converse && { converse: options.converse }),
  });
  const next = (model: AgentModel, conversation: Transcript = transcript) =>
    providerFor(model).next(conversation, { deadlineMs: t + 55_000 });
  return { next, sleeps };
}

const openai = (extra: Record<string, unknown> = {}) =>
  ({
    provider: "openai",
    model: "gpt-test",
    baseUrl: "https://llm.example.com/v1/",
    apiKeySecret: "openai",
    ...extra,
  }) as AgentModel;
const anthropic = (extra: Record<string, unknown> = {}) =>
  ({
    provider: "anthropic",
    model: "claude-test",
    baseUrl: "https://api.anthropic.com",
    apiKeySecret: "anthropic",
    ...extra,
  }) as AgentModel;
const bedrock = (extra: Record<string, unknown> = {}) =>
  ({ provider: "bedrock", modelId: "amazon.nova-pro-v1:0", ...extra }) as AgentModel;

const openAiAnswer = (message: Record<string, unknown>, usage = true) => ({
  body: {
    id: "chatcmpl-1",
    object: "chat.completion",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: "stop" }],
    ...(usage && { usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } }),
  },
});

describe("OpenAI Chat Completions", () => {
  it("sends the system prompt, the conversation with tool_calls and tool messages, and ask_user as a function", async () => {
    const { fetch, sent } = fakeFetch(openAiAnswer({ content: "Done." }));
    const { next } = providers({ fetch });
    await expect(next(openai({ maxTokens: 256 }))).resolves.toEqual({
      reply: "Done.",
      usage: { inputTokens: 11, outputTokens: 7 },
    });
    expect(sent[0]?.url).toBe("https://llm.example.com/v1/chat/completions");
    expect(sent[0]?.headers).toMatchObject({
      authorization: `Bearer ${KEY}`,
      "content-type": "application/json",
    });
    expect(sent[0]?.body).toMatchObject({
      model: "gpt-test",
      max_completion_tokens: 256,
      tools: [{ type: "function", function: { name: "ask_user", parameters: expect.any(Object) } }],
      messages: [
        { role: "system", content: ASK_USER_GUIDANCE },
        { role: "user", content: "" },
        {
          role: "assistant",
          content: "Let me ask.",
          tool_calls: [
            {
              id: "c1",
              type: "function",
              function: { name: "ask_user", arguments: JSON.stringify({ questions: [question] }) },
            },
            // Arguments that were not JSON go back exactly as the model sent them.
            { id: "c2", type: "function", function: { name: "ask_user", arguments: "{not json" } },
          ],
        },
        { role: "tool", tool_call_id: "c1", content: "Deploy to: Production\n{...}" },
        { role: "tool", tool_call_id: "c2", content: '{"error":{"code":"INVALID_ARGUMENT"}}' },
      ],
    });
  });

  it("reads tool calls: arguments as JSON text or (compatible servers) objects, text that is not JSON kept as is", async () => {
    const { fetch } = fakeFetch(
      openAiAnswer(
        {
          content: null,
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "ask_user", arguments: '{"questions":[]}' } },
            { id: "call_2", type: "function", function: { name: "ask_user", arguments: "{oops" } },
            { type: "function", function: { name: "ask_user", arguments: { questions: [] } } },
          ],
        },
        false,
      ),
    );
    const { next } = providers({ fetch });
    await expect(next(openai())).resolves.toEqual({
      toolCalls: [
        { id: "call_1", name: "ask_user", arguments: { questions: [] } },
        { id: "call_2", name: "ask_user", arguments: "{oops" },
        { id: "", name: "ask_user", arguments: { questions: [] } },
      ],
    });
  });

  it("turns a refusal into the reply", async () => {
    const { fetch } = fakeFetch(openAiAnswer({ content: null, refusal: "I can't help with that." }));
    await expect(providers({ fetch }).next(openai())).resolves.toMatchObject({
      reply: "I can't help with that.",
    });
  });

  it("does not retry a 401; the message has the provider's code and text, and not the key", async () => {
    const { fetch, sent } = fakeFetch({
      status: 401,
      body: {
        error: {
          message: `Incorrect API key provided: ${KEY}.`,
          type: "invalid_request_error",
          code: "invalid_api_key",
        },
      },
    });
    const error = (await providers({ fetch })
      .next(openai())
      .catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(ModelError);
    expect(error.message).toBe(
      "openai gpt-test at llm.example.com failed: HTTP 401 invalid_api_key: Incorrect API key provided: [redacted].",
    );
    expect(sent).toHaveLength(1);
  });

  it("retries a 500 the provider marks x-should-retry, not one it marks x-should-retry: false", async () => {
    const error = { error: { message: "boom", type: "server_error", code: null } };
    const retried = fakeFetch(
      { status: 500, body: error, headers: { "x-should-retry": "true" } },
      openAiAnswer({ content: "ok" }),
    );
    await expect(providers({ fetch: retried.fetch }).next(openai())).resolves.toMatchObject({ reply: "ok" });
    expect(retried.sent).toHaveLength(2);
    const final = fakeFetch({ status: 500, body: error, headers: { "x-should-retry": "false" } });
    await expect(providers({ fetch: final.fetch }).next(openai())).rejects.toThrow(
      "openai gpt-test at llm.example.com failed: HTTP 500 server_error: boom",
    );
    expect(final.sent).toHaveLength(1);
  });

  it("refuses a 200 whose body is not the documented shape, saying where", async () => {
    const { fetch } = fakeFetch({ body: { choices: [] } });
    await expect(providers({ fetch }).next(openai())).rejects.toThrow(
      /failed: answered with a body Handraise cannot read \(choices must not be empty\)/,
    );
  });

  it("retries a connection that fails, then gives up naming the cause", async () => {
    const fetch = (async () => {
      throw new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } });
    }) as unknown as typeof globalThis.fetch;
    const { next, sleeps } = providers({ fetch });
    await expect(next(openai())).rejects.toThrow(
      "failed 5 times in a row; the last time: could not reach it (ECONNREFUSED)",
    );
    expect(sleeps).toHaveLength(4);
  });

  it("names the variable or parameter of a key that is missing or malformed, never a value", async () => {
    await expect(providers({ keys: {} }).next(openai())).rejects.toThrow(
      "No API key: the secret models/openai is not configured. Locally, set OPENAI_API_KEY; deployed, store the SSM SecureString <HANDRAISE_SSM_PREFIX>/models/openai.",
    );
    await expect(providers({ keys: { "models/openai": "changeme" } }).next(openai())).rejects.toThrow(
      "The API key models/openai is unusable: OPENAI_API_KEY is a placeholder, not a secret.",
    );
  });
});

describe("Anthropic Messages", () => {
  const message = (
    content: unknown[],
    usage: Record<string, number> = { input_tokens: 30, output_tokens: 9 },
  ) => ({
    body: { id: "msg_1", type: "message", role: "assistant", content, stop_reason: "end_turn", usage },
  });

  it("sends the key and version headers, system at the top, tool_use / tool_result blocks, one user message for both results", async () => {
    const { fetch, sent } = fakeFetch(message([{ type: "text", text: "Done." }]));
    await expect(providers({ fetch }).next(anthropic())).resolves.toEqual({
      reply: "Done.",
      usage: { inputTokens: 30, outputTokens: 9 },
    });
    expect(sent[0]?.url).toBe("https://api.anthropic.com/v1/messages");
    expect(sent[0]?.headers).toMatchObject({ "x-api-key": KEY, "anthropic-version": "2023-06-01" });
    expect(sent[0]?.headers.authorization).toBeUndefined();
    expect(sent[0]?.body).toEqual({
      model: "claude-test",
      max_tokens: 4096,
      system: ASK_USER_GUIDANCE,
      tools: [{ name: "ask_user", description: expect.any(String), input_schema: expect.any(Object) }],
      messages: [
        // An empty prompt: Anthropic refuses empty text blocks.
        { role: "user", content: [{ type: "text", text: "(no prompt was given)" }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Let me ask." },
            { type: "tool_use", id: "c1", name: "ask_user", input: { questions: [question] } },
            { type: "tool_use", id: "c2", name: "ask_user", input: {} },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "c1", content: "Deploy to: Production\n{...}" },
            {
              type: "tool_result",
              tool_use_id: "c2",
              content: '{"error":{"code":"INVALID_ARGUMENT"}}',
              is_error: true,
            },
          ],
        },
      ],
    });
  });

  it("reads tool_use blocks with the text beside them, skips other blocks, and counts cached input", async () => {
    const { fetch } = fakeFetch(
      message(
        [
          { type: "thinking", thinking: "…", signature: "x" },
          { type: "text", text: "Asking." },
          { type: "tool_use", id: "toolu_1", name: "ask_user", input: { questions: [question] } },
        ],
        { input_tokens: 5, output_tokens: 3, cache_creation_input_tokens: 100, cache_read_input_tokens: 50 },
      ),
    );
    await expect(providers({ fetch }).next(anthropic({ maxTokens: 100 }))).resolves.toEqual({
      text: "Asking.",
      toolCalls: [{ id: "toolu_1", name: "ask_user", arguments: { questions: [question] } }],
      usage: { inputTokens: 155, outputTokens: 3 },
    });
  });

  it("retries 529 overloaded and honours retry-after; reads the documented error body", async () => {
    const overloaded = {
      status: 529,
      headers: { "retry-after": "2" },
      body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    };
    const { fetch, sent } = fakeFetch(overloaded, overloaded, overloaded, overloaded, overloaded);
    const { next, sleeps } = providers({ fetch });
    await expect(next(anthropic())).rejects.toThrow(
      "anthropic claude-test at api.anthropic.com failed 5 times in a row; the last time: HTTP 529 overloaded_error: Overloaded",
    );
    expect(sent).toHaveLength(5);
    expect(sleeps).toEqual([2000, 2000, 2000, 2000]);
  });
});

describe("Bedrock Converse", () => {
  function fakeConverse(...outcomes: (Record<string, unknown> | Error)[]) {
    const sent: { region: string | undefined; input: any }[] = [];
    const converse: ConverseSend = async (region, input) => {
      sent.push({ region, input });
      const outcome = outcomes.shift();
      if (!outcome || outcome instanceof Error) throw outcome ?? new Error("no more outcomes");
      return outcome as never;
    };
    return { converse, sent };
  }
  const output = (content: unknown[]) => ({
    output: { message: { role: "assistant", content } },
    stopReason: "end_turn",
    usage: { inputTokens: 40, outputTokens: 12, totalTokens: 52 },
    $metadata: { httpStatusCode: 200 },
  });
  const sdkError = (name: string, status: number | undefined, headers: Record<string, string> = {}) =>
    Object.assign(new Error(`${name} happened`), {
      name,
      ...(status !== undefined && {
        $metadata: { httpStatusCode: status },
        $response: { statusCode: status, headers },
      }),
    });

  it("sends system, toolConfig with the toolSpec, toolUse / toolResult blocks and inferenceConfig, in the run's region", async () => {
    const { converse, sent } = fakeConverse(output([{ text: "Done." }]));
    await expect(
      providers({ converse }).next(bedrock({ region: "eu-west-1", maxTokens: 300 })),
    ).resolves.toEqual({
      reply: "Done.",
      usage: { inputTokens: 40, outputTokens: 12 },
    });
    expect(sent[0]?.region).toBe("eu-west-1");
    expect(sent[0]?.input).toEqual({
      modelId: "amazon.nova-pro-v1:0",
      system: [{ text: ASK_USER_GUIDANCE }],
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: "ask_user",
              description: expect.any(String),
              inputSchema: { json: expect.any(Object) },
            },
          },
        ],
      },
      inferenceConfig: { maxTokens: 300 },
      messages: [
        { role: "user", content: [{ text: "(no prompt was given)" }] },
        {
          role: "assistant",
          content: [
            { text: "Let me ask." },
            { toolUse: { toolUseId: "c1", name: "ask_user", input: { questions: [question] } } },
            { toolUse: { toolUseId: "c2", name: "ask_user", input: {} } },
          ],
        },
        {
          role: "user",
          content: [
            { toolResult: { toolUseId: "c1", content: [{ text: "Deploy to: Production\n{...}" }] } },
            { toolResult: { toolUseId: "c2", content: [{ text: '{"error":{"code":"INVALID_ARGUMENT"}}' }] } },
          ],
        },
      ],
    });
  });

  it("reads toolUse blocks and passes over others (reasoning)", async () => {
    const { converse } = fakeConverse(
      output([
        { reasoningContent: { reasoningText: { text: "hm" } } },
        { toolUse: { toolUseId: "tooluse_1", name: "ask_user", input: { questions: [question] } } },
      ]),
    );
    await expect(providers({ converse }).next(bedrock())).resolves.toEqual({
      toolCalls: [{ id: "tooluse_1", name: "ask_user", arguments: { questions: [question] } }],
      usage: { inputTokens: 40, outputTokens: 12 },
    });
  });

  it("retries throttling after its retry-after, not a validation error; names the SDK's error", async () => {
    const throttled = fakeConverse(
      sdkError("ThrottlingException", 429, { "Retry-After": "3" }),
      output([{ text: "ok" }]),
    );
    const run = providers({ converse: throttled.converse });
    await expect(run.next(bedrock())).resolves.toMatchObject({ reply: "ok" });
    expect(run.sleeps).toEqual([3000]);

    const invalid = fakeConverse(sdkError("ValidationException", 400));
    await expect(
      providers({ converse: invalid.converse }).next(bedrock({ region: "us-west-2" })),
    ).rejects.toThrow(
      "bedrock amazon.nova-pro-v1:0 in us-west-2 failed: HTTP 400 ValidationException: ValidationException happened",
    );
    expect(invalid.sent).toHaveLength(1);
  });

  it("retries a lost connection, not missing credentials", async () => {
    const lost = fakeConverse(
      Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }),
      output([{ text: "ok" }]),
    );
    await expect(providers({ converse: lost.converse }).next(bedrock())).resolves.toMatchObject({
      reply: "ok",
    });
    const noCredentials = fakeConverse(sdkError("CredentialsProviderError", undefined));
    await expect(providers({ converse: noCredentials.converse }).next(bedrock())).rejects.toThrow(
      "failed: no AWS credentials (CredentialsProviderError: CredentialsProviderError happened)",
    );
  });
});
