/** OpenAI Chat Completions over `fetch` (openai-chat.ts has the request and response shapes). */
import { redactSecret } from "./model-error.ts";
import type { ModelProvider } from "./model-provider.ts";
import { withRetries } from "./model-retry.ts";
import { DEFAULT_REQUEST_TIMEOUT_SECONDS, type OpenAiModel } from "./model-settings.ts";
import { openAiErrorDetail, openAiRequest, openAiTurn } from "./openai-chat.ts";
import { type HttpProviderDeps, hostOf, httpFault, postJson, readModelKey } from "./provider-http.ts";

export function createOpenAiProvider(model: OpenAiModel, deps: HttpProviderDeps): ModelProvider {
  const target = { url: `${model.baseUrl.replace(/\/+$/, "")}/chat/completions`, name: "chat completions" };
  return {
    async next(transcript, { deadlineMs }) {
      const key = await readModelKey(deps.secrets, model.apiKeySecret);
      const request = openAiRequest(model, transcript);
      const call = {
        provider: "openai",
        label: `openai ${model.model} at ${hostOf(model.baseUrl)}`,
        deadlineMs,
        requestTimeoutMs: (model.requestTimeoutSeconds ?? DEFAULT_REQUEST_TIMEOUT_SECONDS) * 1000,
        redact: (text: string) => redactSecret(text, key),
      };
      return withRetries(call, deps, async (timeoutMs) => {
        const reply = await postJson(
          deps.fetch,
          target,
          { authorization: `Bearer ${key}` },
          request,
          timeoutMs,
        );
        if (reply.status < 200 || reply.status > 299) {
          throw httpFault(reply, openAiErrorDetail(reply.body), deps.now());
        }
        return openAiTurn(reply.body);
      });
    },
  };
}
