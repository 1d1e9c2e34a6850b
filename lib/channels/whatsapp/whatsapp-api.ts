import type { SecretValue } from "../../secrets/secrets.ts";
import { PlatformApiError } from "../platform-api-error.ts";
import {
  createPlatformHttp,
  type PlatformHttpDeps,
  type PlatformReply,
  type PlatformRequest,
  retryAfterHeaderMs,
} from "../platform-http.ts";

/** Graph API error code of a free-form message sent outside the 24-hour customer service window. */
export const OUTSIDE_SERVICE_WINDOW = 131047;

/** A refusal of the Graph API, with its error code (`error.code` of the body) when it gave one. */
export class WhatsappApiError extends PlatformApiError {
  constructor(
    method: string,
    status: number | undefined,
    message: string,
    readonly code: number | undefined,
  ) {
    super("whatsapp", method, status, message);
  }
}

export interface WhatsappApi {
  /**
   * Sends one message to `to` (a wa_id): `message` is the type-specific part (`{type: "text", text}`,
   * `{type: "interactive", interactive}`, `{type: "template", template}`), `replyTo` the message it answers.
   * Resolves to the sent message's id (a wamid); throws WhatsappApiError.
   */
  send(to: string, message: Record<string, unknown>, replyTo?: string): Promise<string>;
  /** What the API says of the business number (`npm run doctor`): only reads. */
  phoneNumber(): Promise<{ display_phone_number?: string; verified_name?: string }>;
}

export interface WhatsappApiOptions {
  apiBase: string;
  phoneNumberId: string;
  accessToken: SecretValue;
  now: () => number;
  http?: Partial<PlatformHttpDeps>;
}

interface GraphError {
  error?: { message?: unknown; code?: unknown };
}

const graphError = (reply: PlatformReply | undefined) => (reply?.body as GraphError | undefined)?.error;

/** The API's own words for a refusal, with its code: never anything of the request. */
function describe(reply: PlatformReply): string {
  const error = graphError(reply);
  const message = typeof error?.message === "string" ? error.message : `HTTP ${reply.status}`;
  return typeof error?.code === "number" ? `${message} (code ${error.code})` : message;
}

/**
 * The WhatsApp Cloud API's messages endpoint (`POST <apiBase>/<phone number id>/messages`, bearer access
 * token, JSON). A refusal is `{error: {message, code, …}}`; its code is kept on the error, since one of them
 * (131047, the closed service window) has its own fallback. A message is never sent twice: it is retried only
 * when it cannot have been sent. Errors name the method, never the token.
 */
export function createWhatsappApi(options: WhatsappApiOptions): WhatsappApi {
  const numberUrl = `${options.apiBase.replace(/\/+$/, "")}/${options.phoneNumberId}`;
  const url = `${numberUrl}/messages`;
  /** The last reply to each request, read back for the error code of a refusal. */
  const replies = new WeakMap<PlatformRequest, PlatformReply>();
  const http = createPlatformHttp(
    {
      platform: "whatsapp",
      retryAfterMs: (reply, nowMs) => retryAfterHeaderMs(reply.headers, nowMs),
      describe,
      observe: (request, reply) => {
        replies.set(request, reply);
      },
    },
    { now: options.now, ...options.http },
  );
  return {
    async send(to, message, replyTo) {
      const request: PlatformRequest = {
        name: "POST /messages",
        method: "POST",
        url,
        headers: { authorization: `Bearer ${await options.accessToken()}` },
        body: {
          messaging_product: "whatsapp",
          recipient_type: "individual",
          to,
          ...(replyTo !== undefined && { context: { message_id: replyTo } }),
          ...message,
        },
        idempotent: false,
      };
      let reply: PlatformReply;
      try {
        reply = await http.send(request);
      } catch (error) {
        // A refusal the API explained: the same error, with its code. Anything else (no answer) as it is.
        const refusal = replies.get(request);
        const code = graphError(refusal)?.code;
        if (!(error instanceof PlatformApiError) || refusal === undefined || typeof code !== "number")
          throw error;
        throw new WhatsappApiError(request.name, error.status, describe(refusal), code);
      }
      const id = (reply.body as { messages?: { id?: unknown }[] } | undefined)?.messages?.[0]?.id;
      if (typeof id !== "string" || id === "") {
        throw new WhatsappApiError(request.name, reply.status, "the reply names no message id", undefined);
      }
      return id;
    },
    async phoneNumber() {
      const reply = await http.send({
        name: "GET /<phone number id>",
        method: "GET",
        url: `${numberUrl}?fields=display_phone_number,verified_name`,
        headers: { authorization: `Bearer ${await options.accessToken()}` },
        idempotent: true,
      });
      return (reply.body ?? {}) as { display_phone_number?: string; verified_name?: string };
    },
  };
}
