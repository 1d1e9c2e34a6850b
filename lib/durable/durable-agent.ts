/**
 * The reference agent as a Lambda durable function: the same input as the state machine's agent
 * (lib/agent/model-step.ts agentInputSchema) and the same loop — model turn, ask_user, model turn … until
 * the model replies — written as code. Each model turn is a checkpointed step (a replay does not call the
 * model again); each ask suspends the execution on a callback (lib/durable/ask-user.ts).
 */
import type { DurableContext } from "@aws/durable-execution-sdk-js";
import type { ModelProvider, ModelTurn } from "../agent/model-provider.ts";
import { type AgentInput, agentInputSchema, runTimersFor } from "../agent/model-step.ts";
import type { ToolCall, ToolOutcome, Transcript } from "../agent/transcript.ts";
import { parseInput } from "../app/errors.ts";
import {
  formatToolResult,
  normalizeAskUserArgs,
  type TimeoutLimits,
  ToolInputError,
} from "../questions/index.ts";
import { ASK_USER_TOOL_NAME } from "../questions/schema.ts";
import type { DurableAskUser } from "./ask-user.ts";

/**
 * How long one model turn may take, retries included. A turn is a durable step inside one invocation, so it
 * must end well within the function's timeout (serverless.yml: durableAgent).
 */
const MODEL_TURN_MS = 50_000;

/** Model turns one execution may take (each costs a durable step). */
const MAX_MODEL_TURNS = 50;

export interface DurableAgentDeps {
  askUser: DurableAskUser;
  limits: TimeoutLimits;
  providerFor: (model: AgentInput["model"]) => ModelProvider;
  now: () => number;
}

/**
 * @example
 * export const handler = withDurableExecution(createDurableAgent({ askUser, limits, providerFor, now }));
 */
export function createDurableAgent(deps: DurableAgentDeps) {
  const { providerFor } = deps;

  return async function durableAgent(event: unknown, context: DurableContext): Promise<{ reply: string }> {
    const input = parseInput(agentInputSchema, event, "agent input");
    const provider = providerFor(input.model);
    const transcript: Transcript = {
      messages: [{ role: "user", content: input.prompt }],
      pendingToolCalls: [],
      modelCalls: 0,
    };
    for (let turn = 0; turn < MAX_MODEL_TURNS; turn++) {
      const next: ModelTurn = await context.step(`model-${turn}`, () =>
        provider.next(transcript, { deadlineMs: deps.now() + MODEL_TURN_MS }),
      );
      transcript.modelCalls += 1;
      if ("reply" in next) {
        transcript.messages.push({ role: "assistant", content: next.reply });
        return { reply: next.reply };
      }
      transcript.messages.push({ role: "assistant", toolCalls: next.toolCalls });
      for (const call of next.toolCalls) {
        const { outcome, text } = await callTool(call, input, context);
        transcript.messages.push({ role: "tool", toolCallId: call.id, text, outcome });
      }
    }
    return { reply: "(stopped: the model kept calling tools without replying)" };
  };

  async function callTool(
    call: ToolCall,
    input: AgentInput,
    context: DurableContext,
  ): Promise<{ outcome: ToolOutcome; text: string }> {
    if (call.name !== ASK_USER_TOOL_NAME) {
      return toolError("UNKNOWN_TOOL", `There is no tool named "${call.name}".`);
    }
    try {
      const { questions, timeoutSeconds } = normalizeAskUserArgs(call.arguments, deps.limits);
      const timers = runTimersFor(input, timeoutSeconds);
      const result = await deps.askUser(context, call.arguments, {
        owner: input.owner,
        deliverTo: input.deliverTo,
        sessionKey: input.sessionKey,
        agentId: input.agentId,
        remindAfterSeconds: timers.remindAfterSeconds ?? undefined,
        escalate: timers.escalate ?? undefined,
        requestedBy: input.requestedBy,
        context: input.context,
        answerers: input.answerers,
        quorum: input.quorum,
      });
      return { outcome: result, text: formatToolResult(result, questions).text };
    } catch (error) {
      if (error instanceof ToolInputError) {
        const text = error.toToolErrorText();
        return {
          outcome: { status: "error", error: { code: error.code, message: error.message }, text },
          text,
        };
      }
      // SessionBusyError's own sentence (lib/app/errors.ts), thrown again by name from the registration.
      if (error instanceof Error && error.name === "SessionBusyError")
        return toolError("SESSION_BUSY", error.message);
      throw error;
    }
  }
}

function toolError(code: string, message: string): { outcome: ToolOutcome; text: string } {
  const text = JSON.stringify({ error: { code, message } });
  return { outcome: { status: "error", error: { code, message }, text }, text };
}
