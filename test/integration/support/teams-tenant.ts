/**
 * A Microsoft Teams tenant as the bot sees it, for the Teams tests in process (teams.test.ts) and on the local
 * stack (teams-e2e.test.ts): what the fake Bot Connector and token endpoint answer (rosters included), the
 * Bot Framework's OpenID metadata and key set with keys made here, and the activities the Bot Framework sends
 * the webhook with a token this module signed — valid, or wrong in exactly one way — dated by the clock the
 * test gives.
 */
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { SignJWT } from "jose";
import type { FakeReply, RecordedCall } from "./fake-platform.ts";

export const APP_ID = "7d3b1a2c-0f4e-4b6a-9c8d-112233445566";
export const TENANT_ID = "72f988bf-86f1-41af-91ab-2d7cd011db47";
export const APP_PASSWORD = "teams-app-password-for-tests~0123";
export const OWNER_AAD = "7faf8ab2-3d56-4244-b585-20c8a42ed2b8";
export const OTHER_AAD = "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0";
export const ISSUER = "https://api.botframework.com";
export const BOT_ID = `28:${APP_ID}`;

const keyPair = () => generateKeyPairSync("rsa", { modulusLength: 2048 });
/** In the key set, endorsed for msteams. */
export const signing = keyPair();
/** In the key set, but endorsed for another channel only. */
export const otherChannelKey = keyPair();
/** Not in the key set at all. */
export const strangerKey = keyPair();

/** A person in a conversation's roster, as the Bot Connector lists one. */
export const member = (aad: string) => ({ id: `29:user-${aad}`, name: "Megan Bowen", aadObjectId: aad });

/** A card's control: the control codec's string. */
export const codec = (kind: string, step: number, option: number, questionId: string) =>
  `${kind}|${step}|${option}|${questionId}`;
export const cardOf = (call: RecordedCall) => call.body.attachments[0].content;
export const texts = (card: any): string[] => JSON.stringify(card).match(/"text":"[^"]*"/g) ?? [];

export interface TokenOptions {
  key?: KeyObject;
  kid?: string;
  alg?: string;
  aud?: string;
  iss?: string;
  serviceUrl?: string;
  /** Seconds from now. */
  exp?: number;
}

export interface TeamsTenantOptions {
  /** The conversation an activity is in (each test talks in one of its own). */
  conversation: () => string;
  /** The service URL of the test's conversations (the fake connector's, so calls reach it). */
  serviceUrl: () => string;
  /** Where the key server is, for the metadata to name its key set. */
  keyServerUrl: () => string;
  /** The metadata endpoint and key set answer 503 while this says so. */
  keysDown: () => boolean;
  /** Epoch ms: the clock tokens and activities are dated by. */
  now: () => number;
  /** Delivers a request to the stack's Teams webhook. */
  post: (body: string, headers: Record<string, string>) => Promise<{ status: number; text: string }>;
}

export function teamsTenant(options: TeamsTenantOptions) {
  let posted = 0;
  let activityIds = 0;
  /**
   * A conversation's roster (`GET …/members`), when a test sets one: otherwise a personal chat (`a:…`) holds
   * the owner alone, and any other conversation the owner and someone else.
   */
  const rosterReplies = new Map<string, FakeReply>();

  /** What the Bot Connector and the identity platform's token endpoint answer. */
  function connectorReply(call: RecordedCall): FakeReply {
    if (call.path === `/${TENANT_ID}/oauth2/v2.0/token`) {
      return { body: { token_type: "Bearer", expires_in: 3599, access_token: "app-token-from-the-fake" } };
    }
    if (call.verb === "POST" && /\/v3\/conversations\/[^/]+\/activities$/.test(call.path)) {
      return { status: 201, body: { id: `1700000000${String(++posted).padStart(3, "0")}` } };
    }
    const roster = /\/v3\/conversations\/([^/]+)\/members$/.exec(call.path);
    if (call.verb === "GET" && roster?.[1]) {
      const id = decodeURIComponent(roster[1]);
      const people = id.startsWith("a:") ? [member(OWNER_AAD)] : [member(OWNER_AAD), member(OTHER_AAD)];
      return rosterReplies.get(id) ?? { body: [{ id: BOT_ID, name: "Handraise" }, ...people] };
    }
    if (/\/v3\/conversations\/[^/]+\/activities\/[^/]+$/.test(call.path)) {
      return { body: { id: call.path.split("/").pop() } };
    }
    return { status: 404, body: { error: { code: "NotFound" } } };
  }

  /** What the Bot Framework's OpenID metadata endpoint and key set answer. */
  function keyServerReply(call: RecordedCall): FakeReply {
    if (options.keysDown()) return { status: 503, body: { error: "temporarily unavailable" } };
    if (call.path === "/v1/.well-known/openidconfiguration") {
      return {
        body: {
          issuer: ISSUER,
          jwks_uri: `${options.keyServerUrl()}/v1/.well-known/keys`,
          id_token_signing_alg_values_supported: ["RS256"],
        },
      };
    }
    if (call.path === "/v1/.well-known/keys") {
      const jwk = (key: KeyObject, kid: string, endorsements: string[]) => ({
        ...key.export({ format: "jwk" }),
        kid,
        use: "sig",
        endorsements,
      });
      return {
        body: {
          keys: [
            jwk(signing.publicKey, "k1", ["msteams", "webchat"]),
            jwk(otherChannelKey.publicKey, "k-webchat", ["webchat"]),
          ],
        },
      };
    }
    return { status: 404, body: {} };
  }

  // ── Activities, as the Bot Framework sends them ───────────────────────────────────────────────────

  async function token(tokenOptions: TokenOptions = {}): Promise<string> {
    const now = Math.floor(options.now() / 1000);
    return new SignJWT({ serviceurl: tokenOptions.serviceUrl ?? options.serviceUrl() })
      .setProtectedHeader({ alg: tokenOptions.alg ?? "RS256", kid: tokenOptions.kid ?? "k1", typ: "JWT" })
      .setIssuer(tokenOptions.iss ?? ISSUER)
      .setAudience(tokenOptions.aud ?? APP_ID)
      .setIssuedAt(now - 10)
      .setNotBefore(now - 10)
      .setExpirationTime(now + (tokenOptions.exp ?? 300))
      .sign(tokenOptions.key ?? signing.privateKey);
  }

  function activity(fields: Record<string, unknown>, from = OWNER_AAD) {
    return {
      type: "message",
      id: `1700000100${String(++activityIds).padStart(4, "0")}`,
      timestamp: new Date(options.now()).toISOString(),
      serviceUrl: options.serviceUrl(),
      channelId: "msteams",
      from: { id: `29:user-${from}`, name: "Megan Bowen", aadObjectId: from },
      conversation: { conversationType: "personal", id: options.conversation(), tenantId: TENANT_ID },
      recipient: { id: BOT_ID, name: "Handraise" },
      channelData: { tenant: { id: TENANT_ID } },
      ...fields,
    };
  }

  /** `authorization`: default a valid token; `null` sends no Authorization header. */
  async function send(body: unknown, authorization?: string | null) {
    const auth = authorization === undefined ? `Bearer ${await token()}` : authorization;
    const response = await options.post(JSON.stringify(body), {
      "content-type": "application/json",
      ...(auth !== null && { authorization: auth }),
    });
    return { status: response.status, text: response.text };
  }

  /** A tap on a card's `Action.Submit`: its data (a control-codec.ts string) merged with the card's inputs. */
  const tap = (cardId: string, control: string, inputs: Record<string, string> = {}, from?: string) =>
    activity({ replyToId: cardId, value: { handraise: control, ...inputs } }, from);

  return { rosterReplies, connectorReply, keyServerReply, token, activity, send, tap };
}
