/**
 * Microsoft Teams on the local stack: what only the real wiring proves — an agent run asks, the card is
 * delivered, an activity with a token signed as the Bot Framework signs it answers, the Step Functions run
 * resumes and the table's stream retires the card; the same activity sent again is settled by DynamoDB's
 * conditional writes; the tenant, its fakes and its tokens are support/teams-tenant.ts. The rest of Teams'
 * behaviour runs in process: teams.test.ts.
 */
import { StartExecutionCommand } from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakePlatform, startFakePlatform } from "./support/fake-platform.ts";
import { singleQuestion as single, unique } from "./support/sample-questions.ts";
import {
  APP_ID,
  APP_PASSWORD,
  cardOf,
  codec,
  OWNER_AAD,
  TENANT_ID,
  teamsTenant,
  texts,
} from "./support/teams-tenant.ts";
import { replyOf, startTestStack, type TestStack, waitFor } from "./support/test-stack.ts";

let stack: TestStack;
/** The Bot Connector and the identity platform's token endpoint. */
let connector: FakePlatform;
/** The Bot Framework's OpenID metadata and key set. */
let keyServer: FakePlatform;
/** The service URL of this test's conversations (the fake, so calls reach it). */
let SERVICE_URL = "";
let conversation = "";
let conversations = 0;

const tenant = teamsTenant({
  conversation: () => conversation,
  serviceUrl: () => SERVICE_URL,
  keyServerUrl: () => keyServer.url,
  keysDown: () => false,
  now: Date.now,
  post: async (body, headers) => {
    const response = await fetch(`${stack.httpUrl}/webhooks/teams`, { method: "POST", headers, body });
    return { status: response.status, text: await response.text() };
  },
});
const { send, tap } = tenant;

beforeAll(async () => {
  // Refused like the Bot Connector past a message's size: every test here runs within it.
  connector = await startFakePlatform(tenant.connectorReply, { limits: "teams" });
  keyServer = await startFakePlatform(tenant.keyServerReply);
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
  connector.calls.length = 0;
  conversation = `a:1conv${String(++conversations).padStart(4, "0")}`;
});

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
