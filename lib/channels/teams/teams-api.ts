import type { SecretValue } from "../../secrets/secrets.ts";
import * as z from "../../zod.ts";
import { createCachedToken, type IssuedToken, requestOAuthToken } from "../cached-token.ts";
import { PlatformApiError } from "../platform-api-error.ts";
import {
  createPlatformHttp,
  type PlatformHttpDeps,
  type PlatformReply,
  retryAfterHeaderMs,
} from "../platform-http.ts";

/** What the bot posts: a message activity (text, or an Adaptive Card attachment). */
export interface TeamsActivity {
  type: "message";
  text?: string;
  attachments?: { contentType: string; content: unknown }[];
}

/** A member of a conversation, as the Bot Connector lists it (the fields Handraise reads). */
export interface TeamsMember {
  /** The account's id in the conversation: `29:…` for a person, `28:<app id>` for a bot. */
  id: string;
  /** A person's Entra object id. */
  aadObjectId?: string | undefined;
}

const membersSchema = z.array(z.looseObject({ id: z.string(), aadObjectId: z.optional(z.string()) }));

/** The Bot Connector REST calls Handraise makes, each at the service URL of the conversation. */
export interface TeamsApi {
  /** A new message in the conversation; resolves with the new activity's id. */
  send(serviceUrl: string, conversationId: string, activity: TeamsActivity): Promise<{ id: string }>;
  /** A reply to an activity of the conversation (in a channel, in that activity's thread). */
  reply(
    serviceUrl: string,
    conversationId: string,
    activityId: string,
    activity: TeamsActivity,
  ): Promise<void>;
  /** Replaces a message the bot posted (a card without its controls, once the question has ended). */
  update(
    serviceUrl: string,
    conversationId: string,
    activityId: string,
    activity: TeamsActivity,
  ): Promise<void>;
  /** Who is in the conversation (`GET /v3/conversations/{id}/members`). */
  members(serviceUrl: string, conversationId: string): Promise<TeamsMember[]>;
}

export interface TeamsApiOptions {
  appId: string;
  appPassword: SecretValue;
  /** `<login base>/<tenant>/oauth2/v2.0/token`: the Microsoft identity platform's token endpoint. */
  tokenUrl: string;
  now: () => number;
  /** Overrides of the HTTP client's parts (tests). */
  http?: Partial<PlatformHttpDeps>;
}

/** The scope of a token for the Bot Connector (client-credentials grant of the v2 endpoint). */
const BOT_CONNECTOR_SCOPE = "https://api.botframework.com/.default";
/**
 * A token is used until this long before it expires: a call started just before the expiry must not reach
 * the Bot Connector with a token that has run out on the way.
 */
const TOKEN_EARLY_MS = 5 * 60 * 1000;

export const teamsTokenUrl = (loginBase: string, tenantId: string) =>
  `${loginBase.replace(/\/+$/, "")}/${encodeURIComponent(tenantId)}/oauth2/v2.0/token`;

/** The Bot Connector's error body: `{"error": {"code": "…", "message": "…"}}`; its code says what failed. */
function describeReply(reply: PlatformReply): string {
  const code = (reply.body as { error?: { code?: unknown } } | undefined)?.error?.code;
  return typeof code === "string" ? code : `HTTP ${reply.status}`;
}

/**
 * One app token from the client-credentials grant at `tokenUrl`, and how long it lasts (0 when the answer
 * does not say). What the API client below caches, and what `npm run doctor` asks for to prove the app's
 * id, tenant and password belong together.
 *
 * @throws PlatformApiError naming the identity platform's error code (`invalid_client`, …), never a secret.
 */
export function requestTeamsAppToken(
  options: Pick<TeamsApiOptions, "appId" | "appPassword" | "tokenUrl">,
): Promise<IssuedToken> {
  return options.appPassword().then((password) =>
    requestOAuthToken(
      "teams",
      options.tokenUrl,
      new URLSearchParams({
        grant_type: "client_credentials",
        client_id: options.appId,
        client_secret: password,
        scope: BOT_CONNECTOR_SCOPE,
      }),
    ),
  );
}

/**
 * The Bot Connector REST API (`{serviceUrl}/v3/conversations/{id}/activities…`), with an app token from the
 * client-credentials grant, kept per process until shortly before it expires (a cold process asks once,
 * however many calls it makes). Calls go through the one platform client (deadlines, retries, a 429's
 * `Retry-After`); a new message is the one call not sent twice. Any non-2xx answer or a timeout is a
 * PlatformApiError naming the call, never the token or the password.
 */
export function createTeamsApi(options: TeamsApiOptions): TeamsApi {
  const { now } = options;
  const http = createPlatformHttp(
    {
      platform: "teams",
      retryAfterMs: (reply, nowMs) => retryAfterHeaderMs(reply.headers, nowMs),
      describe: describeReply,
    },
    { now, ...options.http },
  );
  const appToken = createCachedToken(() => requestTeamsAppToken(options), now, TOKEN_EARLY_MS);

  async function call<T>(
    verb: "GET" | "POST" | "PUT",
    serviceUrl: string,
    path: string,
    name: string,
    body?: unknown,
  ): Promise<T | undefined> {
    const bearer = await appToken.get();
    try {
      const reply = await http.send({
        name,
        method: verb,
        url: `${serviceUrl.replace(/\/+$/, "")}/v3/conversations/${path}`,
        headers: { authorization: `Bearer ${bearer}`, accept: "application/json" },
        ...(body !== undefined && { body }),
        // A new message or reply sent twice shows twice; replacing a card with the same card does not.
        idempotent: verb !== "POST",
      });
      return reply.body as T | undefined;
    } catch (error) {
      // A refused token (a rotated password) is not kept for the next call.
      if (error instanceof PlatformApiError && error.status === 401) appToken.forget();
      throw error;
    }
  }

  const activities = (conversationId: string) => `${encodeURIComponent(conversationId)}/activities`;

  return {
    async send(serviceUrl, conversationId, activity) {
      const name = "POST /v3/conversations/{id}/activities";
      const created = await call<{ id?: unknown }>(
        "POST",
        serviceUrl,
        activities(conversationId),
        name,
        activity,
      );
      if (typeof created?.id !== "string" || created.id === "") {
        throw new PlatformApiError("teams", name, 200, "the response has no activity id");
      }
      return { id: created.id };
    },
    async reply(serviceUrl, conversationId, activityId, activity) {
      const path = `${activities(conversationId)}/${encodeURIComponent(activityId)}`;
      await call("POST", serviceUrl, path, "POST /v3/conversations/{id}/activities/{id}", {
        ...activity,
        replyToId: activityId,
      });
    },
    async update(serviceUrl, conversationId, activityId, activity) {
      const path = `${activities(conversationId)}/${encodeURIComponent(activityId)}`;
      await call("PUT", serviceUrl, path, "PUT /v3/conversations/{id}/activities/{id}", {
        ...activity,
        id: activityId,
      });
    },
    async members(serviceUrl, conversationId) {
      const name = "GET /v3/conversations/{id}/members";
      const path = `${encodeURIComponent(conversationId)}/members`;
      const listed = membersSchema.safeParse(await call<unknown>("GET", serviceUrl, path, name));
      if (!listed.success)
        throw new PlatformApiError("teams", name, 200, "the response is not a member list");
      return listed.data;
    },
  };
}
