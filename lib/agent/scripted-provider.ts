import * as z from "../zod.ts";
import type { ModelProvider, ModelTurn } from "./model-provider.ts";
import { maxStepsSetting } from "./model-settings.ts";
import { type Transcript, toolCallSchema, toolOutcomes } from "./transcript.ts";

/**
 * `{"provider":"scripted","steps":[{"toolCalls":[…]}, {"reply":"deploy={{call_1.deploy_target}}"}]}`
 * (docs/architecture.md, "The agent state machine"): the model of the demo and the tests, which plays its
 * steps in order.
 */
export const scriptedModelSchema = z.strictObject({
  provider: z.literal("scripted"),
  steps: z
    .array(
      z.union([
        z.strictObject({ toolCalls: z.array(toolCallSchema).check(z.minLength(1), z.maxLength(10)) }),
        z.strictObject({ reply: z.string() }),
      ]),
    )
    .check(z.minLength(1), z.maxLength(50)),
  maxSteps: maxStepsSetting,
});
export type ScriptedModel = z.infer<typeof scriptedModelSchema>;

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_-]+)\.([A-Za-z0-9_]+)\s*\}\}/g;

export function createScriptedProvider(model: ScriptedModel): ModelProvider {
  return {
    async next(transcript): Promise<ModelTurn> {
      const step = model.steps[transcript.modelCalls];
      if (!step) return { reply: "(the script has no more steps)" };
      if ("toolCalls" in step) return { toolCalls: step.toolCalls };
      return { reply: expandReply(step.reply, transcript) };
    },
  };
}

/**
 * `{{<callId>.<questionId>}}` → that question's answers joined by ","; `{{<callId>.status}}`,
 * `{{<callId>.reason}}`, `{{<callId>.error}}` → the result's status, no-answer reason, tool error code.
 * Unknown placeholders expand to "".
 */
export function expandReply(template: string, transcript: Transcript): string {
  const outcomes = toolOutcomes(transcript);
  return template.replace(PLACEHOLDER, (_match, callId: string, field: string) => {
    const outcome = outcomes.get(callId);
    if (!outcome) return "";
    if (field === "status") return outcome.status;
    if (field === "reason") return outcome.status === "no_answer" ? outcome.reason : "";
    if (field === "error") return outcome.status === "error" ? outcome.error.code : "";
    return outcome.status === "answered" ? (outcome.answers[field] ?? []).join(",") : "";
  });
}
