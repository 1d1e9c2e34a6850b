/**
 * The model a run's input names, as a ModelProvider: scripted, Bedrock Converse, OpenAI Chat Completions
 * (or a compatible server) and the Anthropic Messages API. Built for the modelStep function only
 * (lib/wiring.ts), so no other bundle carries the adapters.
 */
import type { Secrets } from "../secrets/secrets.ts";
import { createAnthropicProvider } from "./anthropic-provider.ts";
import { type ConverseSend, createBedrockProvider, createConverseSend } from "./bedrock-provider.ts";
import type { ModelProvider } from "./model-provider.ts";
import type { RetryDeps } from "./model-retry.ts";
import type { AgentModel } from "./model-step.ts";
import { createOpenAiProvider } from "./openai-provider.ts";
import type { Fetch } from "./provider-http.ts";
import { createScriptedProvider } from "./scripted-provider.ts";

export interface ModelProvidersDeps extends RetryDeps {
  /** Where the API keys come from (the modelStep function may read `models/*`). */
  secrets: Secrets;
  fetch?: Fetch;
  /** Bedrock's transport (tests pass a fake); the AWS SDK's Converse otherwise. */
  converse?: ConverseSend;
}

export function createModelProviders(deps: ModelProvidersDeps): (model: AgentModel) => ModelProvider {
  const http = { ...deps, fetch: deps.fetch ?? ((input, init) => fetch(input, init)) };
  let converse = deps.converse;
  return (model) => {
    switch (model.provider) {
      case "scripted":
        return createScriptedProvider(model);
      case "openai":
        return createOpenAiProvider(model, http);
      case "anthropic":
        return createAnthropicProvider(model, http);
      case "bedrock":
        converse ??= createConverseSend();
        return createBedrockProvider(model, { ...deps, converse });
    }
  };
}
