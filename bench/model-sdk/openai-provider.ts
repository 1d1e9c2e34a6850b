/**
 * lib/agent/openai-provider.ts with the official `openai` SDK in place of `fetch`: the same request and
 * response mapping (lib/agent/openai-chat.ts), the same retries and errors. Only the benchmark builds it, as
 * a variant of the modelStep bundle, to measure what the SDK would cost (bench/model-clients.ts).
 */
import OpenAI, { APIConnectionTimeoutError, APIError } from "openai";
import { redactSecret } from "#lib/agent/model-error.ts";
import type { ModelProvider } from "#lib/agent/model-provider.ts";
import { ProviderFault, withRetries } from "#lib/agent/model-retry.ts";
import { DEFAULT_REQUEST_TIMEOUT_SECONDS, type OpenAiModel } from "#lib/agent/model-settings.ts";
import { openAiErrorDetail, openAiRequest, openAiTurn } from "#lib/agent/openai-chat.ts";
import { type HttpProviderDeps, hostOf, httpFault, readModelKey } from "#lib/agent/provider-http.ts";

export function createOpenAiProvider(model: OpenAiModel, deps: HttpProviderDeps): ModelProvider {
  return {
    async next(transcript, { deadlineMs }) {
      const key = await readModelKey(deps.secrets, model.apiKeySecret);
      const client = new OpenAI({ apiKey: key, baseURL: model.baseUrl, maxRetries: 0, fetch: deps.fetch });
      const request = openAiRequest(
        model,
        transcript,
      ) as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming;
      const call = {
        provider: "openai",
        label: `openai ${model.model} at ${hostOf(model.baseUrl)}`,
        deadlineMs,
        requestTimeoutMs: (model.requestTimeoutSeconds ?? DEFAULT_REQUEST_TIMEOUT_SECONDS) * 1000,
        redact: (text: string) => redactSecret(text, key),
      };
      return withRetries(call, deps, async (timeoutMs) => {
        try {
          return openAiTurn(await client.chat.completions.create(request, { timeout: timeoutMs }));
        } catch (error) {
          if (error instanceof APIConnectionTimeoutError) throw new ProviderFault("timed out", true);
          if (error instanceof APIError && error.status !== undefined && error.headers) {
            const reply = { status: error.status, headers: error.headers, body: { error: error.error } };
            throw httpFault(reply, openAiErrorDetail(reply.body), deps.now());
          }
          if (error instanceof APIError)
            throw new ProviderFault(`could not reach it (${error.message})`, true);
          throw error;
        }
      });
    },
  };
}
