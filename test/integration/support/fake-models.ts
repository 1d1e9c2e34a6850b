/**
 * Local fakes of the three model APIs, on the recording fake of test/integration/support/fake-platform.ts:
 * OpenAI Chat Completions (`POST /v1/chat/completions`), the Anthropic Messages API (`POST /v1/messages`)
 * and Bedrock Converse's REST protocol (`POST /model/{modelId}/converse`, reached through
 * `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`). Each answers in the shapes its provider documents — responses,
 * usage and error bodies (Bedrock's error type in `x-amzn-errortype`) — and plays a "brain" that decides
 * the model's next turn from the request, provider-neutrally.
 */
import { type FakePlatform, type FakeReply, type RecordedCall, startFakePlatform } from "./fake-platform.ts";
import { singleQuestion } from "./sample-questions.ts";

export type ProviderName = "openai" | "anthropic" | "bedrock";

export interface FakeToolCall {
  id: string;
  name: string;
  input: unknown;
}

/** The model's next turn: tool calls (with optional text), or a reply. */
export type FakeTurn = { toolCalls: FakeToolCall[]; text?: string } | { reply: string };

/** A tool result as the request carried it, read back provider-neutrally. */
export interface SeenToolResult {
  id: string;
  text: string;
  isError?: boolean;
}

/** Decides the next turn from the request: `results` are the tool results of its last message. */
export type Brain = (request: { body: any; results: SeenToolResult[]; index: number }) => FakeTurn;

/** Asks `singleQuestion` (call id given), then replies with the answer it got back. */
export const askThenReply =
  (callId: string): Brain =>
  ({ results }) => {
    if (results.length === 0) {
      return {
        text: "I need to know where to deploy.",
        toolCalls: [{ id: callId, name: "ask_user", input: { questions: [singleQuestion] } }],
      };
    }
    return { reply: replyFor(results[0]?.text ?? "") };
  };

/** The reply the fake model gives for a tool result: it reads the JSON on the result's last line. */
export function replyFor(resultText: string): string {
  const result = JSON.parse(resultText.split("\n").at(-1) ?? "{}");
  if (result.status === "answered") return `Deploying to ${result.answers.deploy_target.join(", ")}.`;
  if (result.error) return `Tool error ${result.error.code}.`;
  return `No answer (${result.status}${result.reason ? `/${result.reason}` : ""}); going with Staging.`;
}

export interface FakeModel extends FakePlatform {
  provider: ProviderName;
  /** The requests the model endpoint received, oldest first. */
  requests(): RecordedCall[];
  setBrain(brain: Brain): void;
  /** The next `n` requests get `reply` (an error) instead of the brain's turn. */
  failNext(n: number, reply: FakeReply | ((call: RecordedCall) => FakeReply)): void;
  /** The next request waits this long before the brain answers (to play a provider that hangs). */
  delayNext(ms: number): void;
}

const PATHS: Record<ProviderName, RegExp> = {
  openai: /\/chat\/completions$/,
  anthropic: /\/v1\/messages$/,
  bedrock: /^\/model\/[^/]+\/converse$/,
};

export async function startFakeModel(provider: ProviderName, brain: Brain): Promise<FakeModel> {
  let current = brain;
  const failures: (FakeReply | ((call: RecordedCall) => FakeReply))[] = [];
  let delayMs = 0;
  let served = 0;
  const fake = await startFakePlatform(
    async (call) => {
      if (call.verb !== "POST" || !PATHS[provider].test(call.path)) {
        return { status: 404, body: { message: `no route ${call.verb} ${call.path}` } };
      }
      const failure = failures.shift();
      if (failure) return typeof failure === "function" ? failure(call) : failure;
      if (delayMs > 0) {
        const wait = delayMs;
        delayMs = 0;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
      const index = served++;
      const turn = current({ body: call.body, results: toolResultsOf(provider, call.body), index });
      return { body: responseBody(provider, turn, call.body, index) };
    },
    { http2: provider === "bedrock" },
  );
  return {
    ...fake,
    provider,
    requests: () => fake.calls.filter((call) => PATHS[provider].test(call.path)),
    setBrain: (next) => {
      current = next;
    },
    failNext: (n, reply) => {
      for (let i = 0; i < n; i++) failures.push(reply);
    },
    delayNext: (ms) => {
      delayMs = ms;
    },
  };
}

/** The tool results in the last message of a request. */
export function toolResultsOf(provider: ProviderName, body: any): SeenToolResult[] {
  const messages: any[] = body?.messages ?? [];
  if (provider === "openai") {
    // Every tool message after the last assistant message.
    const results: SeenToolResult[] = [];
    for (let i = messages.length - 1; i >= 0 && messages[i].role === "tool"; i--) {
      results.unshift({ id: messages[i].tool_call_id, text: messages[i].content });
    }
    return results;
  }
  const last = messages.at(-1);
  if (last?.role !== "user" || !Array.isArray(last.content)) return [];
  if (provider === "anthropic") {
    return last.content
      .filter((block: any) => block.type === "tool_result")
      .map((block: any) => ({
        id: block.tool_use_id,
        text: block.content,
        ...(block.is_error !== undefined && { isError: block.is_error }),
      }));
  }
  return last.content
    .filter((block: any) => block.toolResult)
    .map((block: any) => ({ id: block.toolResult.toolUseId, text: block.toolResult.content[0].text }));
}

/** Token counts the fakes report for a request: they grow with the conversation, so totals can be checked. */
export const usageOf = (request: any) => ({
  input: 100 + (request?.messages?.length ?? 0),
  output: 20 + (request?.messages?.length ?? 0),
});

function responseBody(provider: ProviderName, turn: FakeTurn, request: any, index: number): unknown {
  const usage = usageOf(request);
  const calls = "toolCalls" in turn ? turn.toolCalls : [];
  const text = "reply" in turn ? turn.reply : turn.text;
  if (provider === "openai") {
    return {
      id: `chatcmpl-${index}`,
      object: "chat.completion",
      created: 1_700_000_000 + index,
      model: request.model,
      system_fingerprint: "fp_fake",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: text ?? null,
            refusal: null,
            ...(calls.length > 0 && {
              tool_calls: calls.map((call) => ({
                id: call.id,
                type: "function",
                function: {
                  name: call.name,
                  arguments: typeof call.input === "string" ? call.input : JSON.stringify(call.input),
                },
              })),
            }),
          },
          logprobs: null,
          finish_reason: calls.length > 0 ? "tool_calls" : "stop",
        },
      ],
      usage: {
        prompt_tokens: usage.input,
        completion_tokens: usage.output,
        total_tokens: usage.input + usage.output,
      },
    };
  }
  if (provider === "anthropic") {
    return {
      id: `msg_fake${index}`,
      type: "message",
      role: "assistant",
      model: request.model,
      content: [
        ...(text ? [{ type: "text", text }] : []),
        ...calls.map((call) => ({ type: "tool_use", id: call.id, name: call.name, input: call.input })),
      ],
      stop_reason: calls.length > 0 ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage: { input_tokens: usage.input, output_tokens: usage.output },
    };
  }
  return {
    output: {
      message: {
        role: "assistant",
        content: [
          ...(text ? [{ text }] : []),
          ...calls.map((call) => ({ toolUse: { toolUseId: call.id, name: call.name, input: call.input } })),
        ],
      },
    },
    stopReason: calls.length > 0 ? "tool_use" : "end_turn",
    usage: { inputTokens: usage.input, outputTokens: usage.output, totalTokens: usage.input + usage.output },
    metrics: { latencyMs: 5 },
  };
}

/** A documented rate-limit answer (429), with `retry-after` when given. */
export function rateLimited(provider: ProviderName, retryAfterSeconds?: number): FakeReply {
  const headers: Record<string, string> =
    retryAfterSeconds === undefined ? {} : { "retry-after": String(retryAfterSeconds) };
  if (provider === "openai") {
    return {
      status: 429,
      headers,
      body: {
        error: {
          message: "Rate limit reached for requests. Please try again in 1s.",
          type: "requests",
          param: null,
          code: "rate_limit_exceeded",
        },
      },
    };
  }
  if (provider === "anthropic") {
    return {
      status: 429,
      headers,
      body: {
        type: "error",
        error: {
          type: "rate_limit_error",
          message: "Number of request tokens has exceeded your rate limit.",
        },
        request_id: "req_fake",
      },
    };
  }
  return {
    status: 429,
    headers: {
      ...headers,
      "x-amzn-errortype": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
    },
    body: { message: "Too many requests, please wait before trying again." },
  };
}

/** A documented server error (500) whose message carries `echo` (a careless server echoing a header). */
export function serverError(provider: ProviderName, echo: string): FakeReply {
  const message = `The server had an error while processing your request (${echo}).`;
  if (provider === "openai") {
    return { status: 500, body: { error: { message, type: "server_error", param: null, code: null } } };
  }
  if (provider === "anthropic") {
    return {
      status: 500,
      body: { type: "error", error: { type: "api_error", message }, request_id: "req_fake" },
    };
  }
  return {
    status: 500,
    headers: {
      "x-amzn-errortype": "InternalServerException:http://internal.amazon.com/coral/com.amazon.bedrock/",
    },
    body: { message },
  };
}
