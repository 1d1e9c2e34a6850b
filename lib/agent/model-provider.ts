import type { ModelUsage, ToolCall, Transcript } from "./transcript.ts";

/** Tokens one model call consumed, as the provider reported them. */
// Kept with the transcript, which records each step's usage; re-exported here for the providers.
export type { ModelUsage } from "./transcript.ts";

/**
 * The model's next move: call tools (with any text it wrote alongside), or reply and end the run. `usage`
 * is there when the provider reports it (every real one does; the scripted model does not).
 */
export type ModelTurn = ({ toolCalls: ToolCall[]; text?: string } | { reply: string }) & {
  usage?: ModelUsage;
};

export interface ModelCallOptions {
  /** Epoch milliseconds by which the call must have ended, retries included (the model step's own budget). */
  deadlineMs: number;
}

/**
 * A language model behind one interface. The state machine does not know which one runs.
 *
 * @example
 * const turn = await provider.next(transcript, { deadlineMs: Date.now() + 50_000 });
 * if ("reply" in turn) return turn.reply;
 */
export interface ModelProvider {
  /** @throws ModelError when the provider cannot give a turn (after its retries, within the deadline). */
  next(transcript: Transcript, options: ModelCallOptions): Promise<ModelTurn>;
}
