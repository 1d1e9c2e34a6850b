import { PlatformApiError } from "../platform-api-error.ts";
import { createPlatformHttp, type PlatformApiOptions, type PlatformReply } from "../platform-http.ts";

export interface TelegramApi {
  call<T = unknown>(method: string, params: Record<string, unknown>): Promise<T>;
}

interface Envelope {
  ok?: boolean;
  result?: unknown;
  description?: string;
  parameters?: { retry_after?: unknown };
}

const envelope = (reply: PlatformReply) => (reply.body ?? {}) as Envelope;

/**
 * Methods Telegram may do twice without harm: reads, edits, settings, and answering a callback (a second
 * answer is refused, not shown). `sendMessage` is not among them: it is retried only when it cannot have
 * been sent.
 */
const REPEATABLE = /^(get|edit|set|delete|answerCallbackQuery$)/;

/**
 * The Bot API over HTTPS (`<apiBase>/bot<token>/<method>`, JSON, `{ok, result}` or `{ok: false,
 * description}`). A 429 names its wait in `parameters.retry_after` (seconds). The token is part of the URL,
 * so errors name the method, never the URL.
 */
export function createTelegramApi(options: PlatformApiOptions): TelegramApi {
  const base = options.apiBase.replace(/\/+$/, "");
  const http = createPlatformHttp(
    {
      platform: "telegram",
      retryAfterMs: (reply) => {
        const seconds = envelope(reply).parameters?.retry_after;
        return typeof seconds === "number" && seconds >= 0 ? seconds * 1000 : undefined;
      },
      describe: (reply) => envelope(reply).description ?? `HTTP ${reply.status}`,
    },
    { now: options.now, ...options.http },
  );
  return {
    async call<T>(method: string, params: Record<string, unknown>): Promise<T> {
      // Read per call (cached by the secret store): a rotated token is picked up without a restart.
      const token = await options.botToken();
      const reply = await http.send({
        name: method,
        method: "POST",
        url: `${base}/bot${token}/${method}`,
        body: params,
        idempotent: REPEATABLE.test(method),
      });
      const body = envelope(reply);
      if (!body.ok) {
        throw new PlatformApiError(
          "telegram",
          method,
          reply.status,
          body.description ?? `HTTP ${reply.status}`,
        );
      }
      return body.result as T;
    },
  };
}
