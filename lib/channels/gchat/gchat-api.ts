/**
 * The Google Chat API calls Handraise makes, as the Chat app (app authentication: the service account's
 * token, scope `chat.bot`, from gchat-token.ts, held by lib/channels/cached-token.ts). Calls go through the
 * one platform client (deadlines, retries, a 429's `Retry-After`); a new message is the one call not sent
 * twice. Errors name the call and Google's status (`PERMISSION_DENIED`, …), never the key or a token.
 */
import { ConfigError } from "../../config-error.ts";
import type { SecretValue } from "../../secrets/secrets.ts";
import * as z from "../../zod.ts";
import { createCachedToken } from "../cached-token.ts";
import { PlatformApiError } from "../platform-api-error.ts";
import {
  createPlatformHttp,
  type PlatformHttpDeps,
  type PlatformReply,
  retryAfterHeaderMs,
} from "../platform-http.ts";
import {
  requestServiceAccountToken,
  type ServiceAccountKey,
  serviceAccountKeyProblem,
} from "./gchat-token.ts";

/** A space's resource name, `spaces/<id>`: the only form a target's chat id may take. */
export const SPACE_NAME = /^spaces\/[A-Za-z0-9_-]{1,128}$/;
/** A message's resource name, `spaces/<id>/messages/<id>` (the message id may hold a `.`). */
export const MESSAGE_NAME = /^spaces\/[A-Za-z0-9_-]{1,128}\/messages\/[A-Za-z0-9_.-]{1,128}$/;
/** A thread's resource name, `spaces/<id>/threads/<id>`. */
export const THREAD_NAME = /^spaces\/[A-Za-z0-9_-]{1,128}\/threads\/[A-Za-z0-9_.-]{1,128}$/;

/** What the app posts or writes over: text, cards v2, or both (the Chat API's `Message`, the parts we use). */
export interface GchatMessage {
  text?: string;
  cardsV2?: { cardId: string; card: Record<string, unknown> }[];
}

/** A space as the Chat API describes it (the fields Handraise reads). */
export interface GchatSpace {
  name: string;
  /** `DIRECT_MESSAGE`, `SPACE` or `GROUP_CHAT`. */
  spaceType?: string | undefined;
  /** A direct message between the app and one person (no other human). */
  singleUserBotDm?: boolean | undefined;
}

/**
 * Whether a space, as the Chat API or an event describes it, is a direct message between the app and one
 * person and no other human: the one rule for "private" in Google Chat, for a delivered copy (its link) and
 * for a notice (posted without privateMessageViewer only there).
 */
export function isAppDirectMessage(
  space: Pick<GchatSpace, "spaceType" | "singleUserBotDm"> | undefined,
): boolean {
  return space?.spaceType === "DIRECT_MESSAGE" && space.singleUserBotDm === true;
}

const spaceSchema = z.looseObject({
  name: z.string(),
  spaceType: z.optional(z.string()),
  singleUserBotDm: z.optional(z.boolean()),
});
const createdSchema = z.looseObject({
  name: z.string().check(z.regex(MESSAGE_NAME)),
  thread: z.optional(z.looseObject({ name: z.optional(z.string()) })),
});

export interface GchatApi {
  /**
   * A new message in `space` (`POST /v1/{space}/messages`), in `thread` when given (a reply there, or a new
   * thread if it is gone); resolves with the message's and its thread's names.
   */
  send(space: string, message: GchatMessage, thread?: string): Promise<{ name: string; thread?: string }>;
  /** Replaces a message the app posted (`PATCH /v1/{message}?updateMask=cardsV2,text`). */
  update(messageName: string, message: GchatMessage): Promise<void>;
  /** The space (`GET /v1/{space}`). */
  space(space: string): Promise<GchatSpace>;
  /** The app's direct message with `user` (`GET /v1/spaces:findDirectMessage?name=users/<id>`). */
  directMessageWith(user: string): Promise<GchatSpace>;
}

export interface GchatApiOptions {
  apiBase: string;
  tokenUrl: string;
  /** The service account's JSON key (the secret gchat/service-account). */
  serviceAccount: SecretValue;
  now: () => number;
  http?: Partial<PlatformHttpDeps>;
}

/** Google's error body: `{"error": {"code": 403, "status": "PERMISSION_DENIED", "message": "…"}}`. */
function describeReply(reply: PlatformReply): string {
  const status = (reply.body as { error?: { status?: unknown } } | undefined)?.error?.status;
  return typeof status === "string" ? status : `HTTP ${reply.status}`;
}

/** The key in the secret, checked field by field; its problem names the variable, never the key. */
export function parseServiceAccountKey(text: string): ServiceAccountKey {
  const problem = serviceAccountKeyProblem(text);
  if (problem !== undefined) throw new ConfigError(`GOOGLE_CHAT_SERVICE_ACCOUNT ${problem}.`);
  return JSON.parse(text) as ServiceAccountKey;
}

/** @example const api = createGchatApi({ apiBase, tokenUrl, serviceAccount: secret("gchat/service-account"), now }); */
export function createGchatApi(options: GchatApiOptions): GchatApi {
  const { now } = options;
  const base = options.apiBase.replace(/\/+$/, "");
  const http = createPlatformHttp(
    {
      platform: "gchat",
      retryAfterMs: (reply, nowMs) => retryAfterHeaderMs(reply.headers, nowMs),
      describe: describeReply,
    },
    { now, ...options.http },
  );
  // The key is read when a token is first needed (the secret store caches it), so a rotated key is used
  // from the next token on.
  const token = createCachedToken(
    async () =>
      requestServiceAccountToken(
        parseServiceAccountKey(await options.serviceAccount()),
        options.tokenUrl,
        now(),
      ),
    now,
  );

  async function call(
    verb: "GET" | "POST" | "PATCH",
    path: string,
    name: string,
    body?: unknown,
  ): Promise<unknown> {
    const bearer = await token.get();
    try {
      const reply = await http.send({
        name,
        method: verb,
        url: `${base}/v1/${path}`,
        headers: { authorization: `Bearer ${bearer}`, accept: "application/json" },
        ...(body !== undefined && { body }),
        // A new message sent twice shows twice; writing a message over with the same content does not.
        idempotent: verb !== "POST",
      });
      return reply.body;
    } catch (error) {
      // A refused token (a key revoked or rotated) is not kept for the next call.
      if (error instanceof PlatformApiError && error.status === 401) token.forget();
      throw error;
    }
  }

  async function readSpace(path: string, name: string): Promise<GchatSpace> {
    const parsed = spaceSchema.safeParse(await call("GET", path, name));
    if (!parsed.success) throw new PlatformApiError("gchat", name, 200, "the response is not a space");
    return parsed.data;
  }

  return {
    async send(space, message, thread) {
      if (!SPACE_NAME.test(space)) throw new Error("the target's chatId is not a space (spaces/<id>)");
      const name = "POST /v1/{space}/messages";
      const query = thread === undefined ? "" : "?messageReplyOption=REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD";
      const body = thread === undefined ? message : { ...message, thread: { name: thread } };
      const created = createdSchema.safeParse(await call("POST", `${space}/messages${query}`, name, body));
      if (!created.success) throw new PlatformApiError("gchat", name, 200, "the response names no message");
      const threadName = created.data.thread?.name;
      return { name: created.data.name, ...(threadName !== undefined && { thread: threadName }) };
    },
    async update(messageName, message) {
      if (!MESSAGE_NAME.test(messageName)) throw new Error("not a Google Chat message name");
      await call("PATCH", `${messageName}?updateMask=cardsV2,text`, "PATCH /v1/{message}", {
        text: "",
        cardsV2: [],
        ...message,
      });
    },
    space(space) {
      if (!SPACE_NAME.test(space)) return Promise.reject(new Error("not a Google Chat space name"));
      return readSpace(space, "GET /v1/{space}");
    },
    directMessageWith(user) {
      return readSpace(
        `spaces:findDirectMessage?name=${encodeURIComponent(user)}`,
        "GET /v1/spaces:findDirectMessage",
      );
    },
  };
}
