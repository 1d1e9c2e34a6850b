/**
 * The WhatsApp channel in process (test/support/in-process-stack.ts), through its public surface: questions
 * asked with the question API, delivered to a local fake of the Graph API (WHATSAPP_API_BASE), answered by
 * signed webhook notifications at `POST /webhooks/whatsapp`, Meta's `GET` subscription check, the 24-hour
 * window's template fallback (a send refused at once, or taken and failed later in a signed status), and
 * reminders and expiry on the clock the test moves. The fake refuses a payload past WhatsApp's limits, as the
 * Graph API does. A run that asks and is resumed on the local stack: whatsapp-e2e.test.ts.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { decodeControl } from "#lib/channels/control-codec.ts";
import { type InProcessStack, startInProcessStack } from "../support/in-process-stack.ts";
import { captureLogs } from "./support/captured-logs.ts";
import { type FakePlatform, type RecordedCall, startFakePlatform } from "./support/fake-platform.ts";
import {
  multiQuestion as multi,
  noteQuestion as note,
  singleQuestion as single,
} from "./support/sample-questions.ts";
import { metaSignature } from "./support/signing.ts";
import { posted, waitFor } from "./support/test-stack.ts";
import { failedStatus, statusNotification, whatsappNotification } from "./support/whatsapp-notifications.ts";

const ACCESS_TOKEN = "EAAGtest0123456789abcdef";
const APP_SECRET = "0123456789abcdef0123456789abcdef";
const VERIFY_TOKEN = "verify-token-0123456789";
const PHONE_NUMBER_ID = "106540352242922";
const PUBLIC_URL = "https://handraise.test";
const TEMPLATE = { name: "question_waiting", language: "en" };
/** Each test's person has a wa_id of their own: a typed line goes to their oldest waiting question. */
let person = 16505550000;

let stack: InProcessStack;
let graph: FakePlatform;
let wamids = 0;
/** The message id the fake gave each message it took. */
const wamidOf = new WeakMap<RecordedCall, string>();

const sent = (call: RecordedCall) => {
  const id = `wamid.OUT${++wamids}`;
  wamidOf.set(call, id);
  return {
    body: {
      messaging_product: "whatsapp",
      contacts: [{ input: call.body.to, wa_id: call.body.to }],
      messages: [{ id }],
    },
  };
};

/** What the Graph API answers a free-form message outside the 24-hour window. */
const OUTSIDE_WINDOW = {
  status: 400,
  body: {
    error: {
      message: "(#131047) Re-engagement message",
      type: "OAuthException",
      code: 131047,
      error_data: { messaging_product: "whatsapp", details: "More than 24 hours have passed." },
    },
  },
};

function env(fake: FakePlatform, extra: Record<string, string> = {}) {
  return {
    WHATSAPP_ACCESS_TOKEN: ACCESS_TOKEN,
    WHATSAPP_APP_SECRET: APP_SECRET,
    WHATSAPP_VERIFY_TOKEN: VERIFY_TOKEN,
    WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
    WHATSAPP_API_BASE: fake.url,
    HANDRAISE_PUBLIC_URL: PUBLIC_URL,
    ...extra,
  };
}

beforeAll(async () => {
  graph = await startFakePlatform(sent, { limits: "whatsapp" });
  stack = await startInProcessStack(
    env(graph, { WHATSAPP_TEMPLATE: `${TEMPLATE.name}:${TEMPLATE.language}` }),
  );
});
afterAll(async () => {
  await stack?.stop();
  await graph?.stop();
});
beforeEach(() => {
  graph.calls.length = 0;
  person += 1;
});
// What a test's last change set going (a timer cleared, a copy retired) ends before the next test counts calls.
afterEach(() => stack.settled());

const messagesTo = (waId: string) =>
  graph.calls.filter((call) => call.method === "messages" && call.body.to === waId);

/** Asks `questions` of `owner` (a wa_id) in `chats` (wa_ids; default the owner's own chat). */
async function ask(
  owner: string,
  questions: unknown[] = [single],
  options: { chats?: string[]; body?: Record<string, unknown> } = {},
) {
  const chats = options.chats ?? [owner];
  const created = await stack.api("POST", "/questions", {
    questions,
    owner: `whatsapp:${owner}`,
    deliverTo: chats.map((chatId) => ({ channel: "whatsapp", chatId })),
    ...options.body,
  });
  expect(created.status, created.text).toBe(201);
  // The question API delivers before it answers: every copy is recorded, or the question says why not.
  const question = (await stack.api("GET", `/questions/${created.body.id}`)).body.question;
  expect(posted(question) >= chats.length || question.status !== "pending").toBe(true);
  return question;
}

const DAY_MS = 86_400_000;
/** A message's `timestamp` as Meta sends it (Unix seconds, a string): `ms` before the test's clock. */
const sentAgo = (ms: number) => String(Math.floor((stack.clock.now() - ms) / 1000));

let inboundIds = 0;
/** A message id Meta gives an inbound message. */
const nextWamid = () => `wamid.IN${++inboundIds}`;

/** A notification of one message from `from`, as Meta sends it. */
function notification(from: string, message: Record<string, unknown>, phoneNumberId = PHONE_NUMBER_ID) {
  return whatsappNotification(
    {
      contacts: [{ profile: { name: "Sheena Nelson" }, wa_id: from }],
      messages: [{ from, timestamp: sentAgo(0), ...message, id: message.id ?? nextWamid() }],
    },
    phoneNumberId,
  );
}

const typed = (from: string, text: string, context?: string) =>
  notification(from, {
    type: "text",
    text: { body: text },
    ...(context && { context: { from: "15550783881", id: context } }),
  });

const tapped = (from: string, kind: "list_reply" | "button_reply", id: string, context: string) =>
  notification(from, {
    type: "interactive",
    interactive: { type: kind, [kind]: { id, title: "whatever the row said" } },
    context: { from: "15550783881", id: context },
  });

const sign = (body: string, secret = APP_SECRET) => metaSignature(secret, body);

/** `signature: null` sends none; by default the body is signed with the app secret. */
function post(payload: unknown, options: { signature?: string | null; raw?: string } = {}) {
  const body = options.raw ?? JSON.stringify(payload);
  const signature = options.signature === undefined ? sign(body) : options.signature;
  return stack.request("POST", "/webhooks/whatsapp", {
    headers: {
      "content-type": "application/json",
      ...(signature !== null && { "x-hub-signature-256": signature }),
    },
    body,
  });
}

/** The rows of a list message, by title. */
const rowsOf = (call: RecordedCall | undefined): { id: string; title: string; description?: string }[] =>
  call?.body.interactive.action.sections.flatMap((section: { rows: unknown[] }) => section.rows) ?? [];
const rowId = (call: RecordedCall | undefined, title: string) => {
  const row = rowsOf(call).find((r) => r.title === title);
  if (!row) throw new Error(`no row "${title}"`);
  return row.id;
};

async function statusOf(id: string) {
  return (await stack.api("GET", `/questions/${id}`)).body.question;
}

/** The text messages sent to `waId` after the first `skip` calls to them. */
const textsTo = (waId: string) =>
  messagesTo(waId)
    .filter((call) => call.body.type === "text")
    .map((call) => call.body.text.body as string);

describe("delivery", () => {
  it("posts a single-select question as an interactive list: the options, Other…, Skip; the owner's own link in the body", async () => {
    const owner = String(person);
    const question = await ask(owner);
    const [call] = messagesTo(owner);
    expect(call?.path).toBe(`/${PHONE_NUMBER_ID}/messages`);
    expect(call?.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
    expect(call?.body).toMatchObject({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: owner,
      type: "interactive",
      interactive: { type: "list", action: { button: "Choose…" } },
    });
    expect(rowsOf(call).map((row) => row.title)).toEqual([
      "Staging (Recommended)",
      "Production",
      "Other…",
      "Skip",
    ]);
    expect(rowsOf(call).map((row) => decodeControl(row.id)?.kind)).toEqual([
      "option",
      "option",
      "other",
      "skip",
    ]);
    const body = call?.body.interactive.body.text as string;
    expect(body).toContain("Where should it go?");
    expect(body).toContain("1. Staging (Recommended)");
    expect(body).toMatch(new RegExp(`Answer in browser: ${PUBLIC_URL}/answer/${question.id}\\?sig=`));
    expect(question.deliveries).toEqual([
      expect.objectContaining({ channel: "whatsapp", chatId: owner, messageId: `wamid.OUT${wamids}` }),
    ]);
    expect(graph.refused).toEqual([]);
  });

  it("a copy in someone else's chat carries no link: an Answer in browser row instead", async () => {
    const owner = String(person);
    const other = String(person + 500_000);
    await ask(owner, [single], { chats: [other] });
    const [call] = messagesTo(other);
    expect(call?.body.interactive.body.text).not.toContain("/answer/");
    expect(rowsOf(call).map((row) => row.title)).toEqual([
      "Staging (Recommended)",
      "Production",
      "Other…",
      "Answer in browser",
      "Skip",
    ]);
  });

  it("posts a multi-select question to be answered by typing, with a Skip reply button", async () => {
    const owner = String(person);
    await ask(owner, [multi]);
    const [call] = messagesTo(owner);
    expect(call?.body.interactive.type).toBe("button");
    expect(call?.body.interactive.body.text).toContain("comma-separated numbers");
    expect(
      call?.body.interactive.action.buttons.map((b: { reply: { title: string } }) => b.reply.title),
    ).toEqual(["Skip"]);
  });

  it("keeps a long option label whole: the row's title is cut, its description holds the label", async () => {
    const owner = String(person);
    const label = "A deliberately long option label that cannot fit a row title";
    await ask(owner, [{ ...single, options: [{ label, description: "why" }, { label: "Short" }] }]);
    const [row] = rowsOf(messagesTo(owner)[0]);
    expect(row?.title).toHaveLength(24);
    expect(row?.title.endsWith("…")).toBe(true);
    expect(row?.description).toBe(`${label} — why`);
    expect(graph.refused).toEqual([]);
  });
});

describe("answers", () => {
  it("a tapped list row answers; the person is told so in reply to their tap", async () => {
    const owner = String(person);
    const question = await ask(owner);
    const prompt = messagesTo(owner)[0];
    const tap = tapped(owner, "list_reply", rowId(prompt, "Production"), question.deliveries[0].messageId);
    const response = await post(tap);
    expect(response.status).toBe(200);
    const closed = await statusOf(question.id);
    expect(closed).toMatchObject({
      status: "answered",
      answers: { deploy_target: ["Production"] },
      resolvedBy: `whatsapp:${owner}`,
    });
    const reply = messagesTo(owner).at(-1);
    expect(reply?.body).toMatchObject({
      type: "text",
      text: { body: "Got it." },
      context: { message_id: tap.entry[0]?.changes[0]?.value.messages[0]?.id },
    });
  });

  it("a typed line answers, as in every chat", async () => {
    const owner = String(person);
    const question = await ask(owner);
    expect((await post(typed(owner, "2"))).status).toBe(200);
    expect(await statusOf(question.id)).toMatchObject({
      status: "answered",
      answers: { deploy_target: ["Production"] },
    });
  });

  it("a multi-select question is answered with comma-separated numbers", async () => {
    const owner = String(person);
    const question = await ask(owner, [multi]);
    await post(typed(owner, "1, 3"));
    expect(await statusOf(question.id)).toMatchObject({
      status: "answered",
      answers: { checks: ["Unit", "Lint"] },
    });
  });

  it("several questions step by step: a tap posts the next step as a new message, a typed line answers it", async () => {
    const owner = String(person);
    const question = await ask(owner, [single, note]);
    const first = messagesTo(owner)[0];
    expect(first?.body.interactive.body.text).toContain("Deploy to (1 of 2)");
    await post(
      tapped(owner, "list_reply", rowId(first, "Staging (Recommended)"), question.deliveries[0].messageId),
    );
    const second = messagesTo(owner)[1] as RecordedCall;
    expect(second.body.interactive.body.text).toContain("Release note (2 of 2)");
    expect(rowsOf(second).map((row) => row.title)).toEqual([
      "Routine (Recommended)",
      "Urgent",
      "Other…",
      "Back",
      "Skip",
    ]);
    expect((await statusOf(question.id)).status).toBe("pending");
    await post(typed(owner, "2"));
    expect(await statusOf(question.id)).toMatchObject({
      status: "answered",
      answers: { deploy_target: ["Staging (Recommended)"], release_note: ["Urgent"] },
    });
  });

  it("each step takes the place of the chat's copy in the record: a long prompt keeps one copy per person", async () => {
    const owner = String(person);
    const question = await ask(owner, [single, note, { ...single, id: "again" }]);
    const firstId = question.deliveries[0].messageId as string;
    await post(tapped(owner, "list_reply", rowId(messagesTo(owner)[0], "Staging (Recommended)"), firstId));
    const second = await statusOf(question.id);
    expect(second.deliveries).toHaveLength(1);
    const secondId = second.deliveries[0].messageId as string;
    expect(secondId).not.toBe(firstId);
    await post(tapped(owner, "list_reply", rowId(messagesTo(owner)[1], "Urgent"), secondId));
    expect(messagesTo(owner)).toHaveLength(3);
    const third = await statusOf(question.id);
    expect(third.deliveries).toEqual([
      expect.objectContaining({ channel: "whatsapp", chatId: owner, privateTo: `whatsapp:${owner}` }),
    ]);
    expect(third.deliveries[0].messageId).not.toBe(secondId);
    await post(typed(owner, "2"));
    expect((await statusOf(question.id)).status).toBe("answered");
  });

  it("Other… asks for the person's own answer, and the next line is it", async () => {
    const owner = String(person);
    const question = await ask(owner);
    await post(
      tapped(owner, "list_reply", rowId(messagesTo(owner)[0], "Other…"), question.deliveries[0].messageId),
    );
    expect(textsTo(owner)).toEqual(["Type your answer to “Deploy to” as a reply to this message."]);
    await post(typed(owner, "Canary first"));
    expect(await statusOf(question.id)).toMatchObject({
      status: "answered",
      answers: { deploy_target: ["Canary first"] },
    });
  });

  it("/question posts the waiting question again; /cancel cancels it", async () => {
    const owner = String(person);
    const question = await ask(owner);
    await post(typed(owner, "/question"));
    const again = messagesTo(owner)[1] as RecordedCall;
    expect(rowsOf(again).map((row) => row.title)).toEqual(
      rowsOf(messagesTo(owner)[0]).map((row) => row.title),
    );
    expect((await statusOf(question.id)).deliveries).toHaveLength(2);
    await post(typed(owner, "/cancel"));
    expect(await statusOf(question.id)).toMatchObject({ status: "cancelled", reason: "cancelled" });
    expect(textsTo(owner)).toEqual(["Cancelled."]);
  });

  it("Skip skips", async () => {
    const owner = String(person);
    const question = await ask(owner);
    await post(
      tapped(owner, "list_reply", rowId(messagesTo(owner)[0], "Skip"), question.deliveries[0].messageId),
    );
    expect(await statusOf(question.id)).toMatchObject({ status: "cancelled", reason: "skipped" });
    expect(textsTo(owner)).toEqual(["Skipped."]);
  });

  it("a notification delivered twice is handled once", async () => {
    const owner = String(person);
    const question = await ask(owner);
    const line = typed(owner, "1");
    expect((await post(line)).status).toBe(200);
    expect((await post(line)).status).toBe(200);
    expect(await statusOf(question.id)).toMatchObject({ status: "answered" });
    expect(textsTo(owner)).toEqual(["Got it."]);
  });

  it("a message sent over 6 days ago, or with no time, is acknowledged and does nothing; a newer one answers", async () => {
    const owner = String(person);
    const question = await ask(owner);
    const row = rowId(messagesTo(owner)[0], "Production");
    const copy = question.deliveries[0].messageId;
    const tooOld = sentAgo(6 * DAY_MS + 2_000);
    const calls = graph.calls.length;
    // A signed notification captured once and sent again after its dedupe claim is gone: typed, a tapped
    // row, a reply button — or one that names no time at all.
    for (const message of [
      { type: "text", text: { body: "2" }, timestamp: tooOld },
      {
        ...tapped(owner, "list_reply", row, copy).entry[0]?.changes[0]?.value.messages[0],
        timestamp: tooOld,
      },
      {
        ...tapped(owner, "button_reply", row, copy).entry[0]?.changes[0]?.value.messages[0],
        timestamp: tooOld,
      },
      { type: "text", text: { body: "2" }, timestamp: undefined },
      // A time of a shape Meta does not document: that message is ignored, the notification still taken.
      { type: "text", text: { body: "2" }, timestamp: { at: 1 } },
      { type: "text", text: { body: "2" }, timestamp: "x".repeat(40) },
    ]) {
      expect((await post(notification(owner, { ...message, id: nextWamid() }))).status).toBe(200);
    }
    expect(graph.calls.length).toBe(calls);
    expect(await statusOf(question.id)).toMatchObject({ status: "pending" });

    expect(
      (
        await post(
          notification(owner, {
            type: "text",
            text: { body: "2" },
            // Unix seconds as a number rather than the documented string: read all the same.
            timestamp: Number(sentAgo(6 * DAY_MS - 60_000)),
          }),
        )
      ).status,
    ).toBe(200);
    expect(await statusOf(question.id)).toMatchObject({
      status: "answered",
      answers: { deploy_target: ["Production"] },
    });
  });

  it("status updates and other numbers' notifications are acknowledged and change nothing", async () => {
    const owner = String(person);
    const question = await ask(owner);
    const statuses = statusNotification(
      [{ id: question.deliveries[0].messageId, status: "read", recipient_id: owner }],
      PHONE_NUMBER_ID,
    );
    const calls = graph.calls.length;
    expect((await post(statuses)).status).toBe(200);
    const otherNumber = notification(owner, { type: "text", text: { body: "1" } }, "999");
    expect((await post(otherNumber)).status).toBe(200);
    expect(graph.calls.length).toBe(calls);
    expect((await statusOf(question.id)).status).toBe("pending");
  });
});

describe("who may answer", () => {
  it("a stranger tapping a copy in their chat is told it is not theirs; nothing changes", async () => {
    const owner = String(person);
    const stranger = String(person + 500_000);
    const question = await ask(owner, [single], { chats: [stranger] });
    const prompt = messagesTo(stranger)[0];
    await post(tapped(stranger, "list_reply", rowId(prompt, "Production"), question.deliveries[0].messageId));
    expect(textsTo(stranger)).toEqual(["This question is not yours to answer."]);
    await post(typed(stranger, "2", question.deliveries[0].messageId));
    expect(textsTo(stranger)).toEqual([
      "This question is not yours to answer.",
      "This question is not yours to answer.",
    ]);
    expect((await statusOf(question.id)).status).toBe("pending");
  });

  it("a stranger writing in their own chat finds no question of theirs, and is not answered", async () => {
    const owner = String(person);
    const stranger = String(person + 500_000);
    const question = await ask(owner);
    expect((await post(typed(stranger, "2"))).status).toBe(200);
    expect(messagesTo(stranger)).toEqual([]);
    expect((await statusOf(question.id)).status).toBe("pending");
  });
});

describe("the signature", () => {
  it.each([
    ["no signature", () => ({ signature: null })],
    ["a signature made with another secret", (body: string) => ({ signature: sign(body, "f".repeat(32)) })],
    [
      "a signature of the same JSON re-serialised",
      (body: string) => ({ signature: sign(JSON.stringify(JSON.parse(body), null, 1)) }),
    ],
    ["the hex without sha256=", (body: string) => ({ signature: sign(body).slice("sha256=".length) })],
    ["upper-case hex", (body: string) => ({ signature: `sha256=${sign(body).slice(7).toUpperCase()}` })],
    [
      "a body altered after signing",
      (body: string) => ({ signature: sign(body), raw: body.replace('"2"', '"1"') }),
    ],
    ["an empty signature", () => ({ signature: "" })],
  ])("%s → 401, and nothing changes", async (_, options) => {
    const owner = String(person);
    const question = await ask(owner);
    const line = typed(owner, "2");
    const body = JSON.stringify(line);
    const calls = graph.calls.length;
    const response = await post(line, { raw: body, ...options(body) });
    expect(response.status).toBe(401);
    expect(graph.calls.length).toBe(calls);
    expect((await statusOf(question.id)).status).toBe("pending");
    // Nothing was claimed either: the same message, signed, is handled.
    expect((await post(line)).status).toBe(200);
    expect(await statusOf(question.id)).toMatchObject({
      status: "answered",
      answers: { deploy_target: ["Production"] },
    });
  });
});

describe("the subscription check (GET)", () => {
  const check = (query: Record<string, string>) =>
    stack.request("GET", `/webhooks/whatsapp?${new URLSearchParams(query)}`);

  it("echoes the challenge for the right verify token, as plain text", async () => {
    const response = await check({
      "hub.mode": "subscribe",
      "hub.verify_token": VERIFY_TOKEN,
      "hub.challenge": "1158201444",
    });
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^text\/plain/);
    expect(response.text).toBe("1158201444");
  });

  it.each([
    [
      "a wrong verify token",
      { "hub.mode": "subscribe", "hub.verify_token": `${VERIFY_TOKEN}x`, "hub.challenge": "1" },
    ],
    ["another mode", { "hub.mode": "unsubscribe", "hub.verify_token": VERIFY_TOKEN, "hub.challenge": "1" }],
    ["nothing", {}],
  ])("refuses %s with 403, echoing nothing", async (_, query) => {
    const response = await check(query as Record<string, string>);
    expect(response.status).toBe(403);
    expect(response.text).not.toContain(VERIFY_TOKEN);
  });
});

describe("outside the 24-hour window (131047)", () => {
  const interactive = (call: RecordedCall) => call.method === "messages" && call.body.type === "interactive";

  it("sends the template with the question's header and the person's own link", async () => {
    const owner = String(person);
    graph.answerOnce(interactive, OUTSIDE_WINDOW);
    const question = await ask(owner);
    expect(question.status).toBe("pending");
    const template = messagesTo(owner).find((call) => call.body.type === "template");
    expect(template?.body).toMatchObject({
      to: owner,
      template: { name: TEMPLATE.name, language: { code: TEMPLATE.language } },
    });
    const [header, link] = template?.body.template.components[0].parameters ?? [];
    expect(header).toEqual({ type: "text", text: "Deploy to" });
    expect(link.text).toMatch(new RegExp(`^${PUBLIC_URL}/answer/${question.id}\\?sig=`));
    expect(question.deliveries[0]).toMatchObject({ chatId: owner, messageId: `wamid.OUT${wamids}` });
  });

  it("a copy in someone else's chat cannot carry the owner's link: that target fails with the reason", async () => {
    const owner = String(person);
    const other = String(person + 500_000);
    graph.answerOnce(interactive, OUTSIDE_WINDOW);
    const question = await ask(owner, [single], { chats: [other] });
    expect(question.status).toBe("delivery_failed");
    expect(messagesTo(other).filter((call) => call.body.type === "template")).toEqual([]);
  });
});

describe("outside the 24-hour window, reported later in a failed status (131047)", () => {
  const templatesTo = (waId: string) => messagesTo(waId).filter((call) => call.body.type === "template");
  /** The signed notification that the question's first copy failed with `code` (default 131047). */
  const copyFailed = (question: { deliveries: { messageId: string; chatId: string }[] }, code?: number) =>
    statusNotification(
      [failedStatus(question.deliveries[0]?.messageId ?? "", question.deliveries[0]?.chatId ?? "", { code })],
      PHONE_NUMBER_ID,
    );

  it("sends the template once in place of the copy, even when the status comes twice, and records it", async () => {
    const owner = String(person);
    const question = await ask(owner);
    expect(messagesTo(owner).map((call) => call.body.type)).toEqual(["interactive"]);
    const status = copyFailed(question);
    expect((await post(status)).status).toBe(200);
    expect((await post(status)).status).toBe(200);
    const templates = templatesTo(owner);
    expect(templates).toHaveLength(1);
    expect(templates[0]?.path).toBe(`/${PHONE_NUMBER_ID}/messages`);
    expect(templates[0]?.body).toMatchObject({
      to: owner,
      template: { name: TEMPLATE.name, language: { code: TEMPLATE.language } },
    });
    const [header, link] = templates[0]?.body.template.components[0].parameters ?? [];
    expect(header).toEqual({ type: "text", text: "Deploy to" });
    expect(link.text).toMatch(new RegExp(`^${PUBLIC_URL}/answer/${question.id}\\?sig=`));
    const after = await statusOf(question.id);
    expect(after.status).toBe("pending");
    expect(after.deliveries).toEqual([
      expect.objectContaining({ messageId: question.deliveries[0].messageId }),
      expect.objectContaining({ chatId: owner, messageId: wamidOf.get(templates[0] as RecordedCall) }),
    ]);
  });

  it("the template is not a copy of the question: /question still posts it twice after it", async () => {
    const owner = String(person);
    const question = await ask(owner);
    expect((await post(copyFailed(question))).status).toBe(200);
    expect(templatesTo(owner)).toHaveLength(1);
    for (let n = 0; n < 2; n++) expect((await post(typed(owner, "/question"))).status).toBe(200);
    expect(messagesTo(owner).map((call) => call.body.type)).toEqual([
      "interactive",
      "template",
      "interactive",
      "interactive",
    ]);
    expect((await statusOf(question.id)).deliveries).toHaveLength(4);
  });

  it("a step tapped after a template was recorded takes the place of the question's copy; the template stays", async () => {
    const owner = String(person);
    const question = await ask(owner, [single, note]);
    expect((await post(copyFailed(question))).status).toBe(200);
    const template = templatesTo(owner)[0] as RecordedCall;
    const first = messagesTo(owner)[0] as RecordedCall;
    const firstId = question.deliveries[0].messageId as string;
    expect((await post(tapped(owner, "list_reply", rowId(first, "Production"), firstId))).status).toBe(200);
    const step = messagesTo(owner).at(-1) as RecordedCall;
    expect(step.body.interactive.body.text).toContain("Release note (2 of 2)");
    const after = await statusOf(question.id);
    expect(after.deliveries).toHaveLength(2);
    expect(after.deliveries.filter((d: { aside?: boolean }) => !d.aside)).toEqual([
      expect.objectContaining({ messageId: wamidOf.get(step) }),
    ]);
    expect(after.deliveries.filter((d: { aside?: boolean }) => d.aside)).toEqual([
      expect.objectContaining({ messageId: wamidOf.get(template) }),
    ]);
  });

  it("a template the Graph API failed to take (5xx) is sent when Meta sends the status again", async () => {
    const owner = String(person);
    const question = await ask(owner);
    const status = copyFailed(question);
    graph.answerOnce((call) => call.body?.type === "template", {
      status: 500,
      body: { error: { message: "(#2) Service temporarily unavailable", type: "OAuthException", code: 2 } },
    });
    // Nothing went: the webhook fails, so Meta keeps the status and sends it again.
    expect((await post(status)).status).toBeGreaterThanOrEqual(500);
    expect((await post(status)).status).toBe(200);
    expect((await post(status)).status).toBe(200);
    const templates = templatesTo(owner);
    // The one refused and the one taken: exactly one went.
    expect(templates).toHaveLength(2);
    const after = await statusOf(question.id);
    expect(after.deliveries).toHaveLength(2);
    expect(after.deliveries[1]).toMatchObject({
      chatId: owner,
      messageId: wamidOf.get(templates[1] as RecordedCall),
    });
  });

  it("a reply to the template answers its question (not the person's oldest)", async () => {
    const owner = String(person);
    const oldest = await ask(owner);
    const question = await ask(owner, [note]);
    await post(copyFailed(question));
    const template = templatesTo(owner)[0] as RecordedCall;
    expect(template.body.template.components[0].parameters[0].text).toBe("Release note");
    await post(typed(owner, "2", wamidOf.get(template)));
    expect(await statusOf(question.id)).toMatchObject({
      status: "answered",
      answers: { release_note: ["Urgent"] },
      resolvedBy: `whatsapp:${owner}`,
    });
    expect((await statusOf(oldest.id)).status).toBe("pending");
  });

  it("a copy in someone else's chat gets no template: an ERROR names the question and why, never the number", async () => {
    const owner = String(person);
    const other = String(person + 500_000);
    const question = await ask(owner, [single], { chats: [other] });
    const logs = captureLogs();
    const response = await post(copyFailed(question));
    logs.stop();
    expect(response.status).toBe(200);
    expect(messagesTo(other)).toHaveLength(1);
    const [line] = logs.logged("whatsapp copy not delivered");
    expect(line).toMatchObject({ level: "ERROR", questionId: question.id });
    expect(line?.error.message).toContain("24-hour window is closed (code 131047)");
    expect(line?.error.message).toContain("this chat is not theirs");
    expect(JSON.stringify(line)).not.toContain(other);
    expect((await statusOf(question.id)).status).toBe("pending");
  });

  it.each([
    [
      "an unknown message id",
      (q: { deliveries: { chatId: string }[] }) =>
        statusNotification([failedStatus("wamid.UNKNOWN", q.deliveries[0]?.chatId ?? "")], PHONE_NUMBER_ID),
    ],
    [
      "another phone number id",
      (q: { deliveries: { messageId: string; chatId: string }[] }) =>
        statusNotification(
          [failedStatus(q.deliveries[0]?.messageId ?? "", q.deliveries[0]?.chatId ?? "")],
          "999",
        ),
    ],
    [
      "another error code",
      (q: { deliveries: { messageId: string; chatId: string }[] }) => copyFailed(q, 131026),
    ],
    [
      "a shape Handraise does not read",
      (q: { deliveries: { messageId: string }[] }) =>
        statusNotification(
          [{ id: q.deliveries[0]?.messageId, status: "failed", errors: "?" }],
          PHONE_NUMBER_ID,
        ),
    ],
  ])("a failed status of %s changes nothing and sends nothing", async (_, status) => {
    const owner = String(person);
    const question = await ask(owner);
    const calls = graph.calls.length;
    expect((await post(status(question))).status).toBe(200);
    expect(graph.calls.length).toBe(calls);
    expect(await statusOf(question.id)).toMatchObject({ status: "pending", deliveries: question.deliveries });
  });

  it("an unsigned status notification → 401, nothing sent and nothing claimed", async () => {
    const owner = String(person);
    const question = await ask(owner);
    const status = copyFailed(question);
    const calls = graph.calls.length;
    expect((await post(status, { signature: null })).status).toBe(401);
    expect((await post(status, { signature: sign(JSON.stringify(status), "f".repeat(32)) })).status).toBe(
      401,
    );
    expect(graph.calls.length).toBe(calls);
    expect((await statusOf(question.id)).deliveries).toHaveLength(1);
    // The same status, signed, still acts: the refused ones claimed nothing.
    expect((await post(status)).status).toBe(200);
    expect(templatesTo(owner)).toHaveLength(1);
  });

  /**
   * Asks `owner` a question in their chat and another's, holding the other chat's post so the question records
   * neither copy yet; `act` gets the owner's copy (its call and message id) and `recorded`, which lets the
   * post go and waits until the question is stored with both copies.
   */
  async function beforeRecorded(
    owner: string,
    act: (copy: RecordedCall, wamid: string, recorded: () => Promise<void>) => Promise<void>,
  ) {
    const other = String(person + 500_000);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    graph.respond(async (call) => {
      if (call.body.to === other) await held;
      return sent(call);
    });
    try {
      const created = stack.api("POST", "/questions", {
        questions: [single],
        owner: `whatsapp:${owner}`,
        deliverTo: [owner, other].map((chatId) => ({ channel: "whatsapp", chatId })),
      });
      const copy = await waitFor(async () => messagesTo(owner)[0], { what: "the owner's copy" });
      const wamid = await waitFor(async () => wamidOf.get(copy), { what: "its message id" });
      await act(copy, wamid, async () => {
        release();
        expect((await created).status).toBe(201);
      });
    } finally {
      release();
      graph.respond(sent);
    }
  }

  it("a status that comes before its copy is recorded → 503, nothing sent; sent again later, the template goes", async () => {
    const owner = String(person);
    await beforeRecorded(owner, async (copy, wamid, recorded) => {
      const status = statusNotification(
        [failedStatus(wamid, owner, { callbackData: copy.body.biz_opaque_callback_data })],
        PHONE_NUMBER_ID,
      );
      const early = await post(status);
      expect(early.status).toBe(503);
      expect(early.body.error.code).toBe("NOT_RECORDED_YET");
      expect(templatesTo(owner)).toEqual([]);
      await recorded();
      expect((await post(status)).status).toBe(200);
      expect(templatesTo(owner)).toHaveLength(1);
    });
  });

  it("a notification with a stale tap and a status not recorded yet: 503, and on Meta's retry the tap is not told again", async () => {
    const owner = String(person);
    await beforeRecorded(owner, async (copy, wamid, recorded) => {
      // One notification: a tap on a row that is no control of Handraise's, and the copy's failed status.
      const both = whatsappNotification(
        {
          contacts: [{ profile: { name: "Sheena Nelson" }, wa_id: owner }],
          messages: [
            {
              from: owner,
              id: nextWamid(),
              timestamp: sentAgo(0),
              type: "interactive",
              interactive: { type: "list_reply", list_reply: { id: "not-a-control", title: "Old row" } },
              context: { from: "15550783881", id: wamid },
            },
          ],
          statuses: [failedStatus(wamid, owner, { callbackData: copy.body.biz_opaque_callback_data })],
        },
        PHONE_NUMBER_ID,
      );
      const early = await post(both);
      expect(early.status).toBe(503);
      expect(textsTo(owner)).toEqual(["This control is no longer valid."]);
      await recorded();
      // Meta sends the same notification again: the status acts now, the tap was answered already.
      expect((await post(both)).status).toBe(200);
      expect(templatesTo(owner)).toHaveLength(1);
      expect(textsTo(owner)).toEqual(["This control is no longer valid."]);
    });
  });

  it("an ended question gets no template", async () => {
    const owner = String(person);
    const question = await ask(owner);
    await stack.api("POST", `/questions/${question.id}/cancel`, {});
    const calls = messagesTo(owner).length;
    expect((await post(copyFailed(question))).status).toBe(200);
    expect(messagesTo(owner)).toHaveLength(calls);
  });
});

describe("a reminder outside the 24-hour window: reported, never a template", () => {
  const reminderTo = (waId: string) => {
    const reminder = messagesTo(waId).find((call) => call.body.type === "text");
    if (!reminder) throw new Error("no reminder was sent");
    return reminder;
  };

  it("refused at once (131047): an ERROR names the question and why", async () => {
    const owner = String(person);
    graph.answerOnce((call) => call.method === "messages" && call.body.type === "text", OUTSIDE_WINDOW);
    const logs = captureLogs();
    try {
      const question = await ask(owner, [single], { body: { timeoutSeconds: 60, remindAfterSeconds: [1] } });
      await stack.clock.advance(1000);
      const [line] = logs.logged("posting a reminder");
      expect(line).toMatchObject({ level: "ERROR", questionId: question.id, channel: "whatsapp" });
      expect(line?.error.message).toContain("24-hour window is closed (code 131047)");
      expect(line?.error.message).toContain("a reminder is not sent as a template");
      expect(JSON.stringify(line)).not.toContain(owner);
    } finally {
      logs.stop();
    }
    reminderTo(owner);
    expect(messagesTo(owner).map((call) => call.body.type)).toEqual(["interactive", "text"]);
  });

  it("taken, then failed in a status (131047): an ERROR names the question, once", async () => {
    const owner = String(person);
    const question = await ask(owner, [single], { body: { timeoutSeconds: 60, remindAfterSeconds: [1] } });
    await stack.clock.advance(1000);
    const reminder = reminderTo(owner);
    expect(reminder.body.biz_opaque_callback_data).toBe(`reminder:${question.id}`);
    const status = statusNotification(
      [
        failedStatus(wamidOf.get(reminder) ?? "", owner, {
          callbackData: reminder.body.biz_opaque_callback_data,
        }),
      ],
      PHONE_NUMBER_ID,
    );
    const logs = captureLogs();
    await post(status);
    await post(status);
    logs.stop();
    const lines = logs.logged("whatsapp reminder not delivered");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: "ERROR", questionId: question.id });
    expect(lines[0]?.error.message).toContain("a reminder is not sent as a template");
    expect(messagesTo(owner).map((call) => call.body.type)).toEqual(["interactive", "text"]);
    expect((await statusOf(question.id)).status).toBe("pending");
  });
});

describe("after the end", () => {
  it("a late reply or tap is told the outcome; nothing changes", async () => {
    const owner = String(person);
    const question = await ask(owner);
    const prompt = messagesTo(owner)[0];
    await stack.api("POST", `/questions/${question.id}/answer`, { answers: { deploy_target: ["Staging"] } });
    await stack.settled();
    // Nothing to retire: WhatsApp cannot edit the posted question.
    expect(messagesTo(owner)).toHaveLength(1);
    await post(typed(owner, "2", question.deliveries[0].messageId));
    await post(tapped(owner, "list_reply", rowId(prompt, "Production"), question.deliveries[0].messageId));
    expect(textsTo(owner)).toEqual([
      "This question has already been answered.",
      "This question has already been answered.",
    ]);
    expect(await statusOf(question.id)).toMatchObject({
      answers: { deploy_target: ["Staging (Recommended)"] },
    });
  });
});

describe("time", () => {
  it("a reminder is a message replying to the question; at the deadline the question expires, nothing is edited", async () => {
    const owner = String(person);
    const question = await ask(owner, [single], { body: { timeoutSeconds: 3, remindAfterSeconds: [1] } });
    await stack.clock.advance(1000);
    const reminder = messagesTo(owner).find((call) => call.body.type === "text");
    expect(reminder?.body).toMatchObject({
      to: owner,
      context: { message_id: question.deliveries[0].messageId },
      text: { body: expect.stringMatching(/^Still waiting for your answer — \d+ s left$/) },
    });
    await stack.clock.advance(2000);
    expect((await statusOf(question.id)).status).toBe("expired");
    expect(messagesTo(owner)).toHaveLength(2);
    await post(typed(owner, "1", question.deliveries[0].messageId));
    expect(textsTo(owner).at(-1)).toBe("This question has expired.");
  });
});
