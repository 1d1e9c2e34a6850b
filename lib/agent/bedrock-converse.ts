/**
 * The Bedrock Converse API (`POST /model/{modelId}/converse`) as data: the request for a transcript and the
 * turn in a response. Pure; bedrock-provider.ts sends it with the AWS SDK. ask_user goes in
 * `toolConfig.tools` as a `toolSpec`; the model's calls come back as `toolUse` content blocks, and their
 * results go back as `toolResult` blocks (with the call's `toolUseId`) in the next user message; roles
 * alternate, so consecutive results share one message.
 */
import { askUserToolDefinitions } from "../questions/tool-definitions.ts";
import * as z from "../zod.ts";
import type { ModelTurn } from "./model-provider.ts";
import type { BedrockModel } from "./model-settings.ts";
import { argumentsObject, EMPTY_PROMPT, unreadableFault } from "./provider-http.ts";
import { systemPrompt } from "./system-prompt.ts";
import type { ToolCall, Transcript } from "./transcript.ts";

type Block = Record<string, unknown>;
interface Message {
  role: "user" | "assistant";
  content: Block[];
}

export function converseRequest(model: BedrockModel, transcript: Transcript): Record<string, unknown> {
  const messages: Message[] = [];
  const add = (role: Message["role"], blocks: Block[]) => {
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const message of transcript.messages) {
    if (message.role === "user") add("user", [{ text: message.content || EMPTY_PROMPT }]);
    else if (message.role === "tool") {
      // No `status: "error"`: only some models accept the field, and the text says it is an error.
      add("user", [{ toolResult: { toolUseId: message.toolCallId, content: [{ text: message.text }] } }]);
    } else {
      add("assistant", [
        ...(message.content ? [{ text: message.content }] : []),
        ...(message.toolCalls ?? []).map((call) => ({
          toolUse: { toolUseId: call.id, name: call.name, input: argumentsObject(call.arguments) },
        })),
      ]);
    }
  }
  return {
    modelId: model.modelId,
    system: [{ text: systemPrompt(model.system) }],
    messages,
    toolConfig: { tools: [askUserToolDefinitions.bedrock] },
    ...(model.maxTokens !== undefined && { inferenceConfig: { maxTokens: model.maxTokens } }),
  };
}

const responseSchema = z.object({
  output: z.object({
    message: z.object({
      // Other block types (reasoningContent, …) are passed over.
      content: z.array(
        z.object({
          text: z.optional(z.string()),
          toolUse: z.optional(
            z.object({ toolUseId: z.string(), name: z.string(), input: z.optional(z.unknown()) }),
          ),
        }),
      ),
    }),
  }),
  usage: z.optional(z.object({ inputTokens: z.number(), outputTokens: z.number() })),
});

export function converseTurn(body: unknown): ModelTurn {
  const parsed = responseSchema.safeParse(body);
  if (!parsed.success) throw unreadableFault(parsed.error.issues);
  const { output, usage } = parsed.data;
  const counted = usage
    ? { usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens } }
    : {};
  const blocks = output.message.content;
  const text = blocks.flatMap((block) => (block.text ? [block.text] : [])).join("\n");
  const toolCalls: ToolCall[] = blocks.flatMap((block) =>
    block.toolUse
      ? [{ id: block.toolUse.toolUseId, name: block.toolUse.name, arguments: block.toolUse.input ?? {} }]
      : [],
  );
  if (toolCalls.length > 0) return { toolCalls, ...(text !== "" && { text }), ...counted };
  return { reply: text, ...counted };
}
