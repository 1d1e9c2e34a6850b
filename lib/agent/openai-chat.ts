/**
 * The OpenAI Chat Completions API (`POST {baseUrl}/chat/completions`) as data: the request for a transcript
 * and the turn in a response. Pure; openai-provider.ts sends it. Function tools: ask_user goes in `tools`,
 * the model's calls come back in `message.tool_calls`, and each result goes back as a `tool` message with
 * the call's `tool_call_id`.
 */
import { askUserToolDefinitions } from "../questions/tool-definitions.ts";
import * as z from "../zod.ts";
import type { ModelTurn } from "./model-provider.ts";
import { ProviderFault } from "./model-retry.ts";
import type { OpenAiModel } from "./model-settings.ts";
import { argumentsText, unreadableFault } from "./provider-http.ts";
import { systemPrompt } from "./system-prompt.ts";
import type { ToolCall, Transcript } from "./transcript.ts";

export function openAiRequest(model: OpenAiModel, transcript: Transcript): Record<string, unknown> {
  const messages: Record<string, unknown>[] = [{ role: "system", content: systemPrompt(model.system) }];
  for (const message of transcript.messages) {
    if (message.role === "user") messages.push({ role: "user", content: message.content });
    else if (message.role === "tool") {
      messages.push({ role: "tool", tool_call_id: message.toolCallId, content: message.text });
    } else {
      const calls = message.toolCalls ?? [];
      messages.push({
        role: "assistant",
        content: message.content ?? null,
        ...(calls.length > 0 && {
          tool_calls: calls.map((call) => ({
            id: call.id,
            type: "function",
            function: { name: call.name, arguments: argumentsText(call.arguments) },
          })),
        }),
      });
    }
  }
  return {
    model: model.model,
    messages,
    tools: [askUserToolDefinitions.openai],
    ...(model.maxTokens !== undefined && { max_completion_tokens: model.maxTokens }),
  };
}

const nullish = <T extends z.core.SomeType>(schema: T) => z.optional(z.nullable(schema));

/** The fields Handraise reads; OpenAI-compatible servers differ in the rest (and some in these: see below). */
const responseSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: nullish(z.string()),
          refusal: nullish(z.string()),
          tool_calls: nullish(
            z.array(
              z.object({
                // Some compatible servers leave the id out; the model step gives such a call one.
                id: nullish(z.string()),
                function: z.object({
                  name: z.string(),
                  // A string of JSON; some compatible servers send the object itself.
                  arguments: nullish(z.union([z.string(), z.record(z.string(), z.unknown())])),
                }),
              }),
            ),
          ),
        }),
      }),
    )
    .check(z.minLength(1)),
  usage: nullish(z.object({ prompt_tokens: z.number(), completion_tokens: z.number() })),
});

export function openAiTurn(body: unknown): ModelTurn {
  const parsed = responseSchema.safeParse(body);
  if (!parsed.success) throw unreadableFault(parsed.error.issues);
  const { choices, usage } = parsed.data;
  const message = choices[0]?.message;
  if (!message) throw new ProviderFault("answered without a choice", false);
  const counted = usage
    ? { usage: { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens } }
    : {};
  const toolCalls: ToolCall[] = (message.tool_calls ?? []).map((call) => ({
    id: call.id ?? "",
    name: call.function.name,
    arguments: parseArguments(call.function.arguments),
  }));
  const text = message.content ?? "";
  if (toolCalls.length > 0) return { toolCalls, ...(text !== "" && { text }), ...counted };
  return { reply: text || (message.refusal ?? ""), ...counted };
}

/**
 * The arguments as JSON; text that is not JSON stays text, so the model step answers it with a tool error the
 * model can correct (and the call goes back to the model exactly as it was).
 */
function parseArguments(raw: string | Record<string, unknown> | null | undefined): unknown {
  if (raw === null || raw === undefined || raw === "") return {};
  if (typeof raw !== "string") return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

const errorSchema = z.object({
  error: z.object({ message: nullish(z.string()), type: nullish(z.string()), code: nullish(z.unknown()) }),
});

/** `{"error":{"message","type","code"}}`: the documented error body (compatible servers mostly follow it). */
export function openAiErrorDetail(body: unknown): { code?: string; message?: string } {
  const parsed = errorSchema.safeParse(body);
  if (!parsed.success) return {};
  const { message, type, code } = parsed.data.error;
  const name = typeof code === "string" && code !== "" ? code : type;
  return { ...(name ? { code: name } : {}), ...(message ? { message } : {}) };
}
