/**
 * The `model` object of the agent's input for the real providers (the scripted model's is in
 * scripted-provider.ts). Everything here is visible in the console and the execution history, so a key is
 * never one of them: the input names the secret that holds it (`apiKeySecret`, lib/secrets/secret-catalog.ts).
 */
import { MODEL_SECRET_NAME_PATTERN } from "../secrets/secret-catalog.ts";
import { ruleMessage } from "../validation-messages.ts";
import * as z from "../zod.ts";

/**
 * The time one model step may take: the modelStep Lambda's `timeout` in serverless.yml and the ModelStep
 * task's `TimeoutSeconds` in infra/state-machines/agent.asl.json (test/unit/agent/model-step-budget.test.ts
 * keeps the three equal).
 */
export const MODEL_STEP_SECONDS = 60;

export const DEFAULT_MAX_STEPS = 20;
/** Each call of a provider gets at most this long per attempt, unless the input says otherwise. */
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 30;
/** Anthropic requires `max_tokens`; the others use the model's own limit when it is not given. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

export const OPENAI_BASE_URL = "https://api.openai.com/v1";
export const ANTHROPIC_BASE_URL = "https://api.anthropic.com";

/** The loop guard: the most model calls a run may make; the next one ends it with StepLimitError. */
export const maxStepsSetting = z.optional(z.int().check(z.gte(1), z.lte(100)));

const apiKeySecret = (provider: string) =>
  z._default(
    z.string().check(
      z.regex(MODEL_SECRET_NAME_PATTERN, {
        error: ruleMessage(
          "must name a secret: 1-64 of a-z 0-9 _ - (the key itself never goes in the input)",
        ),
      }),
    ),
    provider,
  );

const baseUrl = (fallback: string) =>
  z._default(
    z.url({ protocol: /^https?$/, error: ruleMessage("must be an http(s) URL") }).check(
      z.maxLength(2048),
      // Checks run on after a failed one: a value that is no URL at all is refused above, not here.
      z.refine(
        (value) => {
          if (!URL.canParse(value)) return true;
          const url = new URL(value);
          return url.username === "" && url.password === "";
        },
        { error: ruleMessage("must not hold credentials (name the key with apiKeySecret)") },
      ),
    ),
    fallback,
  );

/** Settings every real provider takes. */
const common = {
  maxSteps: maxStepsSetting,
  /** The most tokens one answer of the model may have. */
  maxTokens: z.optional(z.int().check(z.gte(1), z.lte(1_000_000))),
  /** Your own system prompt; Handraise's ask_user guidance (system-prompt.ts) comes first. */
  system: z.optional(z.string().check(z.maxLength(100_000))),
  /** How long one attempt may take before it counts as timed out and is retried (within the step's time). */
  requestTimeoutSeconds: z.optional(z.int().check(z.gte(1), z.lte(MODEL_STEP_SECONDS))),
};

/** `{"provider":"bedrock","modelId":"…","region?":"…"}`: the Bedrock Converse API, with the function's IAM role. */
export const bedrockModelSchema = z.strictObject({
  provider: z.literal("bedrock"),
  modelId: z.string().check(z.minLength(1), z.maxLength(2048)),
  region: z.optional(
    z
      .string()
      .check(z.regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, { error: ruleMessage("must be an AWS region") })),
  ),
  ...common,
});
export type BedrockModel = z.infer<typeof bedrockModelSchema>;

/** `{"provider":"openai","model":"…"}`: Chat Completions, at OpenAI or any compatible server (`baseUrl`). */
export const openAiModelSchema = z.strictObject({
  provider: z.literal("openai"),
  model: z.string().check(z.minLength(1), z.maxLength(256)),
  baseUrl: baseUrl(OPENAI_BASE_URL),
  apiKeySecret: apiKeySecret("openai"),
  ...common,
});
export type OpenAiModel = z.infer<typeof openAiModelSchema>;

/** `{"provider":"anthropic","model":"…"}`: the Messages API. */
export const anthropicModelSchema = z.strictObject({
  provider: z.literal("anthropic"),
  model: z.string().check(z.minLength(1), z.maxLength(256)),
  baseUrl: baseUrl(ANTHROPIC_BASE_URL),
  apiKeySecret: apiKeySecret("anthropic"),
  ...common,
});
export type AnthropicModel = z.infer<typeof anthropicModelSchema>;

export type ProviderModel = BedrockModel | OpenAiModel | AnthropicModel;
