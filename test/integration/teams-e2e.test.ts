/**
 * Microsoft Teams on the local stack: what only the real wiring proves — an agent run asks, the card is
 * delivered, an activity with a token signed as the Bot Framework signs it answers, the Step Functions run
 * resumes and the table's stream retires the card; the same activity sent again is settled by DynamoDB's
 * conditional writes. A fake Bot Connector and token endpoint (one fake server), and the Bot Framework's
 * OpenID metadata and key set served from this test with keys made here. The rest of Teams' behaviour runs
 * in process: teams.test.ts.
 */
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { StartExecutionCommand } from "@aws-sdk/client-sfn";
import { SignJWT } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type FakePlatform,
  type FakeReply,
  type RecordedCall,
  startFakePlatform,
} from "./support/fake-platform.ts";
import { singleQuestion as single, unique } from "./support/sample-questions.ts";
import { replyOf, startTestStack, type TestStack, waitFor } from "./support/test-stack.ts";

const APP_ID = "7d3b1a2c-0f4e-4b6a-9c8d-112233445566";
const TENANT_ID = "72f988bf-86f1-41af-91ab-2d7cd011db47";
const APP_PASSWORD = "teams-app-password-for-tests~0123";
const OWNER_AAD = "7faf8ab2-3d56-4244-b585-20c8a42ed2b8";
const OTHER_AAD = "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0";
const ISSUER = "https://api.botframework.com";
const BOT_ID = `28:${APP_ID}`;

let stack: TestStack;
/** The Bot Connector and the identity platform's token endpoint. */
let connector: FakePlatform;
/** The Bot Framework's OpenID metadata and key set. */
let keyServer: FakePlatform;
/** The service URL of this test's conversations (the fake, so calls reach it). */
let SERVICE_URL = "";
let conversation = "";
let conversations = 0;
let activityIds = 0;
/** The Bot Framework's metadata endpoint and key set answer 503 while this is set. */
let keysDown = false;

const keyPair = () => generateKeyPairSync("rsa", { modulusLength: 2048 });
/** In the key set, endorsed for msteams. */
const signing = keyPair();
/** In the key set, but endorsed for another channel only. */
const otherChannelKey = keyPair();

beforeAll(async () => {
  // Refused like the Bot Connector past a message's size: every test here runs within it.
  connector = await startFakePlatform((call) => connectorReply(call), { limits: "teams" });
  keyServer = await startFakePlatform((call) => {
    if (keysDown) return { status: 503, body: { error: "temporarily unavailable" } };
    if (call.path === "/v1/.well-known/openidconfiguration") {
      return {
        body: {
          issuer: ISSUER,
          jwks_uri: `${keyServer.url}/v1/.well-known/keys`,
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
  });
  SERVICE_URL = `${connector.url}/amer/`;
  stack = await startTestStack({
    TEAMS_APP_PASSWORD: APP_PASSWORD,
    TEAMS_APP_ID: APP_ID,
    TEAMS_TENANT_ID: TENANT_ID,
    TEAMS_API_BASE: `${connector.url}/teams/`,
    TEAMS_LOGIN_BASE: connector.url,
    TEAMS_OPENID_METADATA_URL: `${keyServer.url}/v1/.well-known/openidconfiguration`,
  });
});
afterAll(async () => {
  await stack?.stop();
  await connector?.stop();
  await keyServer?.stop();
});
beforeEach(() => {
  keysDown = false;
  connector.calls.length = 0;
  conversation = `a:1conv${String(++conversations).padStart(4, "0")}`;
});

/** A person in a conversation's roster, as the Bot Connector lists one. */
const member = (aad: string) => ({ id: `29:user-${aad}`, name: "Megan Bowen", aadObjectId: aad });
/**
 * A conversation's roster (`GET …/members`), when a test sets one: otherwise a personal chat (`a:…`) holds
 * the owner alone, and any other conversation the owner and someone else.
 */
const rosterReplies = new Map<string, FakeReply>();

let posted = 0;
function connectorReply(call: RecordedCall) {
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

const cardPosts = () => connector.calls.filter((c) => c.verb === "POST" && c.path.endsWith("/activities"));
const cardUpdates = () => connector.calls.filter((c) => c.verb === "PUT");
/** Replies to an activity (notices): POST …/activities/{id}. */
const replies = () => connector.calls.filter((c) => c.verb === "POST" && /\/activities\/[^/]+$/.test(c.path));

async function startRun(
  questions: unknown[],
  target: Record<string, string> = {},
  reply = "{{c1.status}}|{{c1.reason}}|{{c1.deploy_target}}{{c1.checks}}|{{c1.release_note}}",
) {
  const sessionKey = unique("teams");
  const before = cardPosts().length;
  const { executionArn } = await stack.sfn.send(
    new StartExecutionCommand({
      stateMachineArn: stack.stateMachineArns.agent,
      input: JSON.stringify({
        sessionKey,
        owner: `teams:${OWNER_AAD}`,
        deliverTo: [{ channel: "teams", chatId: conversation, serviceUrl: SERVICE_URL, ...target }],
        prompt: "test",
        model: {
          provider: "scripted",
          steps: [{ toolCalls: [{ id: "c1", name: "ask_user", arguments: { questions } }] }, { reply }],
        },
      }),
    }),
  );
  const post = await waitFor(async () => cardPosts()[before], { what: "the card posted to Teams" });
  const questionId = (await stack.api("GET", `/questions?sessionKey=${sessionKey}`)).body.questions[0]
    .id as string;
  const record = await waitFor(
    async () => {
      const question = (await stack.api("GET", `/questions/${questionId}`)).body.question;
      return question.deliveries[0]?.messageId ? question : undefined;
    },
    { what: "the posted card recorded on the question" },
  );
  return {
    executionArn: executionArn as string,
    post,
    questionId,
    cardId: record.deliveries[0].messageId as string,
  };
}

// ── Activities, as the Bot Framework sends them ─────────────────────────────────────────────────────

interface TokenOptions {
  key?: KeyObject;
  kid?: string;
  alg?: string;
  aud?: string;
  iss?: string;
  serviceUrl?: string;
  /** Seconds from now. */
  exp?: number;
}

async function token(options: TokenOptions = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ serviceurl: options.serviceUrl ?? SERVICE_URL })
    .setProtectedHeader({ alg: options.alg ?? "RS256", kid: options.kid ?? "k1", typ: "JWT" })
    .setIssuer(options.iss ?? ISSUER)
    .setAudience(options.aud ?? APP_ID)
    .setIssuedAt(now - 10)
    .setNotBefore(now - 10)
    .setExpirationTime(now + (options.exp ?? 300))
    .sign(options.key ?? signing.privateKey);
}

function activity(fields: Record<string, unknown>, from = OWNER_AAD) {
  return {
    type: "message",
    id: `1700000100${String(++activityIds).padStart(4, "0")}`,
    timestamp: new Date().toISOString(),
    serviceUrl: SERVICE_URL,
    channelId: "msteams",
    from: { id: `29:user-${from}`, name: "Megan Bowen", aadObjectId: from },
    conversation: { conversationType: "personal", id: conversation, tenantId: TENANT_ID },
    recipient: { id: BOT_ID, name: "Handraise" },
    channelData: { tenant: { id: TENANT_ID } },
    ...fields,
  };
}

async function send(body: unknown, authorization?: string | null) {
  const auth = authorization === undefined ? `Bearer ${await token()}` : authorization;
  const response = await fetch(`${stack.httpUrl}/webhooks/teams`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(auth !== null && { authorization: auth }) },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

/** A tap on a card's `Action.Submit`: its data (a control-codec.ts string) merged with the card's inputs. */
const tap = (cardId: string, control: string, inputs: Record<string, string> = {}, from?: string) =>
  activity({ replyToId: cardId, value: { handraise: control, ...inputs } }, from);
const codec = (kind: string, step: number, option: number, questionId: string) =>
  `${kind}|${step}|${option}|${questionId}`;

const cardOf = (call: RecordedCall) => call.body.attachments[0].content;
const texts = (card: any): string[] => JSON.stringify(card).match(/"text":"[^"]*"/g) ?? [];
describe("Teams: answering", () => {
  it("a tap on an option resumes the run, and the card is replaced with the outcome, without controls", async () => {
    const { questionId, cardId, executionArn } = await startRun([single]);
    const sent = await send(tap(cardId, codec("o", 0, 1, questionId)));
    expect(sent).toEqual({ status: 200, text: "" });
    expect(await replyOf(stack, executionArn)).toBe("answered||Production|");
    const update = await waitFor(async () => cardUpdates()[0], { what: "the card updated" });
    expect(update.path).toBe(
      `/amer/v3/conversations/${encodeURIComponent(conversation)}/activities/${encodeURIComponent(cardId)}`,
    );
    expect(update.body.id).toBe(cardId);
    const card = cardOf(update);
    expect(card.actions).toBeUndefined();
    expect(JSON.stringify(card)).not.toMatch(/Input\.|Action\./);
    expect(texts(card)).toContain('"text":"Answered — Deploy to: Production"');
    // The owner is the person's Entra object id.
    expect((await stack.api("GET", `/questions/${questionId}`)).body.question.resolvedBy).toBe(
      `teams:${OWNER_AAD}`,
    );
  });

  it("the same activity sent again changes nothing and gets no second notice", async () => {
    const { questionId, cardId, executionArn } = await startRun([single]);
    const body = tap(cardId, codec("o", 0, 1, questionId));
    expect((await send(body)).status).toBe(200);
    expect((await send(body)).status).toBe(200);
    expect(await replyOf(stack, executionArn)).toBe("answered||Production|");
    expect(replies()).toEqual([]);
  });
});
