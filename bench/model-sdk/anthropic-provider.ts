/**
 * lib/agent/anthropic-provider.ts with the official `@anthropic-ai/sdk` in place of `fetch`: the same request
 * and response mapping (lib/agent/anthropic-messages.ts), the same retries and errors. Only the benchmark
 * builds it, as a variant of the modelStep bundle, to measure what the SDK would cost (bench/model-clients.ts).
 */
import Anthropic, { APIConnectionTimeoutError, APIError } from "@anthropic-ai/sdk";
import { anthropicErrorDetail, anthropicRequest, anthropicTurn } from "#lib/agent/anthropic-messages.ts";
import { redactSecret } from "#lib/agent/model-error.ts";
import type { ModelProvider } from "#lib/agent/model-provider.ts";
import { ProviderFault, withRetries } from "#lib/agent/model-retry.ts";
import { type AnthropicModel, DEFAULT_REQUEST_TIMEOUT_SECONDS } from "#lib/agent/model-settings.ts";
import { type HttpProviderDeps, hostOf, httpFault, readModelKey } from "#lib/agent/provider-http.ts";

export function createAnthropicProvider(model: AnthropicModel, deps: HttpProviderDeps): ModelProvider {
  return {
    async next(transcript, { deadlineMs }) {
      const key = await readModelKey(deps.secrets, model.apiKeySecret);
      const client = new Anthropic({ apiKey: key, baseURL: model.baseUrl, maxRetries: 0, fetch: deps.fetch });
      const request = anthropicRequest(
        model,
        transcript,
      ) as unknown as Anthropic.MessageCreateParamsNonStreaming;
      const call = {
        provider: "anthropic",
        label: `anthropic ${model.model} at ${hostOf(model.baseUrl)}`,
        deadlineMs,
        requestTimeoutMs: (model.requestTimeoutSeconds ?? DEFAULT_REQUEST_TIMEOUT_SECONDS) * 1000,
        redact: (text: string) => redactSecret(text, key),
      };
      return withRetries(call, deps, async (timeoutMs) => {
        try {
          return anthropicTurn(await client.messages.create(request, { timeout: timeoutMs }));
        } catch (error) {
          if (error instanceof APIConnectionTimeoutError) throw new ProviderFault("timed out", true);
          if (error instanceof APIError && error.status !== undefined && error.headers) {
            const reply = { status: error.status, headers: error.headers, body: error.error };
            throw httpFault(reply, anthropicErrorDetail(reply.body), deps.now());
          }
          if (error instanceof APIError)
            throw new ProviderFault(`could not reach it (${error.message})`, true);
          throw error;
        }
      });
    },
  };
}
