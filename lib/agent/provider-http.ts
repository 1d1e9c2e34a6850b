/**
 * What the HTTP providers (OpenAI, Anthropic) share: reading the API key the run names, one JSON POST with a
 * time-out, and turning a failed response into a ProviderFault. Plain `fetch` and zod: the official SDKs
 * would add 390-450 KB each to the modelStep bundle (`npm run bench`, row 6, "Model clients").
 */
import { ConfigError } from "../config-error.ts";
import { networkCode, parseJsonOrUndefined } from "../http/outbound.ts";
import { modelSecretName, secretEnvName } from "../secrets/secret-catalog.ts";
import type { Secrets } from "../secrets/secrets.ts";
import { traceOutbound } from "../telemetry/outbound-trace.ts";
import { describeIssue, issuesOf } from "../validation-messages.ts";
import type * as z from "../zod.ts";
import { ModelError } from "./model-error.ts";
import { isRetryableStatus, ProviderFault, type RetryDeps, retryAfterMs } from "./model-retry.ts";

export type Fetch = typeof fetch;

export interface HttpProviderDeps extends RetryDeps {
  secrets: Secrets;
  fetch: Fetch;
}

/** The most characters of provider text a message carries. */
const MAX_DETAIL = 300;

/**
 * The API key named by the run (`apiKeySecret`): deployed the SSM SecureString `<prefix>/models/<name>`,
 * locally its environment variable.
 *
 * @throws ModelError naming the secret (never its value) when it is missing, malformed or unreadable.
 */
export async function readModelKey(secrets: Secrets, name: string): Promise<string> {
  const secret = modelSecretName(name);
  let value: string | undefined;
  try {
    value = await secrets.get(secret);
  } catch (error) {
    if (error instanceof ConfigError)
      throw new ModelError(`The API key ${secret} is unusable: ${error.message}`);
    throw new ModelError(`Could not read the API key ${secret}: ${describeError(error)}`);
  }
  if (value === undefined) {
    throw new ModelError(
      `No API key: the secret ${secret} is not configured. Locally, set ${secretEnvName(secret)}; deployed, ` +
        `store the SSM SecureString <HANDRAISE_SSM_PREFIX>/${secret}.`,
    );
  }
  return value;
}

export interface JsonReply {
  status: number;
  headers: Headers;
  /** The parsed body; undefined when it was empty or not JSON. */
  body: unknown;
}

/**
 * POSTs `body` as JSON and reads the whole answer within `timeoutMs`. `name` is what the trace calls it (the
 * provider's API: `chat completions`, `messages`); its URL is never recorded.
 *
 * @throws ProviderFault (retryable) when the server cannot be reached or does not answer in time.
 */
export async function postJson(
  fetchFn: Fetch,
  target: { url: string; name: string },
  headers: Record<string, string>,
  body: unknown,
  timeoutMs: number,
): Promise<JsonReply> {
  try {
    const response = await traceOutbound(
      { ...target, method: "POST" },
      fetchFn(target.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", ...headers },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      }),
      (reply) => reply.status,
    );
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: parseJsonOrUndefined(text) };
  } catch (error) {
    if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
      throw new ProviderFault(`no answer within ${Math.round(timeoutMs / 1000)} s (timed out)`, true);
    }
    throw new ProviderFault(`could not reach it (${networkCode(error)})`, true);
  }
}

/**
 * The fault of a response that is not 2xx: retryable or not (lib/agent/model-retry.ts), the wait the
 * provider asks for, and `HTTP <status> <code>: <provider's message>` as its summary.
 */
export function httpFault(
  reply: JsonReply,
  detail: { code?: string | undefined; message?: string | undefined },
  nowMs: number,
): ProviderFault {
  const header = (name: string) => reply.headers.get(name);
  const code = detail.code ? ` ${detail.code}` : "";
  const message = detail.message ? `: ${clip(detail.message)}` : "";
  return new ProviderFault(
    `HTTP ${reply.status}${code}${message}`,
    isRetryableStatus(reply.status, header("x-should-retry")),
    reply.status === 429 || reply.status >= 500 ? retryAfterMs(header, nowMs) : undefined,
    reply.status,
  );
}

/** A 2xx body that does not have the documented shape: not retried (the same request gets the same). */
export function unreadableFault(issues: readonly z.core.$ZodIssue[]): ProviderFault {
  const first = issuesOf(issues)[0];
  return new ProviderFault(
    `answered with a body Handraise cannot read (${first ? describeIssue(first) : "not JSON"})`,
    false,
  );
}

export function clip(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > MAX_DETAIL ? `${line.slice(0, MAX_DETAIL)}…` : line;
}

export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return clip(String(error));
  return clip(error.message ? `${error.name}: ${error.message}` : error.name);
}

/** `https://api.openai.com/v1` → `api.openai.com`: where a call went, for messages (no path, no query). */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "?";
  }
}

/** Tool arguments as a provider sends them back in a JSON field (OpenAI: a string of JSON). */
export function argumentsText(args: unknown): string {
  return typeof args === "string" ? args : JSON.stringify(args ?? {});
}

/** A JSON object for providers whose tool input must be one (Anthropic, Bedrock). */
export function argumentsObject(args: unknown): Record<string, unknown> {
  return typeof args === "object" && args !== null && !Array.isArray(args)
    ? (args as Record<string, unknown>)
    : {};
}

/**
 * Anthropic and Bedrock refuse an empty text block; an agent run may have an empty prompt (the scripted
 * model never reads it), so a real model gets this instead.
 */
export const EMPTY_PROMPT = "(no prompt was given)";
