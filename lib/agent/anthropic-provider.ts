/** The Anthropic Messages API over `fetch` (anthropic-messages.ts has the request and response shapes). */
import {
  ANTHROPIC_VERSION,
  anthropicErrorDetail,
  anthropicRequest,
  anthropicTurn,
} from "./anthropic-messages.ts";
import { redactSecret } from "./model-error.ts";
import type { ModelProvider } from "./model-provider.ts";
import { withRetries } from "./model-retry.ts";
import { type AnthropicModel, DEFAULT_REQUEST_TIMEOUT_SECONDS } from "./model-settings.ts";
import { type HttpProviderDeps, hostOf, httpFault, postJson, readModelKey } from "./provider-http.ts";

export function createAnthropicProvider(model: AnthropicModel, deps: HttpProviderDeps): ModelProvider {
  const target = { url: `${model.baseUrl.replace(/\/+$/, "")}/v1/messages`, name: "messages" };
  return {
    async next(transcript, { deadlineMs }) {
      const key = await readModelKey(deps.secrets, model.apiKeySecret);
      const request = anthropicRequest(model, transcript);
      const call = {
        provider: "anthropic",
        label: `anthropic ${model.model} at ${hostOf(model.baseUrl)}`,
        deadlineMs,
        requestTimeoutMs: (model.requestTimeoutSeconds ?? DEFAULT_REQUEST_TIMEOUT_SECONDS) * 1000,
        redact: (text: string) => redactSecret(text, key),
      };
      const headers = { "x-api-key": key, "anthropic-version": ANTHROPIC_VERSION };
      return withRetries(call, deps, async (timeoutMs) => {
        const reply = await postJson(deps.fetch, target, headers, request, timeoutMs);
        if (reply.status < 200 || reply.status > 299) {
          throw httpFault(reply, anthropicErrorDetail(reply.body), deps.now());
        }
        return anthropicTurn(reply.body);
      });
    },
  };
}
