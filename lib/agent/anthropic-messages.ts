/**
 * The Anthropic Messages API (`POST {baseUrl}/v1/messages`) as data: the request for a transcript and the
 * turn in a response. Pure; anthropic-provider.ts sends it. ask_user goes in `tools`, the model's calls come
 * back as `tool_use` content blocks, and their results go back as `tool_result` blocks (with the call's
 * `tool_use_id`) in the next user message; roles alternate, so consecutive results share one message.
 */
import { askUserToolDefinitions } from "../questions/tool-definitions.ts";
import * as z from "../zod.ts";
import type { ModelTurn } from "./model-provider.ts";
import { type AnthropicModel, DEFAULT_ANTHROPIC_MAX_TOKENS } from "./model-settings.ts";
import { argumentsObject, EMPTY_PROMPT, unreadableFault } from "./provider-http.ts";
import { systemPrompt } from "./system-prompt.ts";
import type { ToolCall, Transcript } from "./transcript.ts";

/** The version of the API whose shapes this file follows; sent as the `anthropic-version` header. */
export const ANTHROPIC_VERSION = "2023-06-01";

type Block = Record<string, unknown>;
interface Message {
  role: "user" | "assistant";
  content: Block[];
}

export function anthropicRequest(model: AnthropicModel, transcript: Transcript): Record<string, unknown> {
  const messages: Message[] = [];
  const add = (role: Message["role"], blocks: Block[]) => {
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const message of transcript.messages) {
    if (message.role === "user") add("user", [{ type: "text", text: message.content || EMPTY_PROMPT }]);
    else if (message.role === "tool") {
      add("user", [
        {
          type: "tool_result",
          tool_use_id: message.toolCallId,
          content: message.text,
          ...(message.outcome.status === "error" && { is_error: true }),
        },
      ]);
    } else {
      add("assistant", [
        ...(message.content ? [{ type: "text", text: message.content }] : []),
        ...(message.toolCalls ?? []).map((call) => ({
          type: "tool_use",
          id: call.id,
          name: call.name,
          input: argumentsObject(call.arguments),
        })),
      ]);
    }
  }
  return {
    model: model.model,
    max_tokens: model.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
    system: systemPrompt(model.system),
    messages,
    tools: [askUserToolDefinitions.anthropic],
  };
}

const nullish = <T extends z.core.SomeType>(schema: T) => z.optional(z.nullable(schema));

const responseSchema = z.object({
  // Other block types (thinking, …) are passed over.
  content: z.array(
    z.object({
      type: z.string(),
      text: z.optional(z.string()),
      id: z.optional(z.string()),
      name: z.optional(z.string()),
      input: z.optional(z.unknown()),
    }),
  ),
  usage: nullish(
    z.object({
      input_tokens: z.number(),
      output_tokens: z.number(),
      cache_creation_input_tokens: nullish(z.number()),
      cache_read_input_tokens: nullish(z.number()),
    }),
  ),
});

export function anthropicTurn(body: unknown): ModelTurn {
  const parsed = responseSchema.safeParse(body);
  if (!parsed.success) throw unreadableFault(parsed.error.issues);
  const { content, usage } = parsed.data;
  const counted = usage
    ? {
        usage: {
          // Cached input is input too (billed at its own rate).
          inputTokens:
            usage.input_tokens +
            (usage.cache_creation_input_tokens ?? 0) +
            (usage.cache_read_input_tokens ?? 0),
          outputTokens: usage.output_tokens,
        },
      }
    : {};
  const text = content
    .flatMap((block) => (block.type === "text" && block.text ? [block.text] : []))
    .join("\n");
  const toolCalls: ToolCall[] = content.flatMap((block) =>
    block.type === "tool_use"
      ? [{ id: block.id ?? "", name: block.name ?? "", arguments: block.input ?? {} }]
      : [],
  );
  if (toolCalls.length > 0) return { toolCalls, ...(text !== "" && { text }), ...counted };
  return { reply: text, ...counted };
}

const errorSchema = z.object({
  error: z.object({ type: nullish(z.string()), message: nullish(z.string()) }),
});

/** `{"type":"error","error":{"type":"rate_limit_error","message":"…"}}`. */
export function anthropicErrorDetail(body: unknown): { code?: string; message?: string } {
  const parsed = errorSchema.safeParse(body);
  if (!parsed.success) return {};
  const { type, message } = parsed.data.error;
  return { ...(type ? { code: type } : {}), ...(message ? { message } : {}) };
}
