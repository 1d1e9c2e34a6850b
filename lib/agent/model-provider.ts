import type { ToolCall, Transcript } from "./transcript.ts";

/** The model's next move: call tools, or reply and end the run. */
export type ModelTurn = { toolCalls: ToolCall[] } | { reply: string };

/**
 * A language model behind one interface. The state machine does not know which one runs.
 *
 * @example
 * const turn = await provider.next(transcript);
 * if ("reply" in turn) return turn.reply;
 */
export interface ModelProvider {
  next(transcript: Transcript): Promise<ModelTurn>;
}
