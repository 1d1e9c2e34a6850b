/**
 * Bedrock Converse with the AWS SDK (in the bundle, but evaluated on the first Bedrock call only, so runs of
 * other providers never pay for it; bedrock-sdk.ts keeps the bundle to the client and Converse). Credentials are the function's role; the
 * endpoint follows the SDK's standard override `AWS_ENDPOINT_URL_BEDROCK_RUNTIME` (the tests point it at a
 * local fake). The SDK's own retries are off: model-retry.ts retries every provider the same way, within the
 * model step's time.
 */
import type {
  BedrockRuntimeClient,
  ConverseCommandInput,
  ConverseCommandOutput,
} from "@aws-sdk/client-bedrock-runtime";
import { converseRequest, converseTurn } from "./bedrock-converse.ts";
import type { ModelProvider } from "./model-provider.ts";
import { ProviderFault, type RetryDeps, retryAfterMs, withRetries } from "./model-retry.ts";
import { type BedrockModel, DEFAULT_REQUEST_TIMEOUT_SECONDS } from "./model-settings.ts";
import { clip } from "./provider-http.ts";

/** Sends one Converse request; rejects with the SDK's error. */
export type ConverseSend = (
  region: string | undefined,
  input: ConverseCommandInput,
  signal: AbortSignal,
) => Promise<ConverseCommandOutput>;

/** One client per region, built when first needed. */
export function createConverseSend(): ConverseSend {
  const clients = new Map<string, Promise<BedrockRuntimeClient>>();
  const sdk = () => import("./bedrock-sdk.ts");
  return async (region, input, signal) => {
    const { ConverseCommand } = await sdk();
    let client = clients.get(region ?? "");
    if (!client) {
      client = sdk().then(
        ({ BedrockRuntimeClient: Client }) =>
          new Client({ maxAttempts: 1, ...(region !== undefined && { region }) }),
      );
      clients.set(region ?? "", client);
    }
    return (await client).send(new ConverseCommand(input), { abortSignal: signal });
  };
}

/** Converse's documented errors that are worth another attempt (besides every 429 and 5xx). */
const RETRYABLE = new Set([
  "ThrottlingException",
  "ServiceUnavailableException",
  "InternalServerException",
  "ModelNotReadyException",
  "ModelTimeoutException",
]);

export function createBedrockProvider(
  model: BedrockModel,
  deps: RetryDeps & { converse: ConverseSend },
): ModelProvider {
  return {
    async next(transcript, { deadlineMs }) {
      const input = converseRequest(model, transcript) as unknown as ConverseCommandInput;
      const call = {
        provider: "bedrock",
        label: `bedrock ${model.modelId}${model.region ? ` in ${model.region}` : ""}`,
        deadlineMs,
        requestTimeoutMs: (model.requestTimeoutSeconds ?? DEFAULT_REQUEST_TIMEOUT_SECONDS) * 1000,
        // No key of its own: requests are signed with the role's credentials, which no error carries.
        redact: (text: string) => text,
      };
      return withRetries(call, deps, async (timeoutMs) => {
        const signal = AbortSignal.timeout(timeoutMs);
        let output: ConverseCommandOutput;
        try {
          output = await deps.converse(model.region, input, signal);
        } catch (error) {
          throw signal.aborted
            ? new ProviderFault(`no answer within ${Math.round(timeoutMs / 1000)} s (timed out)`, true)
            : sdkFault(error, deps.now());
        }
        return converseTurn(output);
      });
    },
  };
}

interface SdkError {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  $metadata?: { httpStatusCode?: number };
  $response?: { headers?: Record<string, string | undefined> };
}

/** An AWS SDK error as a ProviderFault: `HTTP 429 ThrottlingException: Too many requests…`. */
function sdkFault(error: unknown, nowMs: number): ProviderFault {
  const e = (typeof error === "object" && error !== null ? error : {}) as SdkError;
  const name = typeof e.name === "string" ? e.name : "Error";
  const message = typeof e.message === "string" && e.message !== "" ? `: ${clip(e.message)}` : "";
  const status = e.$metadata?.httpStatusCode;
  if (status === undefined) {
    // Never reached the service: no connection, or no credentials.
    const credentials = /credential/i.test(name);
    const code = typeof e.code === "string" ? e.code : name;
    return new ProviderFault(
      credentials ? `no AWS credentials (${name}${message})` : `could not reach it (${code})`,
      !credentials,
    );
  }
  const headers = e.$response?.headers ?? {};
  const header = (wanted: string) =>
    Object.entries(headers).find(([key]) => key.toLowerCase() === wanted)?.[1] ?? undefined;
  const retryable = status === 408 || status === 429 || status >= 500 || RETRYABLE.has(name);
  return new ProviderFault(
    `HTTP ${status} ${name}${message}`,
    retryable,
    retryable ? retryAfterMs(header, nowMs) : undefined,
    status,
  );
}
