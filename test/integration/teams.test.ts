/**
 * Microsoft Teams' behaviour, with the handlers in process (test/support/in-process-stack.ts): a fake Bot
 * Connector and a fake token endpoint (one fake server), and the Bot Framework's OpenID metadata and key set
 * with keys made in support/teams-tenant.ts, so every token the webhook sees is one the test signed — valid,
 * or wrong in exactly one way — dated by the stack's clock. What only the real wiring proves (a run resumed
 * through Step Functions, the same activity settled by conditional writes) is in teams-e2e.test.ts.
 */
import { SignJWT } from "jose";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { replies as replyCatalog } from "#lib/channels/replies.ts";
import { MAX_ANSWER_VALUE_UNITS } from "#lib/questions/schema.ts";
import {
  type InProcessRun,
  type InProcessStack,
  runResult,
  startInProcessStack,
} from "../support/in-process-stack.ts";
import { largestArgs, largestContext, textOf } from "../support/largest-questions.ts";
import { teamsProblems } from "../support/platform-sizes.ts";
import {
  type FakePlatform,
  type FakeReply,
  type RecordedCall,
  startFakePlatform,
} from "./support/fake-platform.ts";
import { linkPath } from "./support/link-answer.ts";
import {
  multiQuestion as multi,
  noteQuestion as note,
  singleQuestion as single,
  unique,
} from "./support/sample-questions.ts";
import {
  APP_ID,
  APP_PASSWORD,
  cardOf,
  codec,
  ISSUER,
  member,
  OTHER_AAD,
  OWNER_AAD,
  otherChannelKey,
  signing,
  strangerKey,
  TENANT_ID,
  teamsTenant,
  texts,
} from "./support/teams-tenant.ts";

/** The deployment's public URL, which answer links name. */
const PUBLIC_URL = "https://handraise.test";

let stack: InProcessStack;
/** The Bot Connector and the identity platform's token endpoint. */
let connector: FakePlatform;
/** The Bot Framework's OpenID metadata and key set. */
let keyServer: FakePlatform;
/** The service URL of this test's conversations (the fake, so calls reach it). */
let SERVICE_URL = "";
let conversation = "";
let conversations = 0;
/** The Bot Framework's metadata endpoint and key set answer 503 while this is set. */
let keysDown = false;

const tenant = teamsTenant({
  conversation: () => conversation,
  serviceUrl: () => SERVICE_URL,
  keyServerUrl: () => keyServer.url,
  keysDown: () => keysDown,
  now: () => stack.clock.now(),
  post: async (body, headers) => stack.request("POST", "/webhooks/teams", { headers, body }),
});
const { rosterReplies, token, activity, send, tap } = tenant;

beforeAll(async () => {
  // Refused like the Bot Connector past a message's size: every test here runs within it.
  connector = await startFakePlatform(tenant.connectorReply, { limits: "teams" });
  keyServer = await startFakePlatform(tenant.keyServerReply);
  SERVICE_URL = `${connector.url}/amer/`;
  stack = await startInProcessStack({
    HANDRAISE_PUBLIC_URL: PUBLIC_URL,
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
// What a test's last change set going (a card retired) ends before the next test counts the calls.
afterEach(() => stack.settled());

const tokenCalls = () => connector.calls.filter((c) => c.path.endsWith("/oauth2/v2.0/token"));
const cardPosts = () => connector.calls.filter((c) => c.verb === "POST" && c.path.endsWith("/activities"));
const cardUpdates = () => connector.calls.filter((c) => c.verb === "PUT");
/** Updates of one card: an earlier test's cards may still be retired in the background. */
const updatesOf = (cardId: string) =>
  cardUpdates().filter((c) => c.path.endsWith(`/activities/${encodeURIComponent(cardId)}`));
/** Replies to an activity (notices): POST …/activities/{id}. */
const replies = () => connector.calls.filter((c) => c.verb === "POST" && /\/activities\/[^/]+$/.test(c.path));

/** The run's reply for the 3-question prompt: each answer in its own field. */
const STEPPED_REPLY = "{{c1.status}}|{{c1.deploy_target}}|{{c1.checks}}|{{c1.release_note}}";

async function startRun(
  questions: unknown[],
  target: Record<string, string> = {},
  reply = "{{c1.status}}|{{c1.reason}}|{{c1.deploy_target}}{{c1.checks}}|{{c1.release_note}}",
) {
  const sessionKey = unique("teams");
  const before = cardPosts().length;
  // A Teams target carries the conversation's service URL besides its id.
  const delivery = { channel: "teams", chatId: conversation, serviceUrl: SERVICE_URL, ...target };
  // The run's AskUser task: the ask handler posts the card and records it before it returns.
  const run = await stack.ask({
    sessionKey,
    owner: `teams:${OWNER_AAD}`,
    deliverTo: [delivery],
    questions,
  });
  replyTemplates.set(run, reply);
  const post = cardPosts()[before];
  if (!post) throw new Error("the card was not posted to Teams");
  const questionId = (await stack.api("GET", `/questions?sessionKey=${sessionKey}`)).body.questions[0]
    .id as string;
  expect(questionId).toBe(run.questionId);
  const cardId = (await stack.api("GET", `/questions/${questionId}`)).body.question.deliveries[0]?.messageId;
  expect(cardId).toEqual(expect.any(String));
  return { run, post, questionId, cardId: cardId as string };
}

/** Each run's reply template. */
const replyTemplates = new WeakMap<InProcessRun, string>();
/** The reply the scripted run ends with (its template's `{{c1.<field>}}`), from what its AskUser task received. */
async function replyOf(run: InProcessRun): Promise<string> {
  const result = runResult(await run.result());
  return (replyTemplates.get(run) ?? "").replace(/\{\{c1\.(\w+)\}\}/g, (_match, field: string) => {
    if (field === "status") return result.status;
    if (field === "reason") return result.reason ?? "";
    return (result.answers?.[field] ?? []).join(",");
  });
}
const statusOf = async (questionId: string) =>
  (await stack.api("GET", `/questions/${questionId}`)).body.question.status as string;
/** What `find` sees once every change so far has been through the stream consumer (`what` names it if nothing). */
async function afterSettled<T>(find: () => Promise<T | undefined>, options: { what: string }): Promise<T> {
  await stack.settled();
  const found = await find();
  if (found === undefined) throw new Error(`${options.what}: not there`);
  return found;
}

// First in the file: the handler's process holds no Bot Framework keys until a token is checked, so only here
// is the key cache cold; the second test relies on the keys the first one fetched.
describe("Teams: the Bot Framework's key set", () => {
  it("while the OpenID metadata cannot be fetched, answers 503 and changes nothing; the retry is handled", async () => {
    const { questionId, cardId, run } = await startRun([single]);
    const body = tap(cardId, codec("o", 0, 1, questionId));
    const claims = await teamsClaims();
    keysDown = true;
    const sent = await send(body);
    expect(sent.status).toBe(503);
    expect(JSON.parse(sent.text).error.code).toBe("KEYS_UNAVAILABLE");
    expect(keyServer.calls.at(-1)?.path).toBe("/v1/.well-known/openidconfiguration");
    expect(await statusOf(questionId)).toBe("pending");
    expect(await teamsClaims()).toBe(claims);
    expect(replies()).toEqual([]);
    // The Bot Framework sends it again once the keys can be read: handled as the first time.
    keysDown = false;
    expect((await send(body)).status).toBe(200);
    expect(await replyOf(run)).toBe("answered||Production|");
  });

  it("keeps verifying with the keys it holds while a refresh fails; an unknown key id asks once", async () => {
    const { questionId, cardId, run } = await startRun([single]);
    keysDown = true;
    const fetchesBefore = keyServer.calls.length;
    // A key id not seen yet may be a rolled-over key: the one refresh it asks for fails, so "try again".
    const rolled = `Bearer ${await token({ key: strangerKey.privateKey, kid: "k-rolled" })}`;
    const skip = await send(tap(cardId, codec("s", 0, 0, questionId)), rolled);
    expect(skip.status).toBe(503);
    expect(keyServer.calls.length).toBe(fetchesBefore + 1);
    expect(await statusOf(questionId)).toBe("pending");
    // The keys fetched before still verify a token they signed, with the endpoint still down.
    expect((await send(tap(cardId, codec("o", 0, 1, questionId)))).status).toBe(200);
    expect(await replyOf(run)).toBe("answered||Production|");
    // Another unknown key id right after: no second fetch (rate-limited), refused.
    const another = `Bearer ${await token({ key: strangerKey.privateKey, kid: "k-other" })}`;
    expect((await send(activity({ text: "1" }), another)).status).toBe(401);
    expect(keyServer.calls.length).toBe(fetchesBefore + 1);
  });
});

describe("Teams: the question card", () => {
  it("is an Adaptive Card with a button per option, an own-answer box, Send and Skip", async () => {
    const { post, questionId, run } = await startRun([single]);
    expect(post.path).toBe(`/amer/v3/conversations/${encodeURIComponent(conversation)}/activities`);
    expect(post.headers.authorization).toBe("Bearer app-token-from-the-fake");
    expect(post.body.type).toBe("message");
    expect(post.body.attachments[0].contentType).toBe("application/vnd.microsoft.card.adaptive");
    const card = cardOf(post);
    expect(card).toMatchObject({ type: "AdaptiveCard", version: "1.5" });
    const buttons = card.body.find((e: any) => e.type === "ActionSet").actions;
    // The data is the one control codec's string; an option's tap sends none of the card's inputs.
    expect(buttons).toEqual([
      {
        type: "Action.Submit",
        title: "Staging (Recommended)",
        data: { handraise: `o|0|0|${questionId}` },
        associatedInputs: "none",
      },
      {
        type: "Action.Submit",
        title: "Production",
        data: { handraise: `o|0|1|${questionId}` },
        associatedInputs: "none",
      },
    ]);
    // One question: no progress line.
    expect(texts(card)).not.toContain('"text":"1 of 1"');
    expect(card.body.find((e: any) => e.type === "Input.Text")).toMatchObject({
      id: "other0",
      placeholder: "Other…",
    });
    expect(card.actions.map((a: any) => [a.type, a.title, a.data?.handraise])).toEqual([
      ["Action.Submit", "Send", `x|0|0|${questionId}`],
      ["Action.Submit", "Skip", `s|0|0|${questionId}`],
      ["Action.OpenUrl", "Answer in browser", undefined],
    ]);
    expect(card.actions[2].url).toMatch(new RegExp(`/answer/${questionId}\\?sig=`));
    // The app token came from the client-credentials grant, with the app's id and password.
    const grant = tokenCalls().at(-1)?.body;
    if (grant) {
      expect(grant).toMatchObject({
        grant_type: "client_credentials",
        client_id: APP_ID,
        client_secret: APP_PASSWORD,
        scope: "https://api.botframework.com/.default",
      });
    }
    // Tidy up: skip it.
    expect((await send(tap("x", codec("s", 0, 0, questionId)))).status).toBe(200);
    expect(await replyOf(run)).toBe("no_answer|skipped||");
  });

  it("for a multi-select question, is a choice set (isMultiSelect) with Done", async () => {
    const { post, questionId, cardId, run } = await startRun([multi]);
    const card = cardOf(post);
    expect(card.body.find((e: any) => e.type === "Input.ChoiceSet")).toEqual({
      type: "Input.ChoiceSet",
      id: "choice0",
      style: "expanded",
      isMultiSelect: true,
      choices: [
        { title: "Unit", value: "0" },
        { title: "E2E", value: "1" },
        { title: "Lint", value: "2" },
      ],
    });
    expect(card.actions[0]).toEqual({
      type: "Action.Submit",
      title: "Done",
      data: { handraise: `d|0|0|${questionId}` },
    });
    // Teams sends the ticked values comma-separated, merged with the action's data.
    const sent = await send(tap(cardId, codec("d", 0, 0, questionId), { choice0: "0,2", other0: "" }));
    expect(sent.status).toBe(200);
    expect(await replyOf(run)).toBe("answered||Unit,Lint|");
  });
});

describe("Teams: answering", () => {
  it("Send answers with the own-answer box; an empty box is asked for a choice or text", async () => {
    const { questionId, cardId, run } = await startRun([single]);
    const empty = await send(tap(cardId, codec("x", 0, 0, questionId), { other0: "  " }));
    expect(empty.status).toBe(200);
    const notice = await afterSettled(async () => replies()[0], { what: "the choose-or-type notice" });
    expect(notice.body.text).toBe("Choose an option or type your own answer.");
    expect(await statusOf(questionId)).toBe("pending");
    await send(tap(cardId, codec("x", 0, 0, questionId), { other0: "canary" }));
    expect(await replyOf(run)).toBe("answered||canary|");
  });

  it("typed text in the personal chat goes through the same parser as other chats", async () => {
    const { run } = await startRun([single]);
    expect((await send(activity({ text: "2" }))).status).toBe(200);
    expect(await replyOf(run)).toBe("answered||Production|");
  });

  it("someone else's tap is told it is not theirs, and nothing changes", async () => {
    const { questionId, cardId, run } = await startRun([single]);
    const sent = await send(tap(cardId, codec("o", 0, 1, questionId), {}, OTHER_AAD));
    expect(sent.status).toBe(200);
    const notice = await afterSettled(async () => replies()[0], { what: "the not-yours notice" });
    expect(notice.body).toMatchObject({ type: "message", text: "This question is not yours to answer." });
    expect(notice.path).toMatch(/\/activities\/1700000100\d{4}$/);
    expect(await statusOf(questionId)).toBe("pending");
    expect(updatesOf(cardId)).toEqual([]);
    // The owner still can.
    await send(tap(cardId, codec("o", 0, 0, questionId)));
    expect(await replyOf(run)).toBe("answered||Staging (Recommended)|");
  });
});

describe("Teams: a prompt of several questions, step by step", () => {
  const questionOf = async (id: string) => (await stack.api("GET", `/questions/${id}`)).body.question;
  /** The card as the last PUT of the posted card left it (the webhook has made it before answering 200). */
  const lastCard = (cardId: string) => {
    const update = cardUpdates().at(-1);
    expect(update?.path).toBe(
      `/amer/v3/conversations/${encodeURIComponent(conversation)}/activities/${encodeURIComponent(cardId)}`,
    );
    expect(update?.body).toMatchObject({ type: "message", id: cardId });
    return cardOf(update as RecordedCall);
  };
  const buttonsOf = (card: any) => card.body.find((e: any) => e.type === "ActionSet").actions;

  it("answered step by step, resumes the run with all three answers", async () => {
    const { post, questionId, cardId, run } = await startRun([single, multi, note], {}, STEPPED_REPLY);
    const first = cardOf(post);
    expect(first.body.slice(0, 3).map((e: any) => e.text)).toEqual([
      "1 of 3",
      "Deploy to",
      "Where should it go?",
    ]);
    expect(buttonsOf(first).map((b: any) => b.data.handraise)).toEqual([
      `o|0|0|${questionId}`,
      `o|0|1|${questionId}`,
    ]);
    // No Back on the first step.
    expect(first.actions.map((a: any) => a.title)).toEqual(["Send", "Skip", "Answer in browser"]);

    expect((await send(tap(cardId, codec("o", 0, 1, questionId)))).status).toBe(200);
    const second = lastCard(cardId);
    expect(second.body[0].text).toBe("2 of 3");
    expect(second.body.find((e: any) => e.type === "Input.ChoiceSet")).toMatchObject({
      id: "choice1",
      isMultiSelect: true,
    });
    expect(second.actions.map((a: any) => [a.title, a.data?.handraise])).toEqual([
      ["Done", `d|1|0|${questionId}`],
      ["Back", `b|1|0|${questionId}`],
      ["Skip", `s|1|0|${questionId}`],
      ["Answer in browser", undefined],
    ]);
    expect(second.actions[3].url).toMatch(new RegExp(`/answer/${questionId}\\?sig=`));
    const kept = await questionOf(questionId);
    expect(kept).toMatchObject({ status: "pending", draft: { deploy_target: ["Production"] } });

    await send(tap(cardId, codec("d", 1, 0, questionId), { choice1: "0,2", other1: "" }));
    const third = lastCard(cardId);
    expect(third.body[0].text).toBe("3 of 3");
    expect(buttonsOf(third).map((b: any) => b.title)).toEqual(["Routine (Recommended)", "Urgent"]);

    await send(tap(cardId, codec("o", 2, 1, questionId)));
    expect(await replyOf(run)).toBe("answered|Production|Unit,Lint|Urgent");
    // Then, as on every platform, the card is retired with the outcome.
    const retired = await afterSettled(async () => cardUpdates().find((u) => !cardOf(u).actions), {
      what: "the card retired",
    });
    expect(texts(cardOf(retired))).toContain(
      '"text":"Answered — Deploy to: Production; Checks: Unit, Lint; Release note: Urgent"',
    );
    // The steps spoke through the card only: no notices.
    expect(replies()).toEqual([]);
  });

  it("Back shows the earlier step with its choice marked; a different option there changes the answer", async () => {
    const { questionId, cardId, run } = await startRun([single, multi, note], {}, STEPPED_REPLY);
    await send(tap(cardId, codec("o", 0, 0, questionId)));
    await send(tap(cardId, codec("d", 1, 0, questionId), { choice1: "1" }));
    expect(lastCard(cardId).body[0].text).toBe("3 of 3");
    await send(tap(cardId, codec("b", 2, 0, questionId)));
    const backAtTwo = lastCard(cardId);
    expect(backAtTwo.body[0].text).toBe("2 of 3");
    expect(backAtTwo.body.find((e: any) => e.type === "Input.ChoiceSet").value).toBe("1");
    await send(tap(cardId, codec("b", 1, 0, questionId)));
    const backAtOne = lastCard(cardId);
    expect(backAtOne.body[0].text).toBe("1 of 3");
    expect(buttonsOf(backAtOne).map((b: any) => [b.title, b.style])).toEqual([
      ["Staging (Recommended)", "positive"],
      ["Production", undefined],
    ]);
    // Back writes nothing: the draft is as the steps left it.
    expect((await questionOf(questionId)).draft).toEqual({
      deploy_target: ["Staging (Recommended)"],
      checks: ["E2E"],
    });

    await send(tap(cardId, codec("o", 0, 1, questionId)));
    expect((await questionOf(questionId)).draft.deploy_target).toEqual(["Production"]);
    await send(tap(cardId, codec("d", 1, 0, questionId), { choice1: "1" }));
    await send(tap(cardId, codec("o", 2, 0, questionId)));
    expect(await replyOf(run)).toBe("answered|Production|E2E|Routine (Recommended)");
  });

  it("a typed reply during the steps answers what is still open, with what the steps kept", async () => {
    const { questionId, cardId, run } = await startRun([single, multi, note], {}, STEPPED_REPLY);
    await send(tap(cardId, codec("o", 0, 1, questionId)));
    // A plain line answers the first question the draft has no value for (Checks).
    expect((await send(activity({ text: "1" }))).status).toBe(200);
    const notice = await afterSettled(async () => replies()[0], { what: "the still-needed notice" });
    expect(notice.body.text).toBe("Recorded: Checks: Unit. Still needed: Release note \\[release\\_note\\].");
    expect((await questionOf(questionId)).draft).toEqual({ deploy_target: ["Production"], checks: ["Unit"] });
    await send(activity({ text: "release_note: 2" }));
    expect(await replyOf(run)).toBe("answered|Production|Unit|Urgent");
  });

  it("Send on a step answers it with the typed text and moves on; Done with nothing ticked is told", async () => {
    const { questionId, cardId, run } = await startRun([single, multi, note], {}, STEPPED_REPLY);
    await send(tap(cardId, codec("x", 0, 0, questionId), { other0: "canary" }));
    expect(lastCard(cardId).body[0].text).toBe("2 of 3");
    expect((await questionOf(questionId)).draft).toEqual({ deploy_target: ["canary"] });
    await send(tap(cardId, codec("d", 1, 0, questionId), { choice1: "", other1: "" }));
    const notice = await afterSettled(async () => replies()[0], { what: "the still-needed notice" });
    expect(notice.body.text).toBe("Still needed: Checks \\[checks\\].");
    expect(cardUpdates()).toHaveLength(1);
    await send(tap(cardId, codec("d", 1, 0, questionId), { choice1: "1", other1: "Fuzz" }));
    await send(tap(cardId, codec("o", 2, 0, questionId)));
    expect(await replyOf(run)).toBe("answered|canary|E2E,Fuzz|Routine (Recommended)");
  });

  it("someone else's tap on a step is told it is not theirs, and nothing is kept", async () => {
    const { questionId, cardId, run } = await startRun([single, multi, note], {}, STEPPED_REPLY);
    const sent = await send(tap(cardId, codec("o", 0, 1, questionId), {}, OTHER_AAD));
    expect(sent.status).toBe(200);
    const notice = await afterSettled(async () => replies()[0], { what: "the not-yours notice" });
    expect(notice.body.text).toBe("This question is not yours to answer.");
    const question = await questionOf(questionId);
    expect(question.status).toBe("pending");
    expect(question).not.toHaveProperty("draft");
    expect(updatesOf(cardId)).toEqual([]);
    // The owner's tap on the same step is kept.
    await send(tap(cardId, codec("o", 0, 0, questionId)));
    expect((await questionOf(questionId)).draft).toEqual({ deploy_target: ["Staging (Recommended)"] });
    await send(tap(cardId, codec("s", 1, 0, questionId)));
    expect(await replyOf(run)).toMatch(/^no_answer\|/);
  });
});

describe("Teams: who may call the webhook", () => {
  const refusals: [string, () => Promise<string | null>][] = [
    ["no Authorization header", async () => null],
    ["a token that is not a JWT", async () => "Bearer not-a-token"],
    ["an expired token (beyond the 5 minutes' skew)", async () => `Bearer ${await token({ exp: -301 })}`],
    [
      "a token for another bot (audience)",
      async () => `Bearer ${await token({ aud: "00000000-0000-0000-0000-000000000000" })}`,
    ],
    [
      "a token from another issuer",
      async () => `Bearer ${await token({ iss: "https://sts.windows.net/evil/" })}`,
    ],
    [
      "a key id the key set does not have",
      async () => `Bearer ${await token({ key: strangerKey.privateKey, kid: "k9" })}`,
    ],
    [
      "a known key id, signed with another key",
      async () => `Bearer ${await token({ key: strangerKey.privateKey })}`,
    ],
    [
      "a key not endorsed for msteams",
      async () => `Bearer ${await token({ key: otherChannelKey.privateKey, kid: "k-webchat" })}`,
    ],
    ["RS384 (only RS256 is accepted)", async () => `Bearer ${await token({ alg: "RS384" })}`],
    ["HS256 with the public key as the secret", async () => `Bearer ${await hs256WithPublicKey()}`],
    ["alg none", async () => `Bearer ${unsignedToken()}`],
    [
      "a serviceurl claim that is not the activity's",
      async () => `Bearer ${await token({ serviceUrl: "https://evil.example/" })}`,
    ],
  ];

  it.each(refusals)("refuses %s with 401, and keeps nothing", async (_, authorization) => {
    const { questionId, cardId, run } = await startRun([single]);
    const body = tap(cardId, codec("o", 0, 1, questionId));
    const claims = await teamsClaims();
    const sent = await send(body, await authorization());
    expect(sent.status).toBe(401);
    expect(JSON.parse(sent.text).error.code).toBe("UNAUTHORIZED");
    expect(await statusOf(questionId)).toBe("pending");
    expect(await teamsClaims()).toBe(claims);
    expect(replies()).toEqual([]);
    // Nothing was claimed: the same activity with a good token is still handled.
    expect((await send(body)).status).toBe(200);
    expect(await replyOf(run)).toBe("answered||Production|");
  });

  it("refuses a body over the size limit with 413, and keeps nothing", async () => {
    const { questionId } = await startRun([single]);
    const claims = await teamsClaims();
    const sent = await send(activity({ text: "1", padding: "x".repeat(200 * 1024) }));
    expect(sent.status).toBe(413);
    expect(JSON.parse(sent.text).error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(await statusOf(questionId)).toBe("pending");
    expect(await teamsClaims()).toBe(claims);
    await send(activity({ text: "1" }));
  });

  it("accepts a token 200 s past its expiry (within the skew)", async () => {
    const { run } = await startRun([single]);
    expect((await send(activity({ text: "1" }), `Bearer ${await token({ exp: -200 })}`)).status).toBe(200);
    expect(await replyOf(run)).toBe("answered||Staging (Recommended)|");
  });

  it("refuses an activity whose serviceUrl differs from the token's", async () => {
    const { questionId, cardId } = await startRun([single]);
    const body = {
      ...tap(cardId, codec("s", 0, 0, questionId)),
      serviceUrl: "https://smba.trafficmanager.net/amer/",
    };
    expect((await send(body)).status).toBe(401);
    expect(await statusOf(questionId)).toBe("pending");
    await send(tap(cardId, codec("s", 0, 0, questionId)));
  });
});

/** The dedupe claims Teams activities have made (a refused request must make none). */
const teamsClaims = async () =>
  [...stack.store.items.values()].filter((item) => String(item.pk).startsWith("EVENT#teams:")).length;

function unsignedToken(): string {
  const now = Math.floor(stack.clock.now() / 1000);
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "none", kid: "k1" })}.${part({ iss: ISSUER, aud: APP_ID, serviceurl: SERVICE_URL, exp: now + 300 })}.`;
}

async function hs256WithPublicKey(): Promise<string> {
  const secret = new TextEncoder().encode(String(signing.publicKey.export({ format: "pem", type: "spki" })));
  const now = Math.floor(stack.clock.now() / 1000);
  return new SignJWT({ serviceurl: SERVICE_URL })
    .setProtectedHeader({ alg: "HS256", kid: "k1" })
    .setIssuer(ISSUER)
    .setAudience(APP_ID)
    .setExpirationTime(now + 300)
    .sign(secret);
}

describe("Teams: an answer link only in its answerer's personal chat", () => {
  const questionOf = async (id: string) => (await stack.api("GET", `/questions/${id}`)).body.question;
  const ownerLink = (questionId: string) =>
    new RegExp(`^${PUBLIC_URL}/answer/${questionId}\\?sig=[A-Za-z0-9_-]{43}$`);
  const linkOf = (card: any): string | undefined =>
    card.actions?.find((a: any) => a.type === "Action.OpenUrl")?.url;
  const rosterReads = () => connector.calls.filter((c) => c.verb === "GET" && c.path.endsWith("/members"));
  /** An activity in a group chat (the conversation of this test), as the Bot Framework sends it. */
  const inGroup = (body: Record<string, unknown>) => ({
    ...body,
    conversation: { conversationType: "groupChat", id: conversation, tenantId: TENANT_ID },
  });

  it("a personal chat's card carries the owner's link once the roster shows the owner alone, and keeps it at every step; it answers as the owner", async () => {
    const { post, questionId, cardId, run } = await startRun([single, multi, note], {}, STEPPED_REPLY);
    expect(rosterReads().map((c) => [c.path, c.headers.authorization])).toEqual([
      [
        `/amer/v3/conversations/${encodeURIComponent(conversation)}/members`,
        "Bearer app-token-from-the-fake",
      ],
    ]);
    const link = linkOf(cardOf(post)) ?? "";
    expect(link).toMatch(ownerLink(questionId));
    expect((await questionOf(questionId)).deliveries[0].privateTo).toBe(`teams:${OWNER_AAD}`);

    await send(tap(cardId, codec("o", 0, 1, questionId)));
    const step = cardUpdates().at(-1) as RecordedCall;
    expect(cardOf(step).body[0].text).toBe("2 of 3");
    expect(linkOf(cardOf(step))).toBe(link);

    const url = new URL(link);
    const answered = await stack.request("POST", linkPath(link), {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams([
        ["sig", url.searchParams.get("sig") ?? ""],
        ["a.deploy_target", "1"],
        ["a.checks", "0"],
        ["a.release_note", "1"],
        ["action", "submit"],
      ]).toString(),
    });
    expect(answered.status).toBe(303);
    expect(await replyOf(run)).toBe("answered|Production|Unit|Urgent");
    expect((await questionOf(questionId)).resolvedBy).toBe(`web:teams:${OWNER_AAD}`);
  });

  it("a group chat's card has no link and no browser control, at any step", async () => {
    conversation = `19:group${conversations}@thread.v2`;
    const { post, questionId, cardId } = await startRun([single, multi, note], {}, STEPPED_REPLY);
    expect(JSON.stringify(post.body)).not.toMatch(/\/answer\/|Answer in browser|Action\.OpenUrl/);
    expect(cardOf(post).actions.map((a: any) => a.title)).toEqual(["Send", "Skip"]);
    // A conversation id of a group chat or a channel is not even asked about.
    expect(rosterReads()).toEqual([]);
    expect((await questionOf(questionId)).deliveries[0]).not.toHaveProperty("privateTo");

    expect((await send(inGroup(tap(cardId, codec("o", 0, 1, questionId))))).status).toBe(200);
    const step = cardUpdates().at(-1) as RecordedCall;
    expect(cardOf(step).body[0].text).toBe("2 of 3");
    expect(JSON.stringify(step.body)).not.toMatch(/\/answer\/|Answer in browser|Action\.OpenUrl/);
    await send(inGroup(tap(cardId, codec("s", 1, 0, questionId))));
  });

  it("a step on a group's shared card of a prompt several people answer is told where to answer; the card stays", async () => {
    conversation = `19:group${conversations}@thread.v2`;
    const id = unique("teams-shared");
    const asked = await stack.api("POST", "/questions", {
      id,
      questions: [single, note],
      owner: `teams:${OWNER_AAD}`,
      deliverTo: [{ channel: "teams", chatId: conversation, serviceUrl: SERVICE_URL }],
      answerers: [{ group: { channel: "teams", chatId: conversation } }],
    });
    expect(asked.status).toBe(201);
    await stack.settled();
    const question = await questionOf(id);
    const cardId = question.deliveries[0].messageId as string;
    const updates = updatesOf(cardId).length;
    const before = replies().length;
    expect((await send(inGroup(tap(cardId, codec("o", 0, 1, question.id), {}, OTHER_AAD)))).status).toBe(200);
    const notice = await afterSettled(async () => replies()[before], { what: "the notice" });
    // Seen by the whole conversation: where to answer, and no link.
    expect(notice.body.text).toBe(replyCatalog.answerOnYourOwn);
    expect(JSON.stringify(notice.body)).not.toContain("/answer/");
    expect(updatesOf(cardId)).toHaveLength(updates);
    expect((await questionOf(question.id)).drafts ?? {}).toEqual({});
  });

  it("a personal chat the roster does not confirm as the owner's alone — someone else's, two people, a failed read — gets no link", async () => {
    const rosters: [string, FakeReply][] = [
      ["someone else's", { body: [member(OTHER_AAD)] }],
      ["two people", { body: [member(OWNER_AAD), member(OTHER_AAD)] }],
      ["a refused read", { status: 403, body: { error: { code: "Forbidden" } } }],
    ];
    for (const [, reply] of rosters) {
      conversation = `a:1conv${String(++conversations).padStart(4, "0")}`;
      rosterReplies.set(conversation, reply);
      const { post, questionId } = await startRun([single]);
      expect(JSON.stringify(post.body)).not.toMatch(/\/answer\/|Answer in browser|Action\.OpenUrl/);
      expect((await questionOf(questionId)).deliveries[0]).not.toHaveProperty("privateTo");
      await send(tap("x", codec("s", 0, 0, questionId)));
    }
  });

  it("an Answer in browser tap (from an older card: none has one now) is told where to answer, with no link; a stranger's, that it is not theirs", async () => {
    conversation = `19:group${conversations}@thread.v2`;
    const { questionId, cardId } = await startRun([single]);
    const before = connector.calls.length;
    expect((await send(inGroup(tap(cardId, codec("w", 0, 0, questionId))))).status).toBe(200);
    const told = await afterSettled(async () => replies()[0], { what: "the where-to-answer notice" });
    // A reply in the conversation, which everyone in it sees: where to answer, never the link.
    expect(told.body.text).toBe(
      "A link here would be seen by everyone in this conversation, so none is handed over: answer on this message.",
    );
    expect((await send(inGroup(tap(cardId, codec("w", 0, 0, questionId), {}, OTHER_AAD)))).status).toBe(200);
    const notice = await afterSettled(async () => replies()[1], { what: "the not-yours notice" });
    expect(notice.body.text).toBe("This question is not yours to answer.");
    expect(JSON.stringify(connector.calls.slice(before).map((c) => c.body))).not.toContain("/answer/");
    expect(await statusOf(questionId)).toBe("pending");
    await send(inGroup(tap(cardId, codec("s", 0, 0, questionId))));
  });

  it("an Answer in browser tap in a one-to-one chat (from an older card) hands over the tapper's own link there", async () => {
    const cases: [string, FakeReply | undefined][] = [
      ["the copy is the owner's own", undefined],
      ["the roster could not be read: a personal chat all the same", { status: 403, body: {} }],
    ];
    for (const [what, roster] of cases) {
      conversation = `a:1conv${String(++conversations).padStart(4, "0")}`;
      if (roster) rosterReplies.set(conversation, roster);
      const { questionId, cardId } = await startRun([single]);
      expect((await questionOf(questionId)).deliveries[0].privateTo, what).toBe(
        roster ? undefined : `teams:${OWNER_AAD}`,
      );
      const before = replies().length;
      expect((await send(tap(cardId, codec("w", 0, 0, questionId)))).status).toBe(200);
      const handed = await afterSettled(async () => replies()[before], { what: "the link" });
      const card = cardOf(handed);
      expect(
        card.body.map((b: any) => b.text),
        what,
      ).toEqual([replyCatalog.yourOwnLink]);
      expect(
        card.actions.map((a: any) => [a.type, a.title]),
        what,
      ).toEqual([["Action.OpenUrl", "Answer in browser"]]);
      expect(linkOf(card), what).toMatch(ownerLink(questionId));
      expect(await statusOf(questionId)).toBe("pending");
      await send(tap(cardId, codec("s", 0, 0, questionId)));
    }
  });

  it("an Answer in browser tap on a group's shared card of a prompt several people answer: answer on your own, no link", async () => {
    conversation = `19:group${conversations}@thread.v2`;
    const id = unique("teams-shared-link");
    const asked = await stack.api("POST", "/questions", {
      id,
      questions: [single, note],
      owner: `teams:${OWNER_AAD}`,
      deliverTo: [{ channel: "teams", chatId: conversation, serviceUrl: SERVICE_URL }],
      answerers: [{ group: { channel: "teams", chatId: conversation } }],
    });
    expect(asked.status).toBe(201);
    await stack.settled();
    const question = await questionOf(id);
    const cardId = question.deliveries[0].messageId as string;
    const updates = updatesOf(cardId).length;
    const before = replies().length;
    const start = connector.calls.length;
    expect((await send(inGroup(tap(cardId, codec("w", 0, 0, id), {}, OTHER_AAD)))).status).toBe(200);
    const notice = await afterSettled(async () => replies()[before], { what: "the notice" });
    expect(notice.body.text).toBe(replyCatalog.answerOnYourOwn);
    expect(JSON.stringify(connector.calls.slice(start).map((c) => c.body))).not.toContain("/answer/");
    expect(updatesOf(cardId)).toHaveLength(updates);
    expect(await questionOf(id)).toMatchObject({ status: "pending" });
  });
});

describe("Teams: the context (who is asking and why) above the questions", () => {
  const CONTEXT = "Release agent for *ops* & [alice](https://x.test):\n1. v1.4 _green_";
  /**
   * As a TextBlock shows it literally: emphasis and link brackets escaped, a list marker at a line's start too,
   * and the line break a paragraph break (a TextBlock joins single line breaks).
   */
  const SHOWN = "Release agent for \\*ops\\* & \\[alice\\](https://x.test):\n\n1\\. v1.4 \\_green\\_";

  it("heads the card when posted, at each step and once retired, escaped", async () => {
    const before = cardPosts().length;
    const asked = await stack.api("POST", "/questions", {
      questions: [single, multi],
      owner: `teams:${OWNER_AAD}`,
      deliverTo: [{ channel: "teams", chatId: conversation, serviceUrl: SERVICE_URL }],
      context: CONTEXT,
    });
    expect(asked.status).toBe(201);
    const questionId = asked.body.id as string;
    const post = await afterSettled(async () => cardPosts()[before], { what: "the card posted to Teams" });
    const cardId = await afterSettled(
      async () =>
        (await stack.api("GET", `/questions/${questionId}`)).body.question.deliveries[0]?.messageId as
          | string
          | undefined,
      { what: "the posted card recorded on the question" },
    );
    const contextBlock = { type: "TextBlock", text: SHOWN, wrap: true };
    const first = cardOf(post);
    expect(first.body[0]).toEqual(contextBlock);
    expect(first.body.slice(1, 3).map((e: any) => e.text)).toEqual(["1 of 2", "Deploy to"]);

    expect((await send(tap(cardId, codec("o", 0, 1, questionId)))).status).toBe(200);
    const second = cardOf(updatesOf(cardId).at(-1) as RecordedCall);
    expect(second.body[0]).toEqual(contextBlock);
    expect(second.body[1].text).toBe("2 of 2");

    await send(tap(cardId, codec("d", 1, 0, questionId), { choice1: "0", other1: "" }));
    const retired = await afterSettled(async () => updatesOf(cardId).find((u) => !cardOf(u).actions), {
      what: "the card retired",
    });
    expect(cardOf(retired).body[0]).toEqual(contextBlock);
    expect(texts(cardOf(retired))).toContain('"text":"Answered — Deploy to: Production; Checks: Unit"');
  });
});

describe("Teams: every message fits, whatever the question's size", () => {
  const lastUpdate = (cardId: string) => cardOf(updatesOf(cardId).at(-1) as RecordedCall);

  it("the largest question the contract allows: the card, each step, the notices and the ended card within one activity; the outcome shown", async () => {
    const { questions } = largestArgs("mixed");
    const third = questions[2];
    const before = cardPosts().length;
    const asked = await stack.api("POST", "/questions", {
      questions,
      owner: `teams:${OWNER_AAD}`,
      deliverTo: [{ channel: "teams", chatId: conversation, serviceUrl: SERVICE_URL }],
      context: largestContext("mixed"),
    });
    expect(asked.status).toBe(201);
    const questionId = asked.body.id as string;
    await afterSettled(async () => cardPosts()[before], { what: "the card posted to Teams" });
    const cardId = await afterSettled(
      async () =>
        (await stack.api("GET", `/questions/${questionId}`)).body.question.deliveries[0]?.messageId as
          | string
          | undefined,
      { what: "the posted card recorded on the question" },
    );

    // A keyed own answer of the longest, typed: recorded, and the notice repeats it.
    const own = textOf("mixed", MAX_ANSWER_VALUE_UNITS, "Own ");
    await send(activity({ text: `${third?.id}: ${own}` }));
    const recorded = await afterSettled(async () => replies().at(-1), { what: "the recorded notice" });
    expect(recorded.body.text).toMatch(/^Recorded: .+Still needed: /s);

    await send(tap(cardId, codec("o", 0, 1, questionId)));
    expect(lastUpdate(cardId).body.map((e: any) => e.text)).toContain("2 of 3");
    await send(tap(cardId, codec("d", 1, 0, questionId), { choice1: "0,3", other1: own }));
    expect(lastUpdate(cardId).body.map((e: any) => e.text)).toContain("3 of 3");

    // One character over an own answer's limit: refused, naming the limit; then the longest is taken.
    const notices = replies().length;
    await send(tap(cardId, codec("x", 2, 0, questionId), { other2: `${own}x` }));
    const tooLong = await afterSettled(async () => replies()[notices], { what: "the too-long notice" });
    expect(tooLong.body.text).toContain(`longer than ${MAX_ANSWER_VALUE_UNITS} characters`);
    await send(tap(cardId, codec("x", 2, 0, questionId), { other2: own }));
    expect(await statusOf(questionId)).toBe("answered");

    const retired = await afterSettled(async () => updatesOf(cardId).find((u) => !cardOf(u).actions), {
      what: "the card retired",
    });
    const outcome = cardOf(retired).body.at(-1).text as string;
    expect(outcome).toMatch(/^Answered — /);
    for (const question of questions) expect(outcome).toContain(`${escapeCard(question.header)}: `);
    expect(outcome).toContain(`${escapeCard(third?.header ?? "")}: Own `);
    expect(connector.refused.map((call) => `${call.path}: ${teamsProblems(call.body)}`)).toEqual([]);
  });
});

const escapeCard = (text: string) => text.replace(/[\\`*_[\]~]/g, "\\$&");
