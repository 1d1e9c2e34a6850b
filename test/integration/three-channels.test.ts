/**
 * One question at e-mail, WhatsApp and Google Chat at once, on the local stack: each copy goes out in its
 * platform's shape, the person answers through one (their mail's link), and every other copy is retired the
 * way its platform allows — the Chat card written over without buttons, nothing more sent on WhatsApp (a
 * sent message cannot be edited), no second mail.
 */
import { exportPKCS8, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakePlatform, type RecordedCall, startFakePlatform } from "./support/fake-platform.ts";
import { answerThroughLink } from "./support/link-answer.ts";
import { singleQuestion } from "./support/sample-questions.ts";
import { startTestStack, statusOf, type TestStack, waitFor } from "./support/test-stack.ts";

const ADDRESS = "ana@example.com";
const WA_CHAT = "16505559999";
const SPACE = "spaces/AAAAreleases";

let stack: TestStack;
let graph: FakePlatform;
let google: FakePlatform;

function chatReply(call: RecordedCall) {
  if (call.path === "/token") return { body: { access_token: "chat-token", expires_in: 3599 } };
  if (call.verb === "POST" && call.path === `/v1/${SPACE}/messages`) {
    return { body: { name: `${SPACE}/messages/m1.m1`, thread: { name: `${SPACE}/threads/m1` } } };
  }
  if (call.verb === "GET" && call.path === `/v1/${SPACE}`) {
    return { body: { name: SPACE, spaceType: "SPACE", displayName: "Releases" } };
  }
  if (call.verb === "PATCH") return { body: {} };
  return { status: 404, body: { error: { code: 404, status: "NOT_FOUND" } } };
}

beforeAll(async () => {
  graph = await startFakePlatform(
    (call) => ({
      body: {
        messaging_product: "whatsapp",
        contacts: [{ input: call.body.to, wa_id: call.body.to }],
        messages: [{ id: `wamid.OUT${graph.calls.length}` }],
      },
    }),
    { limits: "whatsapp" },
  );
  google = await startFakePlatform(chatReply, { limits: "gchat" });
  const account = await generateKeyPair("RS256", { extractable: true });
  stack = await startTestStack({
    HANDRAISE_EMAIL_FROM: "approvals@handraise.test",
    WHATSAPP_ACCESS_TOKEN: "EAAGtest0123456789abcdef",
    WHATSAPP_APP_SECRET: "0123456789abcdef0123456789abcdef",
    WHATSAPP_VERIFY_TOKEN: "verify-token-0123456789",
    WHATSAPP_PHONE_NUMBER_ID: "106540352242922",
    WHATSAPP_API_BASE: graph.url,
    GOOGLE_CHAT_SERVICE_ACCOUNT: JSON.stringify({
      type: "service_account",
      private_key: await exportPKCS8(account.privateKey),
      client_email: "handraise@handraise-test.iam.gserviceaccount.com",
    }),
    GOOGLE_CHAT_PROJECT_NUMBER: "123456789012",
    GOOGLE_CHAT_API_BASE: google.url,
    GOOGLE_CHAT_CERTS_URL: `${google.url}/certs`,
    GOOGLE_OAUTH_TOKEN_URL: `${google.url}/token`,
  });
});
afterAll(async () => {
  await stack?.stop();
  await graph?.stop();
  await google?.stop();
});

describe("a question at e-mail, WhatsApp and Google Chat at once", () => {
  it("reaches all three, is answered in one, and is retired in the others", async () => {
    const created = await stack.api("POST", "/questions", {
      questions: [singleQuestion],
      owner: `email:${ADDRESS}`,
      deliverTo: [
        { channel: "email", chatId: ADDRESS },
        { channel: "whatsapp", chatId: WA_CHAT },
        { channel: "gchat", chatId: SPACE },
      ],
      timeoutSeconds: 300,
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;

    // Each copy in its platform's shape: a mail with the person's link, a WhatsApp list, a Chat card.
    const [mail] = stack.ses.mails.filter((m) => m.to.includes(ADDRESS));
    expect(mail?.subject).toBe(`Question for you: ${singleQuestion.header}`);
    const url = mail?.text.match(/^http:\/\/\S+\/answer\/\S+$/m)?.[0] ?? "";
    expect(url).toContain(`/answer/${id}?`);
    const waPosts = graph.calls.filter((c) => c.method === "messages");
    expect(waPosts).toHaveLength(1);
    expect(waPosts[0]?.body).toMatchObject({
      to: WA_CHAT,
      type: "interactive",
      interactive: { type: "list" },
    });
    // Neither shared copy carries the owner's link.
    expect(JSON.stringify(waPosts[0]?.body)).not.toContain("/answer/");
    const chatPosts = google.calls.filter((c) => c.verb === "POST" && c.path === `/v1/${SPACE}/messages`);
    expect(chatPosts).toHaveLength(1);
    expect(JSON.stringify(chatPosts[0]?.body.cardsV2)).toContain(singleQuestion.options[1]?.label);
    expect(JSON.stringify(chatPosts[0]?.body)).not.toContain("/answer/");
    expect(JSON.stringify(chatPosts[0]?.body)).toMatch(/"onClick"/);

    // Answered through the mail's link.
    const answered = await answerThroughLink(url, { deploy_target: "1" });
    expect(answered.status).toBe(303);
    expect(await statusOf(stack, id)).toBe("answered");

    // The Chat card is written over with the outcome and no buttons.
    const patch = await waitFor(
      async () => google.calls.find((c) => c.verb === "PATCH" && c.path === `/v1/${SPACE}/messages/m1.m1`),
      { what: "the Chat card retired" },
    );
    expect(patch.query.updateMask).toBe("cardsV2,text");
    const card = JSON.stringify(patch.body);
    expect(card).toContain("Production");
    expect(card).not.toMatch(/"buttonList"|"onClick"/);
    // Nothing more on WhatsApp (no edits there), and no second mail.
    await stack.streamsDrained();
    expect(graph.calls.filter((c) => c.method === "messages")).toHaveLength(1);
    expect(stack.ses.mails.filter((m) => m.to.includes(ADDRESS))).toHaveLength(1);
  });
});
