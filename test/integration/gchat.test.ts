/**
 * Google Chat in process (test/support/in-process-stack.ts), on the clock the test moves: one fake server plays the Chat API, Google's OAuth token endpoint and
 * the certificate endpoint of `chat@system.gserviceaccount.com`, with keys made here — so every request token
 * the webhook sees is one this test signed, valid or wrong in exactly one way — and the service account's key
 * is one made here too (the token grant is checked against it). A run that asks and is resumed on the local
 * stack: gchat-e2e.test.ts.
 */
import { generateKeyPair, jwtVerify } from "jose";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PLATFORM_LIMITS } from "#lib/channels/platform-limits.ts";
import { IN_PROCESS_T0, type InProcessStack, startInProcessStack } from "../support/in-process-stack.ts";
import { largestArgs, largestContext } from "../support/largest-questions.ts";
import { captureLogs } from "./support/captured-logs.ts";
import { type FakePlatform, type RecordedCall, startFakePlatform } from "./support/fake-platform.ts";
import {
  googleChatCertificate,
  googleChatSettings,
  googleChatToken,
  type Key,
  SERVICE_ACCOUNT_EMAIL,
  type TokenOptions,
} from "./support/google-chat-signing.ts";
import {
  multiQuestion as multi,
  noteQuestion as note,
  singleQuestion as single,
  unique,
} from "./support/sample-questions.ts";
import { statusOf } from "./support/test-stack.ts";

const PROJECT = "123456789012";
const OWNER = "users/111111111111111111111";
const STRANGER = "users/222222222222222222222";
/** A second person who may answer (quorum tests), with a direct message of their own with the app. */
const BOB = "users/333333333333333333333";

let stack: InProcessStack;
let google: FakePlatform;
/** The certificate endpoint answers 503 while this is set. */
let certsDown = false;
/** The Chat API answers GET /v1/{space} with 403 while this is set (the app may not read the space). */
let spacesRefused = false;
let spaces = 0;
let posted = 0;
let space = "";
/** The owner's direct message with the app, as `spaces:findDirectMessage` finds it. */
let ownerDm = "";
/** Bob's, likewise. */
let bobDm = "";

let signing: { privateKey: Key; pem: string };
let stranger: { privateKey: Key; pem: string };
let serviceAccountPublicKey: Key;

const isDm = (name: string) => name.includes("dm");

function chatReply(call: RecordedCall) {
  if (call.path === "/certs") {
    return certsDown ? { status: 503, body: {} } : { body: { "key-1": signing.pem } };
  }
  if (call.path === "/token") {
    return { body: { access_token: "chat-token-from-the-fake", expires_in: 3599, token_type: "Bearer" } };
  }
  const create = /^\/v1\/(spaces\/[^/]+)\/messages$/.exec(call.path);
  if (call.verb === "POST" && create?.[1]) {
    const id = `m${++posted}`;
    const thread = call.body.thread?.name ?? `${create[1]}/threads/${id}`;
    return { body: { name: `${create[1]}/messages/${id}.${id}`, thread: { name: thread } } };
  }
  if (call.verb === "PATCH" && /^\/v1\/spaces\/[^/]+\/messages\/[^/]+$/.test(call.path)) return { body: {} };
  if (call.verb === "GET" && call.path === "/v1/spaces:findDirectMessage") {
    const dm = call.query.name === OWNER ? ownerDm : call.query.name === BOB ? bobDm : undefined;
    return dm !== undefined
      ? { body: { name: dm, spaceType: "DIRECT_MESSAGE", singleUserBotDm: true } }
      : { status: 404, body: { error: { code: 404, status: "NOT_FOUND" } } };
  }
  const get = /^\/v1\/(spaces\/[^/:]+)$/.exec(call.path);
  if (call.verb === "GET" && get?.[1]) {
    if (spacesRefused) return { status: 403, body: { error: { code: 403, status: "PERMISSION_DENIED" } } };
    const name = get[1];
    return {
      body: isDm(name)
        ? { name, spaceType: "DIRECT_MESSAGE", singleUserBotDm: true }
        : { name, spaceType: "SPACE", displayName: "Releases" },
    };
  }
  return { status: 404, body: { error: { code: 404, status: "NOT_FOUND" } } };
}

beforeAll(async () => {
  // Valid around where the stack's clock starts.
  [signing, stranger] = await Promise.all([
    googleChatCertificate(IN_PROCESS_T0),
    googleChatCertificate(IN_PROCESS_T0),
  ]);
  const account = await generateKeyPair("RS256", { extractable: true });
  serviceAccountPublicKey = account.publicKey as Key;
  // Refused like the Chat API past a message's size: every test here runs within it.
  google = await startFakePlatform(chatReply, { limits: "gchat" });
  stack = await startInProcessStack(await googleChatSettings(google.url, account.privateKey, PROJECT));
});
afterAll(async () => {
  await stack?.stop();
  await google?.stop();
});
beforeEach(() => {
  certsDown = false;
  spacesRefused = false;
  spaces += 1;
  space = `spaces/AAAAroom${spaces}`;
  ownerDm = `spaces/AAAAdm${spaces}`;
  bobDm = `spaces/AAAAdmBob${spaces}`;
  google.calls.length = 0;
});
// What a test's last change set going (a timer cleared, a card retired) ends before the next test counts calls.
afterEach(() => stack.settled());

// ── Asking, and what Chat is sent ────────────────────────────────────────────────────────────────

const messagePosts = () =>
  google.calls.filter((c) => c.verb === "POST" && /^\/v1\/spaces\/[^/]+\/messages$/.test(c.path));
const patchesOf = (name: string) =>
  google.calls.filter((c) => c.verb === "PATCH" && c.path === `/v1/${name}`);

async function ask(
  questions: unknown[],
  chatId = space,
  extra: Record<string, unknown> = {},
): Promise<{ id: string; messageName: string; post: RecordedCall; delivery: any }> {
  const before = messagePosts().length;
  const created = await stack.api("POST", "/questions", {
    questions,
    owner: `gchat:${OWNER}`,
    sessionKey: unique("gchat"),
    deliverTo: [{ channel: "gchat", chatId }],
    timeoutSeconds: 300,
    ...extra,
  });
  expect(created.status, created.text).toBe(201);
  const id = created.body.id as string;
  // The question API delivers before it answers: the card is posted and recorded.
  const post = messagePosts()[before] as RecordedCall;
  expect(post).toBeDefined();
  const delivery = (await stack.api("GET", `/questions/${id}`)).body.question.deliveries[0];
  expect(delivery?.messageId).toBeDefined();
  return { id, messageName: delivery.messageId, post, delivery };
}

const cardOf = (message: any) => message.cardsV2[0].card;
const widgetsOf = (message: any) => cardOf(message).sections.flatMap((s: any) => s.widgets);
const buttonsOf = (message: any) =>
  widgetsOf(message).flatMap((w: any) => w.buttonList?.buttons ?? []) as Record<string, any>[];
const controlOf = (b: any) => b.onClick?.action?.parameters?.[0]?.value;
const textsOf = (message: any) =>
  widgetsOf(message).flatMap((w: any) => (w.textParagraph ? [w.textParagraph.text] : [])) as string[];

// ── Events, as Google Chat sends them ────────────────────────────────────────────────────────────

/** A request token made at the stack's now; by default Google's, for this project. */
const token = (options: Partial<TokenOptions> = {}) =>
  googleChatToken({ key: signing.privateKey, aud: PROJECT, nowMs: stack.clock.now(), ...options });

let eventCount = 0;
function chatEvent(type: string, fields: Record<string, unknown>, user = OWNER, chatId = space) {
  return {
    type,
    eventTime: new Date(stack.clock.now() + ++eventCount).toISOString(),
    space: isDm(chatId)
      ? { name: chatId, type: "DM", spaceType: "DIRECT_MESSAGE", singleUserBotDm: true }
      : { name: chatId, type: "ROOM", spaceType: "SPACE" },
    user: { name: user, displayName: "Ada Lovelace", type: "HUMAN" },
    ...fields,
  };
}

/** A click on a card's button: its action's parameters and the card's inputs. */
function click(
  messageName: string,
  control: string,
  options: { user?: string; chatId?: string; inputs?: Record<string, string[]> } = {},
) {
  return chatEvent(
    "CARD_CLICKED",
    {
      message: { name: messageName },
      common: {
        invokedFunction: "handraise",
        parameters: { control },
        formInputs: Object.fromEntries(
          Object.entries(options.inputs ?? {}).map(([k, v]) => [k, { stringInputs: { value: v } }]),
        ),
      },
    },
    options.user,
    options.chatId,
  );
}

/** A typed message; `thread` is the thread it was written in (Chat names one for every message). */
function typed(text: string, chatId = space, user = OWNER, thread?: string) {
  const mention = !isDm(chatId);
  const id = ++eventCount;
  return chatEvent(
    "MESSAGE",
    {
      message: {
        name: `${chatId}/messages/typed${id}`,
        thread: { name: thread ?? `${chatId}/threads/typed${id}` },
        text: mention ? `@Handraise ${text}` : text,
        argumentText: mention ? ` ${text}` : text,
        ...(mention && {
          annotations: [
            {
              type: "USER_MENTION",
              userMention: { user: { name: "users/app", type: "BOT" }, type: "MENTION" },
            },
          ],
        }),
      },
    },
    user,
    chatId,
  );
}

async function send(body: unknown, authorization?: string | null) {
  const auth = authorization === undefined ? `Bearer ${await token()}` : authorization;
  return stack.request("POST", "/webhooks/gchat", {
    headers: { "content-type": "application/json", ...(auth !== null && { authorization: auth }) },
    body: JSON.stringify(body),
  });
}

const codec = (kind: string, step: number, option: number, questionId: string) =>
  `${kind}|${step}|${option}|${questionId}`;

// First in the file: the handler's process holds no certificates until a token is checked, so only here is
// the cache cold.
describe("Google Chat: Google's certificates", () => {
  it("while they cannot be read, answers 503 and changes nothing; the retry is handled", async () => {
    const { id, messageName } = await ask([single]);
    certsDown = true;
    const body = click(messageName, codec("o", 0, 1, id));
    const refused = await send(body);
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe("KEYS_UNAVAILABLE");
    expect(await statusOf(stack, id)).toBe("pending");
    certsDown = false;
    const handled = await send(body);
    expect(handled.status).toBe(200);
    expect(await statusOf(stack, id)).toBe("answered");
  });
});

describe("Google Chat: the question card", () => {
  it("in a shared space: a button per option, the own-answer box with Send, Skip and Answer in browser — no link", async () => {
    const { id, post, delivery } = await ask([single]);
    expect(post.path).toBe(`/v1/${space}/messages`);
    expect(post.headers.authorization).toBe("Bearer chat-token-from-the-fake");
    expect(post.body.cardsV2[0].cardId).toBe("handraise");
    expect(textsOf(post.body)).toEqual(["<b>Deploy to</b>", "Where should it go?"]);
    // The options, then Send, Skip and the shared "Answer in browser" button; every action is the codec's.
    expect(buttonsOf(post.body).map((b) => [b.text, b.onClick.action?.function, controlOf(b)])).toEqual([
      ["Staging (Recommended)", "handraise", `o|0|0|${id}`],
      ["Production", "handraise", `o|0|1|${id}`],
      ["Send", "handraise", `x|0|0|${id}`],
      ["Answer in browser", "handraise", `w|0|0|${id}`],
      ["Skip", "handraise", `s|0|0|${id}`],
    ]);
    expect(JSON.stringify(post.body)).not.toContain("/answer/");
    expect(widgetsOf(post.body).find((w: any) => w.textInput).textInput).toMatchObject({
      name: "other0",
      label: "Other…",
    });
    // A shared space: the Chat API said so, and the copy is not private to anyone.
    expect(delivery).toMatchObject({
      channel: "gchat",
      chatId: space,
      threadId: `${space}/threads/m${posted}`,
    });
    expect(delivery.privateTo).toBeUndefined();
    expect(google.calls.some((c) => c.path === `/v1/${space}`)).toBe(true);
    // The service account's token came from the JWT-bearer grant, signed with its key, scope chat.bot.
    const grant = google.calls.find((c) => c.path === "/token");
    if (grant) {
      expect(grant.body.grant_type).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer");
      const { payload } = await jwtVerify(grant.body.assertion, serviceAccountPublicKey, {
        issuer: SERVICE_ACCOUNT_EMAIL,
        audience: `${google.url}/token`,
        // Signed at the stack's time.
        currentDate: new Date(stack.clock.now()),
      });
      expect(payload.scope).toBe("https://www.googleapis.com/auth/chat.bot");
    }
  });

  it("in the owner's direct message with the app: the owner's own link, no shared button", async () => {
    const { id, post, delivery } = await ask([single], ownerDm);
    const link = buttonsOf(post.body).find((b) => b.text === "Answer in browser");
    expect(link?.onClick.openLink.url).toMatch(new RegExp(`/answer/${id}\\?sig=`));
    expect(buttonsOf(post.body).map(controlOf)).not.toContain(`w|0|0|${id}`);
    expect(delivery.privateTo).toBe(`gchat:${OWNER}`);
    // The space's type, then the direct message the API finds for the owner.
    const findDm = google.calls.find((c) => c.path === "/v1/spaces:findDirectMessage");
    expect(findDm?.query).toEqual({ name: OWNER });
  });

  it("a direct message that is not the owner's, or a space the API will not describe, is shared (fail closed)", async () => {
    const otherDm = `spaces/AAAAdmOther${spaces}`;
    const notTheirs = await ask([single], otherDm);
    expect(notTheirs.delivery.privateTo).toBeUndefined();
    expect(JSON.stringify(notTheirs.post.body)).not.toContain("/answer/");
    spacesRefused = true;
    const logs = captureLogs();
    let refused: Awaited<ReturnType<typeof ask>>;
    try {
      refused = await ask([single], ownerDm, { sessionKey: unique("gchat") });
    } finally {
      logs.stop();
    }
    // The operator is told why the copy went out as shared (the API's status, never a token).
    const told = logs.logged("gchat: a conversation could not be confirmed as private; posted as shared");
    expect(told.map((line) => line.error?.message)).toEqual([
      "gchat GET /v1/{space} failed: PERMISSION_DENIED",
    ]);
    expect(refused.delivery.privateTo).toBeUndefined();
    expect(JSON.stringify(refused.post.body)).not.toContain("/answer/");
    expect(buttonsOf(refused.post.body).map(controlOf)).toContain(`w|0|0|${refused.id}`);
  });

  it("a multi-select question is a checkbox group sent with Done", async () => {
    const { id, post, messageName } = await ask([multi]);
    const group = widgetsOf(post.body).find((w: any) => w.selectionInput).selectionInput;
    expect(group).toEqual({
      name: "choice0",
      label: "Choose one or more…",
      type: "CHECK_BOX",
      items: [
        { text: "Unit", value: "0", selected: false },
        { text: "E2E", value: "1", selected: false },
        { text: "Lint", value: "2", selected: false },
      ],
    });
    expect(buttonsOf(post.body).map((b) => [b.text, controlOf(b)])[0]).toEqual(["Done", `d|0|0|${id}`]);
    // Done with nothing ticked is told what is needed, privately; with boxes ticked and a typed value, answers.
    const empty = await send(click(messageName, codec("d", 0, 0, id), { inputs: { other0: [""] } }));
    expect(empty.body).toEqual({
      text: "Still needed: Checks [checks].",
      actionResponse: { type: "NEW_MESSAGE" },
      privateMessageViewer: { name: OWNER },
    });
    await send(
      click(messageName, codec("d", 0, 0, id), { inputs: { choice0: ["2", "0"], other0: ["fuzz"] } }),
    );
    expect((await stack.api("GET", `/questions/${id}`)).body.question.answers).toEqual({
      checks: ["Unit", "Lint", "fuzz"],
    });
  });

  it("text from the question is escaped: no markup, no mention", async () => {
    const { post } = await ask([
      { ...single, question: "Ship <b>now</b> to <users/all> & friends?", options: single.options },
    ]);
    expect(textsOf(post.body)[1]).toBe("Ship &lt;b&gt;now&lt;/b&gt; to &lt;users/all&gt; &amp; friends?");
  });

  it.each(["markup", "astral", "mixed"] as const)(
    "the largest question the contract allows fits one Chat message (%s text), every option label kept",
    async (alphabet) => {
      const { questions } = largestArgs(alphabet);
      const { post } = await ask(questions, space, { context: largestContext(alphabet) });
      expect(google.refused).toEqual([]);
      expect(Buffer.byteLength(JSON.stringify(post.body))).toBeLessThanOrEqual(
        PLATFORM_LIMITS.gchat.messageBytes,
      );
      const labels = buttonsOf(post.body).filter((b) => controlOf(b)?.startsWith("o|"));
      expect(labels.map((b) => b.text)).toEqual(questions[0]?.options.map((o) => o.label));
    },
  );
});

describe("Google Chat: answering", () => {
  it("a click on an option answers, and the response writes the card over with the outcome, without buttons", async () => {
    const { id, messageName } = await ask([single]);
    const answered = await send(click(messageName, codec("o", 0, 1, id)));
    expect(answered.status).toBe(200);
    expect(answered.body.actionResponse).toEqual({ type: "UPDATE_MESSAGE" });
    expect(buttonsOf(answered.body)).toEqual([]);
    expect(JSON.stringify(answered.body)).not.toMatch(/textInput|selectionInput|onClick/);
    expect(textsOf(answered.body)).toContain("<b>Answered — Deploy to: Production</b>");
    const question = (await stack.api("GET", `/questions/${id}`)).body.question;
    expect(question).toMatchObject({ status: "answered", answers: { deploy_target: ["Production"] } });
    expect(question.resolvedBy).toBe(`gchat:${OWNER}`);
    // Then, as on every platform, the stream consumer retires the copy through the API.
    await stack.settled();
    const retire = patchesOf(messageName)[0] as RecordedCall;
    expect(retire.query).toEqual({ updateMask: "cardsV2,text" });
    expect(buttonsOf(retire.body)).toEqual([]);
  });

  it("a typed reply in the direct message answers through the same parser as every chat", async () => {
    const { id } = await ask([single], ownerDm);
    const reply = await send(typed("2", ownerDm));
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ text: "Got it." });
    expect(await statusOf(stack, id)).toBe("answered");
  });

  it("in a shared space, a typed reply counts when it mentions the app; the notice is private", async () => {
    const { id } = await ask([single]);
    const reply = await send(typed("staging", space));
    expect(reply.body).toEqual({ text: "Got it.", privateMessageViewer: { name: OWNER } });
    expect((await stack.api("GET", `/questions/${id}`)).body.question.answers).toEqual({
      deploy_target: ["Staging (Recommended)"],
    });
  });

  it("in a shared space with two questions open, a typed reply goes to the question whose card's thread it is in", async () => {
    const first = await ask([single]);
    const second = await ask([single]);
    expect(second.delivery.threadId).not.toBe(first.delivery.threadId);
    // In the second card's thread: the second question, though the first is older.
    const reply = await send(typed("2", space, OWNER, second.delivery.threadId));
    expect(reply.body).toEqual({ text: "Got it.", privateMessageViewer: { name: OWNER } });
    expect(await statusOf(stack, second.id)).toBe("answered");
    expect(await statusOf(stack, first.id)).toBe("pending");
    // A line in no question's thread goes, as before, to the oldest open question here.
    const third = await ask([single]);
    await send(typed("staging", space));
    expect(await statusOf(stack, first.id)).toBe("answered");
    expect(await statusOf(stack, third.id)).toBe("pending");
  });

  it("Send with the own-answer box answers with its text; an empty box is asked for a choice or text", async () => {
    const { id, messageName } = await ask([single]);
    const empty = await send(click(messageName, codec("x", 0, 0, id), { inputs: { other0: ["  "] } }));
    expect(empty.body).toEqual({
      text: "Choose an option or type your own answer.",
      actionResponse: { type: "NEW_MESSAGE" },
      privateMessageViewer: { name: OWNER },
    });
    expect(await statusOf(stack, id)).toBe("pending");
    await send(click(messageName, codec("x", 0, 0, id), { inputs: { other0: ["canary"] } }));
    expect((await stack.api("GET", `/questions/${id}`)).body.question.answers).toEqual({
      deploy_target: ["canary"],
    });
  });

  it("a stranger is refused with the catalog's sentence, privately, and nothing changes", async () => {
    const { id, messageName } = await ask([single]);
    const clicked = await send(click(messageName, codec("o", 0, 1, id), { user: STRANGER }));
    expect(clicked.body).toEqual({
      text: "This question is not yours to answer.",
      actionResponse: { type: "NEW_MESSAGE" },
      privateMessageViewer: { name: STRANGER },
    });
    const typedBy = await send(typed("2", space, STRANGER));
    expect(typedBy.body).toEqual({}); // no question of theirs waits here: chatter gets nothing
    expect(await statusOf(stack, id)).toBe("pending");
    expect(patchesOf(messageName)).toEqual([]);
    // The owner still can.
    await send(click(messageName, codec("o", 0, 0, id)));
    expect(await statusOf(stack, id)).toBe("answered");
  });

  it("a direct message with another person in it is not private: the link still goes privately", async () => {
    const { id, messageName } = await ask([single]);
    const event = click(messageName, codec("w", 0, 0, id));
    // A DIRECT_MESSAGE space that is not the app's alone with one person (singleUserBotDm false).
    const shared = {
      ...event,
      space: { name: space, type: "DM", spaceType: "DIRECT_MESSAGE", singleUserBotDm: false },
    };
    const clicked = await send(shared);
    expect(clicked.body).toMatchObject({ privateMessageViewer: { name: OWNER } });
    expect(buttonsOf(clicked.body)[0]?.onClick.openLink.url).toMatch(new RegExp(`/answer/${id}\\?`));
  });

  it("Answer in browser in a shared space hands the clicker their own link, privately", async () => {
    const { id, messageName } = await ask([single]);
    const clicked = await send(click(messageName, codec("w", 0, 0, id)));
    expect(clicked.body).toMatchObject({
      text: "Your own link to answer in a browser. It works for you alone: do not share it.",
      actionResponse: { type: "NEW_MESSAGE" },
      privateMessageViewer: { name: OWNER },
    });
    expect(buttonsOf(clicked.body)[0]?.onClick.openLink.url).toMatch(new RegExp(`/answer/${id}\\?sig=`));
    const refused = await send(click(messageName, codec("w", 0, 0, id), { user: STRANGER }));
    expect(refused.body.text).toBe("This question is not yours to answer.");
    expect(JSON.stringify(refused.body)).not.toContain("/answer/");
  });

  it("the same click delivered twice changes nothing the second time", async () => {
    const { id, messageName } = await ask([single]);
    const body = click(messageName, codec("o", 0, 1, id));
    expect((await send(body)).body.actionResponse.type).toBe("UPDATE_MESSAGE");
    expect((await send(body)).body).toEqual({});
    expect(await statusOf(stack, id)).toBe("answered");
  });

  it("a prompt of several questions is a stepper: each click updates the card in place", async () => {
    const { id, messageName, post } = await ask([single, multi, note]);
    expect(cardOf(post.body).header).toEqual({ title: "1 of 3" });
    const second = await send(click(messageName, codec("o", 0, 1, id)));
    expect(second.body.actionResponse).toEqual({ type: "UPDATE_MESSAGE" });
    expect(cardOf(second.body).header).toEqual({ title: "2 of 3" });
    expect(buttonsOf(second.body).map((b) => b.text)).toEqual(["Done", "Back", "Answer in browser", "Skip"]);
    const third = await send(click(messageName, codec("d", 1, 0, id), { inputs: { choice1: ["0", "2"] } }));
    expect(cardOf(third.body).header).toEqual({ title: "3 of 3" });
    // Back shows step 2 again with its boxes ticked as chosen.
    const back = await send(click(messageName, codec("b", 2, 0, id)));
    const group = widgetsOf(back.body).find((w: any) => w.selectionInput).selectionInput;
    expect(group.items.map((i: any) => i.selected)).toEqual([true, false, true]);
    await send(click(messageName, codec("d", 1, 0, id), { inputs: { choice1: ["1"] } }));
    const done = await send(click(messageName, codec("o", 2, 1, id)));
    expect(textsOf(done.body)).toContain(
      "<b>Answered — Deploy to: Production; Checks: E2E; Release note: Urgent</b>",
    );
    expect((await stack.api("GET", `/questions/${id}`)).body.question.answers).toEqual({
      deploy_target: ["Production"],
      checks: ["E2E"],
      release_note: ["Urgent"],
    });
  });

  it("a copy in the owner's direct message keeps the owner's link at every step", async () => {
    const { id, messageName } = await ask([single, multi], ownerDm);
    const second = await send(click(messageName, codec("o", 0, 0, id), { chatId: ownerDm }));
    expect(cardOf(second.body).header).toEqual({ title: "2 of 2" });
    const link = buttonsOf(second.body).find((b) => b.text === "Answer in browser");
    expect(link?.onClick.openLink.url).toMatch(new RegExp(`/answer/${id}\\?sig=`));
    expect(buttonsOf(second.body).map(controlOf)).not.toContain(`w|1|0|${id}`);
  });

  it("Skip ends the question as skipped", async () => {
    const { id, messageName } = await ask([single]);
    const skipped = await send(click(messageName, codec("s", 0, 0, id)));
    expect(textsOf(skipped.body)).toContain("<b>Skipped.</b>");
    expect((await stack.api("GET", `/questions/${id}`)).body.question).toMatchObject({
      status: "cancelled",
      reason: "skipped",
    });
  });

  it("the app added to a space greets; other events are acknowledged", async () => {
    const added = await send(chatEvent("ADDED_TO_SPACE", {}));
    expect(added.body.text).toMatch(/^Handraise will post/);
    expect((await send(chatEvent("REMOVED_FROM_SPACE", {}))).body).toEqual({});
  });
});

describe("Google Chat: several people decide (quorum)", () => {
  const bob = `gchat:${BOB}`;

  /** A question for the owner and Bob, each in their direct message with the app, that `quorum` answers close. */
  async function askBoth(quorum: number) {
    const created = await stack.api("POST", "/questions", {
      questions: [single],
      owner: `gchat:${OWNER}`,
      sessionKey: unique("gchat"),
      deliverTo: [{ channel: "gchat", chatId: ownerDm }],
      answerers: [{ owner: bob, deliverTo: [{ channel: "gchat", chatId: bobDm }] }],
      quorum,
      timeoutSeconds: 300,
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    const deliveries = (await stack.api("GET", `/questions/${id}`)).body.question.deliveries as {
      chatId: string;
      messageId: string;
      privateTo?: string;
    }[];
    const copyIn = (dm: string) => {
      const copy = deliveries.find((delivery) => delivery.chatId === dm);
      if (!copy) throw new Error(`no copy in ${dm}`);
      return copy;
    };
    await stack.settled();
    return { id, owner: copyIn(ownerDm), bob: copyIn(bobDm) };
  }

  const vote = (messageName: string, id: string, option: number, user: string, chatId: string) =>
    send(click(messageName, codec("o", 0, option, id), { user, chatId }));

  it("quorum 2: the first vote is told it waits for 1 more and only that person's copy loses its controls; the second closes it", async () => {
    const { id, owner, bob: bobs } = await askBoth(2);
    expect(bobs.privateTo).toBe(bob);
    google.calls.length = 0;
    const first = await vote(bobs.messageId, id, 1, BOB, bobDm);
    // In Bob's own direct message: a plain notice, the card left for the stream consumer to retire.
    expect(first.body).toEqual({
      text: "Your answer is recorded — waiting for 1 more.",
      actionResponse: { type: "NEW_MESSAGE" },
    });
    await stack.settled();
    expect(google.calls.filter((c) => c.verb === "PATCH").map((c) => c.path)).toEqual([
      `/v1/${bobs.messageId}`,
    ]);
    const retired = patchesOf(bobs.messageId)[0] as RecordedCall;
    expect(buttonsOf(retired.body)).toEqual([]);
    expect(JSON.stringify(retired.body)).not.toMatch(/textInput|selectionInput|onClick/);
    expect(textsOf(retired.body)).toContain("<b>Your answer is recorded — waiting for 1 more.</b>");
    expect(patchesOf(owner.messageId)).toEqual([]);
    expect(await statusOf(stack, id)).toBe("pending");

    google.calls.length = 0;
    const second = await vote(owner.messageId, id, 1, OWNER, ownerDm);
    expect(second.body.actionResponse).toEqual({ type: "UPDATE_MESSAGE" });
    expect(buttonsOf(second.body)).toEqual([]);
    await stack.settled();
    expect((await stack.api("GET", `/questions/${id}`)).body.question).toMatchObject({
      status: "answered",
      answers: { [single.id]: ["Production"] },
      votes: [{ by: bob }, { by: `gchat:${OWNER}` }],
    });
    // The stream consumer retires every copy, Bob's again with the outcome.
    const closing = google.calls.filter((c) => c.verb === "PATCH");
    expect(closing.map((c) => c.path).sort()).toEqual(
      [`/v1/${bobs.messageId}`, `/v1/${owner.messageId}`].sort(),
    );
    for (const patch of closing) {
      expect(buttonsOf(patch.body)).toEqual([]);
      expect(textsOf(patch.body)).toContain("<b>Answered — Deploy to: Production</b>");
    }
  });

  it("a second vote from the same person is refused and changes nothing", async () => {
    const { id, bob: bobs } = await askBoth(2);
    await vote(bobs.messageId, id, 1, BOB, bobDm);
    await stack.settled();
    const before = (await stack.api("GET", `/questions/${id}`)).body.question;
    const again = await vote(bobs.messageId, id, 0, BOB, bobDm);
    expect(again.body).toEqual({
      text: "You have already answered.",
      actionResponse: { type: "NEW_MESSAGE" },
    });
    expect((await stack.api("GET", `/questions/${id}`)).body.question).toEqual(before);
  });

  it("a non-owner's /cancel is refused with the sentence and changes nothing, at any quorum", async () => {
    for (const quorum of [1, 2]) {
      const { id } = await askBoth(quorum);
      const refused = await send(typed("/cancel", bobDm, BOB));
      expect(refused.body, `quorum ${quorum}`).toEqual({
        text: "Only the question's owner can cancel it; you can skip it instead.",
      });
      expect(await statusOf(stack, id)).toBe("pending");
    }
  });

  it("a Skip from Bob with quorum 1 is his abstention: told so, his copy retired, the question waits", async () => {
    const { id, owner, bob: bobs } = await askBoth(1);
    google.calls.length = 0;
    const skipped = await send(click(bobs.messageId, codec("s", 0, 0, id), { user: BOB, chatId: bobDm }));
    expect(skipped.body).toEqual({
      text: "You skipped this question; the others can still answer.",
      actionResponse: { type: "NEW_MESSAGE" },
    });
    await stack.settled();
    expect(google.calls.filter((c) => c.verb === "PATCH").map((c) => c.path)).toEqual([
      `/v1/${bobs.messageId}`,
    ]);
    const retired = patchesOf(bobs.messageId)[0] as RecordedCall;
    expect(buttonsOf(retired.body)).toEqual([]);
    expect(textsOf(retired.body)).toContain("<b>You skipped this question; the others can still answer.</b>");
    expect(patchesOf(owner.messageId)).toEqual([]);
    expect(await statusOf(stack, id)).toBe("pending");
  });
});

describe("Google Chat: a typed line in a card's thread", () => {
  /** The copy of a question posted to `chatId`, as its record keeps it. */
  const copyIn = async (id: string, chatId: string) =>
    ((await stack.api("GET", `/questions/${id}`)).body.question.deliveries as any[]).find(
      (d) => d.chatId === chatId,
    );

  it("answers that card's question when someone else owns it and the space may answer, never the sender's own", async () => {
    const theirs = await ask([single], space, {
      owner: `gchat:${STRANGER}`,
      answerers: [{ group: { channel: "gchat", chatId: space } }],
    });
    const mine = await ask([single]);
    const reply = await send(typed("2", space, OWNER, theirs.delivery.threadId));
    expect(reply.body).toEqual({ text: "Got it.", privateMessageViewer: { name: OWNER } });
    const answered = (await stack.api("GET", `/questions/${theirs.id}`)).body.question;
    expect(answered).toMatchObject({ status: "answered", answers: { deploy_target: ["Production"] } });
    expect(answered.resolvedBy).toBe(`gchat:${OWNER}`);
    expect(await statusOf(stack, mine.id)).toBe("pending");
  });

  it("in the thread of a card already answered, is told it ended and answers no other question", async () => {
    const first = await ask([single]);
    const second = await ask([single]);
    await send(typed("2", space, OWNER, first.delivery.threadId));
    expect(await statusOf(stack, first.id)).toBe("answered");
    const again = await send(typed("2", space, OWNER, first.delivery.threadId));
    expect(again.body).toEqual({
      text: "This question has already been answered.",
      privateMessageViewer: { name: OWNER },
    });
    expect(await statusOf(stack, second.id)).toBe("pending");
  });

  it("in a thread an answered card started, answers the sender's own card posted into it later", async () => {
    const first = await ask([single]);
    await send(typed("1", space, OWNER, first.delivery.threadId));
    expect(await statusOf(stack, first.id)).toBe("answered");
    const later = await ask([single], space, {
      deliverTo: [{ channel: "gchat", chatId: space, threadId: first.delivery.threadId }],
    });
    expect(later.delivery.threadId).toBe(first.delivery.threadId);
    const reply = await send(typed("2", space, OWNER, first.delivery.threadId));
    expect(reply.body).toEqual({ text: "Got it.", privateMessageViewer: { name: OWNER } });
    const answered = (await stack.api("GET", `/questions/${later.id}`)).body.question;
    expect(answered).toMatchObject({ status: "answered", answers: { deploy_target: ["Production"] } });
  });

  it("in a thread another's pending card started, answers the sender's own card posted into it", async () => {
    const theirs = await ask([single], space, {
      owner: `gchat:${STRANGER}`,
      answerers: [{ group: { channel: "gchat", chatId: space } }],
    });
    const mine = await ask([single], space, {
      deliverTo: [{ channel: "gchat", chatId: space, threadId: theirs.delivery.threadId }],
    });
    await send(typed("2", space, OWNER, theirs.delivery.threadId));
    expect(await statusOf(stack, mine.id)).toBe("answered");
    expect(await statusOf(stack, theirs.id)).toBe("pending");
    // Anyone else in that thread still answers the card that started it.
    await send(typed("1", space, BOB, theirs.delivery.threadId));
    expect(await statusOf(stack, theirs.id)).toBe("answered");
  });

  it("in a listed answerer's own copy, answers that copy's question, not the oldest posted to them", async () => {
    const asked = () =>
      ask([single], space, {
        owner: `gchat:${STRANGER}`,
        answerers: [{ owner: `gchat:${OWNER}`, deliverTo: [{ channel: "gchat", chatId: ownerDm }] }],
      });
    const older = await asked();
    const newer = await asked();
    const copy = await copyIn(newer.id, ownerDm);
    expect(copy.privateTo).toBe(`gchat:${OWNER}`);
    const reply = await send(typed("2", ownerDm, OWNER, copy.threadId));
    expect(reply.body).toEqual({ text: "Got it." });
    expect(await statusOf(stack, newer.id)).toBe("answered");
    expect(await statusOf(stack, older.id)).toBe("pending");
  });
});

describe("Google Chat: who may call the webhook", () => {
  it.each([
    ["no Authorization header", async () => null],
    ["a scheme other than Bearer", async () => `Basic ${await token()}`],
    ["another project's audience", async () => `Bearer ${await token({ aud: "999999999999" })}`],
    [
      "another issuer",
      async () => `Bearer ${await token({ iss: "someone@example.iam.gserviceaccount.com" })}`,
    ],
    ["an expired token (beyond the skew)", async () => `Bearer ${await token({ exp: -3600 })}`],
    ["a key Google did not publish", async () => `Bearer ${await token({ key: stranger.privateKey })}`],
    ["a token that is not a JWT", async () => "Bearer not-a-jwt"],
  ])("%s → 401, and nothing changes", async (_, authorization) => {
    const { id, messageName } = await ask([single]);
    const callsBefore = google.calls.length;
    const refused = await send(click(messageName, codec("o", 0, 1, id)), await authorization());
    expect(refused.status).toBe(401);
    expect(refused.text).not.toMatch(/eyJ/);
    expect(await statusOf(stack, id)).toBe("pending");
    expect(google.calls.slice(callsBefore).filter((c) => c.path.startsWith("/v1/"))).toEqual([]);
  });
});

describe("Google Chat: retiring, reminders and expiry", () => {
  it("an answer through the API retires the card by PATCH with updateMask=cardsV2,text", async () => {
    const { id, messageName } = await ask([single]);
    await stack.api("POST", `/questions/${id}/answer`, { answers: { deploy_target: ["Production"] } });
    await stack.settled();
    const retire = patchesOf(messageName)[0] as RecordedCall;
    expect(retire.query).toEqual({ updateMask: "cardsV2,text" });
    expect(retire.headers.authorization).toBe("Bearer chat-token-from-the-fake");
    expect(buttonsOf(retire.body)).toEqual([]);
    expect(textsOf(retire.body)).toContain("<b>Answered — Deploy to: Production</b>");
    expect(retire.body.text).toBe("");
  });

  it("a reminder is a reply in the card's thread; at the deadline the card shows it expired", async () => {
    const { messageName, delivery } = await ask([single], space, {
      timeoutSeconds: 3,
      remindAfterSeconds: [1],
    });
    await stack.clock.advance(1000);
    const reminder = messagePosts().find((c) => c.body.text?.startsWith("Still waiting for your answer"));
    expect(reminder?.query).toEqual({ messageReplyOption: "REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD" });
    expect(reminder?.body.thread).toEqual({ name: delivery.threadId });
    await stack.clock.advance(2000);
    const expired = patchesOf(messageName)[0] as RecordedCall;
    expect(textsOf(expired.body)).toContain("<b>Expired: no answer in time.</b>");
    expect(buttonsOf(expired.body)).toEqual([]);
  });
});
