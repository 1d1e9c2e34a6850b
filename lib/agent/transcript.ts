import { askUserResultSchema } from "../questions/schema.ts";
import * as z from "../zod.ts";

/** The tokens a model step used, as the provider reported them. */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
}

export const toolCallSchema = z.strictObject({
  id: z.string().check(z.minLength(1), z.maxLength(128)),
  name: z.string().check(z.minLength(1), z.maxLength(128)),
  arguments: z.unknown(),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

/** What a tool call gave back: an ask_user result, or a tool error the model can correct. */
export const toolOutcomeSchema = z.union([
  askUserResultSchema,
  z.strictObject({
    status: z.literal("error"),
    error: z.strictObject({ code: z.string(), message: z.string() }),
    text: z.string(),
  }),
]);
export type ToolOutcome = z.infer<typeof toolOutcomeSchema>;

export type TranscriptMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; content?: string; toolCalls?: ToolCall[]; usage?: ModelUsage }
  | { role: "tool"; toolCallId: string; text: string; outcome: ToolOutcome };

/**
 * A run's conversation. It can grow without bound with a real model, so it lives in the store, not in the
 * state machine's 256 KiB payload; the payload carries only the run id.
 */
export interface Transcript {
  messages: TranscriptMessage[];
  /** Tool calls of the last model turn not yet answered, oldest first. */
  pendingToolCalls: ToolCall[];
  /** How many times the model has been called in this run. */
  modelCalls: number;
}

/** Reads and writes transcripts by run id. */
export interface TranscriptStore {
  load(runId: string): Promise<Transcript | undefined>;
  save(runId: string, transcript: Transcript, nowMs: number): Promise<void>;
}

/** The tokens of every model call so far that reported them; undefined when none did (the scripted model). */
export function usageTotals(transcript: Transcript): ModelUsage | undefined {
  let totals: ModelUsage | undefined;
  for (const message of transcript.messages) {
    if (message.role !== "assistant" || !message.usage) continue;
    totals ??= { inputTokens: 0, outputTokens: 0 };
    totals.inputTokens += message.usage.inputTokens;
    totals.outputTokens += message.usage.outputTokens;
  }
  return totals;
}

/** The outcome of each tool call so far, by call id (for templating and for providers). */
export function toolOutcomes(transcript: Transcript): Map<string, ToolOutcome> {
  const outcomes = new Map<string, ToolOutcome>();
  for (const message of transcript.messages) {
    if (message.role === "tool") outcomes.set(message.toolCallId, message.outcome);
  }
  return outcomes;
}
