import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MAX_ANSWER_VALUE_UNITS } from "#lib/questions/schema.ts";
import {
  type InProcessRun,
  type InProcessStack,
  runResult,
  startInProcessStack,
} from "../support/in-process-stack.ts";
import { largestArgs, largestContext, textOf } from "../support/largest-questions.ts";
import { mattermostActionResponseProblems, mattermostProblems } from "../support/platform-sizes.ts";
import type { FakePlatform, RecordedCall, Responder } from "./support/fake-platform.ts";
import {
  action,
  actionsOf,
  BOT_TOKEN,
  BOT_USER_ID,
  BOT_USERNAME,
  COMMAND_TOKEN,
  created,
  directChannels,
  HOOK_TOKEN,
  mattermostSettings,
  newId,
  OTHER_USER,
  OWNER,
  outsiders,
  slashFields,
  startFakeMattermost,
  tapBody,
  userPosts,
} from "./support/mattermost-fake.ts";
import {
  multiQuestion as multi,
  noteQuestion as note,
  singleQuestion as single,
  unique,
} from "./support/sample-questions.ts";
import { posted } from "./support/test-stack.ts";

/** Mattermost calls the URL in the button; the test plays Mattermost and posts to the stack directly. */
const PUBLIC_URL = "https://handraise.test";

let stack: InProcessStack;
let mattermost: FakePlatform;
/** Each test talks in a channel of its own: a plain message goes to the oldest pending question there. */
let channel = "";
let channels = 0;
/** Per test: answers a call before the fake's usual routes do (an outage, a slow server). */
let fault: ((call: RecordedCall) => ReturnType<Responder> | undefined) | undefined;

beforeAll(async () => {
  // Refused like Mattermost past its size limits: every test here runs within them.
  mattermost = await startFakeMattermost({ now: () => stack.clock.now(), fault: (call) => fault?.(call) });
  stack = await startInProcessStack({ ...mattermostSettings(mattermost), HANDRAISE_PUBLIC_URL: PUBLIC_URL });
});
afterAll(async () => {
  await stack?.stop();
  await mattermost?.stop();
});
beforeEach(() => {
  mattermost.calls.length = 0;
  fault = undefined;
  channel = `channel${String(++channels).padStart(4, "0")}`;
});
// What a test's last change set going (a copy retired) ends before the next test counts the calls.
afterEach(() => stack.settled());

type Target = { channel: string; chatId: string; threadId?: string };

async function startRun(
  questions: unknown[],
  options: { targets?: Target[]; input?: Record<string, unknown> } = {},
) {
  const sessionKey = unique("mm");
  const targets = options.targets ?? [{ channel: "mattermost", chatId: channel }];
  const before = created.length;
  // The run's AskUser task: the ask function delivers, and records the posted copies, before it returns.
  const run = await stack.ask({
    sessionKey,
    owner: `mattermost:${OWNER}`,
    deliverTo: targets,
    questions,
    ...options.input,
  });
  expect(created.length).toBeGreaterThanOrEqual(before + targets.length);
  const posts = created.slice(before);
  const questionId = (await stack.api("GET", `/questions?sessionKey=${sessionKey}`)).body.questions[0]
    .id as string;
  expect(questionId).toBe(run.questionId);
  const record = (await stack.api("GET", `/questions/${questionId}`)).body.question;
  expect(posted(record)).toBeGreaterThanOrEqual(targets.length);
  return {
    run,
    posts,
    post: posts[0] as (typeof posts)[number],
    questionId,
  };
}

async function send(body: string, headers: Record<string, string>) {
  const response = await stack.request("POST", "/webhooks/mattermost", { headers, body });
  return { status: response.status, body: response.text ? JSON.parse(response.text) : undefined };
}
const sendJson = (body: unknown) => send(JSON.stringify(body), { "content-type": "application/json" });
const sendForm = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
  send(new URLSearchParams(fields).toString(), {
    "content-type": "application/x-www-form-urlencoded",
    ...headers,
  });

const tap = (
  post: { id: string; body: any },
  name: string,
  options: { user?: string; triggerId?: string } = {},
) => sendJson(tapBody(post, name, options));

/** The dialog the last tap opened, and its submission as Mattermost forwards it. */
function lastDialog(): RecordedCall {
  const opened = mattermost.callsTo("open").at(-1);
  if (!opened) throw new Error("no dialog was opened");
  return opened;
}
const submitDialog = (
  opened: RecordedCall,
  submission: Record<string, unknown>,
  user = OWNER,
  channelId = channel,
) =>
  sendJson({
    type: "dialog_submission",
    callback_id: opened.body.dialog.callback_id,
    state: opened.body.dialog.state,
    user_id: user,
    channel_id: channelId,
    team_id: "team0000000000000000000001",
    submission,
    cancelled: false,
  });

const slash = (text: string, token = COMMAND_TOKEN, user = OWNER) =>
  sendForm(slashFields(text, channel, user), { authorization: `Token ${token}` });

interface TypedOptions {
  rootId?: string;
  user?: string;
  token?: string;
  /** Where the post really is (default: this test's channel); the webhook body always names `channel`. */
  postChannel?: string;
  /** Who really wrote it (default: `user`). */
  author?: string;
  /** What was really written (default: the text the body carries). */
  message?: string;
  createdAt?: number;
  /** Extra body fields, e.g. a forged `root_id`. */
  body?: Record<string, string>;
  /** Send a post id the fake does not know (Mattermost answers 404). */
  unknownPost?: boolean;
}

/** A message someone typed (in a thread when rootId is given), as an outgoing webhook delivers it. */
function typed(text: string, options: TypedOptions = {}) {
  const postId = newId("userpost");
  const user = options.user ?? OWNER;
  if (!options.unknownPost) {
    userPosts.set(postId, {
      channel_id: options.postChannel ?? channel,
      user_id: options.author ?? user,
      root_id: options.rootId ?? "",
      message: options.message ?? text,
      create_at: options.createdAt ?? stack.clock.now(),
      type: "",
    });
  }
  return sendForm({
    token: options.token ?? HOOK_TOKEN,
    team_id: "team0000000000000000000001",
    team_domain: "acme",
    channel_id: channel,
    channel_name: "town-square",
    timestamp: "1700000000",
    user_id: user,
    user_name: "ann",
    post_id: postId,
    text,
    trigger_word: "",
    file_ids: "",
    ...options.body,
  });
}

/**
 * The reply the scripted run of mattermost-e2e.test.ts ends with (`{{c1.status}}|{{c1.reason}}|
 * {{c1.deploy_target}}{{c1.checks}}{{c1.second}}|{{c1.release_note}}`), from what its AskUser task received.
 */
async function replyOf(run: InProcessRun): Promise<string> {
  const result = runResult(await run.result());
  const answers = (id: string) => (result.answers?.[id] ?? []).join(",");
  return `${result.status}|${result.reason ?? ""}|${answers("deploy_target")}${answers("checks")}${answers("second")}|${answers("release_note")}`;
}
const statusOf = async (questionId: string) =>
  (await stack.api("GET", `/questions/${questionId}`)).body.question.status as string;
/** Every item the store holds (as a scan of the table would list them). */
const allItems = async () => structuredClone([...stack.store.items.values()]) as Record<string, any>[];
const patches = () => mattermost.calls.filter((c) => c.path.endsWith("/patch"));

/** Everything stored but the claims of handled platform events (chatter that was read and ignored). */
const questionItems = async () => (await allItems()).filter((item) => item.entity !== "inboundEvent");

/** Nothing changed: the same items stored, the question pending, its run still waiting, no copy edited. */
async function expectUnchanged(before: Record<string, any>[], questionId: string, run: InProcessRun) {
  expect(await allItems()).toEqual(before);
  expect(await statusOf(questionId)).toBe("pending");
  await stack.settled();
  expect(run.outcome()).toBeUndefined();
  expect(patches()).toHaveLength(0);
}
const UNCONFIRMED = /could not confirm who you are/;

describe("Mattermost webhook verification", () => {
  it("an unsigned or tampered tap → 401 and nothing stored or resumed", async () => {
    const { post, questionId } = await startRun([single]);
    const before = await allItems();
    const body = tapBody(post, "Production");
    const { sig: _sig, ...unsigned } = body.context;
    const skipSig = action(post, "Skip").integration.context.sig;
    const variants = [
      { ...body, context: unsigned },
      // The Production button's context with the Skip button's signature.
      { ...body, context: { ...body.context, sig: skipSig } },
      // Another option under Production's signature.
      { ...body, context: { ...body.context, control: `o|0|0|${questionId}` } },
      { ...body, context: { ...body.context, sig: "0".repeat(64) } },
    ];
    for (const variant of variants) expect((await sendJson(variant)).status).toBe(401);
    expect((await send("{not json", { "content-type": "application/json" })).status).toBe(401);
    expect(await allItems()).toEqual(before);
    expect(await statusOf(questionId)).toBe("pending");
    expect(patches()).toHaveLength(0);
  });

  it("a body over 64 KiB → 413 before verification, even a validly signed tap; nothing stored", async () => {
    const { post, questionId } = await startRun([single]);
    const before = await allItems();
    const padded = { ...tapBody(post, "Production"), data_source: "x".repeat(64 * 1024) };
    const response = await sendJson(padded);
    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(await allItems()).toEqual(before);
    expect(await statusOf(questionId)).toBe("pending");
    // The same tap within the limit is read.
    expect((await sendJson({ ...padded, data_source: "" })).body.update.message).toContain("Answered");
  });

  it("a wrong command or webhook token → 401; a verified but malformed body → 400", async () => {
    const { questionId } = await startRun([single]);
    const before = await allItems();
    expect((await slash("cancel", "wrongtoken1234567890abcdef")).status).toBe(401);
    expect(
      (
        await sendForm({
          token: "",
          user_id: OWNER,
          channel_id: channel,
          command: "/handraise",
          text: "cancel",
        })
      ).status,
    ).toBe(401);
    expect((await typed("Production", { token: "wrongtoken1234567890abcdef" })).status).toBe(401);
    expect(await allItems()).toEqual(before);
    expect(await statusOf(questionId)).toBe("pending");

    expect((await sendForm({ token: COMMAND_TOKEN, command: "/handraise", text: "cancel" })).status).toBe(
      400,
    );
  });
});

describe("Mattermost tokens: each proves one kind of request", () => {
  /** A slash command whose token travels in the form only (Mattermost sends it in both places). */
  const slashInForm = (text: string, token: string) =>
    sendForm({ token, user_id: OWNER, channel_id: channel, command: "/handraise", text });

  it("the outgoing webhook's token is refused as a slash command's: 401, nothing changes; the command's own token cancels", async () => {
    const { questionId, run } = await startRun([single]);
    const before = await allItems();
    const calls = mattermost.calls.length;
    for (const response of [
      await slash("cancel", HOOK_TOKEN),
      await slashInForm("cancel", HOOK_TOKEN),
      await slash("question", HOOK_TOKEN),
    ]) {
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe("UNAUTHORIZED");
    }
    await expectUnchanged(before, questionId, run);
    // Refused before anything was asked of Mattermost.
    expect(mattermost.calls.slice(calls)).toEqual([]);

    expect((await slash("cancel", COMMAND_TOKEN)).body.text).toBe("Cancelled\\.");
    expect(await replyOf(run)).toBe("no_answer|cancelled||");
  });

  it("the slash command's token is refused as an outgoing webhook's: 401, nothing changes; the webhook's own token answers", async () => {
    const { post, questionId, run } = await startRun([single]);
    const before = await allItems();
    const calls = mattermost.calls.length;
    const asForm = await typed("2", { rootId: post.id, token: COMMAND_TOKEN });
    expect(asForm.status).toBe(401);
    const asJson = await sendJson({
      token: COMMAND_TOKEN,
      user_id: OWNER,
      channel_id: channel,
      post_id: newId("userpost"),
      text: "2",
      trigger_word: "",
    });
    expect(asJson.status).toBe(401);
    await expectUnchanged(before, questionId, run);
    // Refused before anything was read back from Mattermost.
    expect(mattermost.calls.slice(calls)).toEqual([]);

    expect((await typed("2", { rootId: post.id, token: HOOK_TOKEN })).status).toBe(200);
    expect(await replyOf(run)).toBe("answered||Production|");
  });
});

describe("Mattermost end to end", () => {
  it("posts the escaped prompt with signed buttons to the webhook URL, Other…, Answer in browser and Skip, and no task token", async () => {
    const { post, questionId } = await startRun([
      {
        ...single,
        question: "Ship *it* to @channel?",
        options: [{ label: "Staging (Recommended)" }, { label: "Production" }],
      },
    ]);
    const call = mattermost.callsTo("posts")[0] as RecordedCall;
    expect(call.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    expect(post.body.channel_id).toBe(channel);
    expect(post.body.root_id).toBeUndefined();
    expect(post.body.message).toContain("Ship \\*it\\* to @\u200bchannel?");
    // A channel is shared: no answer link in it, a button that hands each tapper their own instead.
    expect(JSON.stringify(post.body)).not.toContain("/answer/");
    expect(actionsOf(post).map((a) => a.name)).toEqual([
      "Staging (Recommended)",
      "Production",
      "Other…",
      "Answer in browser",
      "Skip",
    ]);
    for (const a of actionsOf(post)) {
      expect(a.integration.url).toBe(`${PUBLIC_URL}/webhooks/mattermost`);
      // The one control codec's string, signed.
      expect(a.integration.context).toEqual({
        control: expect.stringMatching(new RegExp(`^[oxsw]\\|0\\|[01]\\|${questionId}$`)),
        sig: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
    }
    const tokens = (await allItems()).flatMap((i) => (i.taskToken ? [i.taskToken as string] : []));
    expect(tokens.length).toBeGreaterThan(0);
    for (const recorded of mattermost.calls)
      for (const token of tokens) expect(JSON.stringify(recorded.body)).not.toContain(token);
  });

  it("a typed reply in the question's thread resumes the run", async () => {
    const { run, post } = await startRun([single]);
    expect((await typed("2", { rootId: post.id })).status).toBe(200);
    expect(mattermost.calls.some((c) => /^\/api\/v4\/posts\/userpost\d+$/.test(c.path))).toBe(true);
    expect(await replyOf(run)).toBe("answered||Production|");
  });

  it("multi-select: Choose… opens a dialog with a multiselect, and its submission answers", async () => {
    const { run, post } = await startRun([multi]);
    expect(actionsOf(post).map((a) => a.name)).toEqual(["Choose one or more…", "Answer in browser", "Skip"]);
    const triggerId = Buffer.from(unique("trigger")).toString("base64");
    expect((await tap(post, "Choose one or more…", { triggerId })).body).toEqual({});
    const opened = lastDialog();
    expect(opened.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    expect(opened.body).toMatchObject({ trigger_id: triggerId, url: `${PUBLIC_URL}/webhooks/mattermost` });
    expect(opened.body.dialog.elements).toEqual([
      expect.objectContaining({
        name: "checks",
        type: "select",
        multiselect: true,
        options: ["Unit", "E2E", "Lint"].map((label) => ({ text: label, value: label })),
      }),
      // A textarea: a `text` element takes at most 150 characters.
      expect.objectContaining({ name: "checks:other", type: "textarea", optional: true }),
    ]);
    const submitted = await submitDialog(opened, { checks: ["Unit", "Lint"], "checks:other": "" });
    expect(submitted).toEqual({ status: 200, body: {} });
    expect(await replyOf(run)).toBe("answered||Unit,Lint|");
  });

  it("Other… opens a free-text dialog; its submission is the answer", async () => {
    const { run, post } = await startRun([single]);
    await tap(post, "Other…");
    const opened = lastDialog();
    expect(opened.body.dialog.elements).toEqual([
      expect.objectContaining({ name: "deploy_target:other", type: "textarea", optional: false }),
    ]);
    expect((await submitDialog(opened, { "deploy_target:other": "blue-green on Friday" })).body).toEqual({});
    expect(await replyOf(run)).toBe("answered||blue-green on Friday|");
  });

  it("/handraise question posts the pending question again", async () => {
    const { post, questionId, run } = await startRun([single]);
    const response = await slash("question");
    expect(response.body).toEqual({ response_type: "ephemeral", text: "Posted the question again\\." });
    const again = created.at(-1) as (typeof created)[number];
    expect(again.id).not.toBe(post.id);
    expect(again.body.channel_id).toBe(channel);
    const record = (await stack.api("GET", `/questions/${questionId}`)).body.question;
    expect(record.deliveries.map((d: { messageId: string }) => d.messageId)).toEqual([post.id, again.id]);
    await tap(again, "Production");
    expect(await replyOf(run)).toBe("answered||Production|");
  });

  it("someone else's tap gets a private notice and changes nothing", async () => {
    const { post, questionId, run } = await startRun([single]);
    const response = await tap(post, "Production", { user: OTHER_USER });
    expect(response).toEqual({
      status: 200,
      body: { ephemeral_text: "This question is not yours to answer\\." },
    });
    expect(await statusOf(questionId)).toBe("pending");
    expect(patches()).toHaveLength(0);
    // Their typed reply in the thread is ignored too.
    expect((await typed("1", { rootId: post.id, user: OTHER_USER })).body).toEqual({});
    expect(await statusOf(questionId)).toBe("pending");
    await tap(post, "Staging (Recommended)");
    expect(await replyOf(run)).toBe("answered||Staging (Recommended)|");
  });

  it("two pending questions in one channel are answered through their own thread replies and buttons", async () => {
    const first = await startRun([single]);
    const second = await startRun([{ ...single, id: "second", header: "Second" }]);
    await typed("Production", { rootId: second.post.id });
    expect(await replyOf(second.run)).toBe("answered||Production|");
    expect(await statusOf(second.questionId)).toBe("answered");
    expect((await stack.api("GET", `/questions/${second.questionId}`)).body.question.answers).toEqual({
      second: ["Production"],
    });
    expect(await statusOf(first.questionId)).toBe("pending");
    // A later reply in the answered question's thread is told so, in the thread.
    expect((await typed("1", { rootId: second.post.id })).body).toEqual({
      text: "This question has already been answered\\.",
      response_type: "comment",
    });
    await tap(first.post, "Staging (Recommended)");
    expect(await replyOf(first.run)).toBe("answered||Staging (Recommended)|");
  });
});

describe("Mattermost stepper: a prompt of several questions, one step at a time", () => {
  /** The post as a tap's `update` redrew it (its id and channel stay). */
  const redrawn = (post: { id: string; body: any }, update: any) => ({
    id: post.id,
    body: { channel_id: post.body.channel_id, ...update },
  });
  const names = (post: { body: any }) => actionsOf(post).map((a) => a.name);
  const styleOf = (post: { body: any }, name: string) => action(post, name).style;
  const draftOf = async (questionId: string) =>
    (await stack.api("GET", `/questions/${questionId}`)).body.question.draft;
  /** The answer link: never in a channel's post, whose steps keep the Answer in browser button instead. */
  const LINK = /\/answer\//;

  it("three questions answered step by step — option, Choose… dialog, Other… dialog — resume the run with all three", async () => {
    const { run, post, questionId } = await startRun([single, multi, note]);
    // Step 1 of 3: the first question alone, its options, Other… and Skip; no Back yet.
    expect(post.body.message).toMatch(/^\*\*1 of 3\*\*\n\n/);
    expect(post.body.message).toContain("Where should it go?");
    expect(post.body.message).not.toContain("Which checks?");
    expect(JSON.stringify(post.body)).not.toMatch(LINK);
    expect(names(post)).toEqual([
      "Staging (Recommended)",
      "Production",
      "Other…",
      "Answer in browser",
      "Skip",
    ]);

    const first = await tap(post, "Production");
    expect(first.status).toBe(200);
    // The action response redraws the post at step 2 (Mattermost replaces message and attachments).
    expect(Object.keys(first.body)).toEqual(["update"]);
    expect(first.body.update).toEqual({
      message: expect.stringMatching(/^\*\*2 of 3\*\*\n\n/),
      props: {
        attachments: [{ fallback: "Which checks?", actions: expect.any(Array) }],
      },
    });
    expect(first.body.update.message).toContain("Which checks?");
    expect(JSON.stringify(first.body)).not.toMatch(LINK);
    const step2 = redrawn(post, first.body.update);
    expect(names(step2)).toEqual(["Choose one or more…", "Back", "Answer in browser", "Skip"]);
    for (const a of actionsOf(step2)) {
      expect(a.integration.url).toBe(`${PUBLIC_URL}/webhooks/mattermost`);
      expect(a.integration.context).toEqual({
        control: expect.stringMatching(new RegExp(`^[cbws]\\|[01]\\|0\\|${questionId}$`)),
        sig: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
    }
    // Kept as the draft, not an answer: the run still waits.
    expect(await draftOf(questionId)).toEqual({ deploy_target: ["Production"] });
    expect(await statusOf(questionId)).toBe("pending");

    // Step 2: Choose… opens a dialog with the multi-select; its submission moves the post to step 3.
    expect((await tap(step2, "Choose one or more…")).body).toEqual({});
    const choose = lastDialog();
    expect(choose.body.dialog.elements.map((e: { name: string }) => e.name)).toEqual([
      "checks",
      "checks:other",
    ]);
    expect(await submitDialog(choose, { checks: ["Unit", "Lint"] })).toEqual({ status: 200, body: {} });
    const patched = patches().at(-1) as RecordedCall;
    expect(patched.path).toBe(`/api/v4/posts/${post.id}/patch`);
    expect(patched.body.message).toMatch(/^\*\*3 of 3\*\*\n\n/);
    expect(patched.body.message).toContain("What kind of release note?");
    const step3 = redrawn(post, patched.body);
    expect(JSON.stringify(patched.body)).not.toMatch(LINK);
    expect(names(step3)).toEqual([
      "Routine (Recommended)",
      "Urgent",
      "Other…",
      "Back",
      "Answer in browser",
      "Skip",
    ]);
    expect(await draftOf(questionId)).toEqual({ deploy_target: ["Production"], checks: ["Unit", "Lint"] });

    // Step 3: Other… opens a free-text dialog; the last step submits every answer.
    expect((await tap(step3, "Other…")).body).toEqual({});
    const other = lastDialog();
    expect(other.body.dialog.elements).toEqual([
      expect.objectContaining({ name: "release_note:other", type: "textarea", optional: false }),
    ]);
    expect(await submitDialog(other, { "release_note:other": "night-shift" })).toEqual({
      status: 200,
      body: {},
    });
    expect(await replyOf(run)).toBe("answered||ProductionUnit,Lint|night-shift");
    const record = (await stack.api("GET", `/questions/${questionId}`)).body.question;
    expect(record.answers).toEqual({
      deploy_target: ["Production"],
      checks: ["Unit", "Lint"],
      release_note: ["night-shift"],
    });
  });

  it("Back shows the earlier step with its choice marked; a different option there changes that answer", async () => {
    const { run, post, questionId } = await startRun([single, note]);
    const step2 = redrawn(post, (await tap(post, "Production")).body.update);
    expect(step2.body.message).toMatch(/^\*\*2 of 2\*\*/);

    const back = await tap(step2, "Back");
    expect(Object.keys(back.body)).toEqual(["update"]);
    const again = redrawn(post, back.body.update);
    expect(again.body.message).toMatch(/^\*\*1 of 2\*\*/);
    expect(names(again)).toEqual([
      "Staging (Recommended)",
      "Production",
      "Other…",
      "Answer in browser",
      "Skip",
    ]);
    expect(styleOf(again, "Production")).toBe("primary");
    expect(styleOf(again, "Staging (Recommended)")).toBeUndefined();
    // Back writes nothing.
    expect(await draftOf(questionId)).toEqual({ deploy_target: ["Production"] });

    const changed = redrawn(post, (await tap(again, "Staging (Recommended)")).body.update);
    expect(changed.body.message).toMatch(/^\*\*2 of 2\*\*/);
    expect(await draftOf(questionId)).toEqual({ deploy_target: ["Staging (Recommended)"] });

    const last = await tap(changed, "Urgent");
    expect(last.body).toEqual({
      update: {
        message: expect.stringContaining("Answered — Deploy to: Staging"),
        props: { attachments: [] },
      },
      ephemeral_text: "Got it\\.",
    });
    expect(await replyOf(run)).toBe("answered||Staging (Recommended)|Urgent");
  });

  it("typed replies in the thread during the steps answer what is still missing", async () => {
    const { run, post, questionId } = await startRun([single, multi, note]);
    await tap(post, "Production");
    // A plain line answers the first question without a value: Checks (the step shown).
    expect((await typed("2", { rootId: post.id })).body).toEqual({
      text: "Recorded: Checks: E2E\\. Still needed: Release note \\[release\\_note\\]\\.",
      response_type: "comment",
    });
    expect(await draftOf(questionId)).toEqual({ deploy_target: ["Production"], checks: ["E2E"] });
    // Posted again, the prompt opens at the first step the draft has no value for.
    expect((await slash("question")).body.text).toBe("Posted the question again\\.");
    const again = created.at(-1) as (typeof created)[number];
    expect(again.body.message).toMatch(/^\*\*3 of 3\*\*\n\n/);
    expect(names(again)).toEqual([
      "Routine (Recommended)",
      "Urgent",
      "Other…",
      "Back",
      "Answer in browser",
      "Skip",
    ]);
    expect((await typed("release_note: 2", { rootId: post.id })).body).toEqual({});
    expect(await replyOf(run)).toBe("answered||ProductionE2E|Urgent");
  });

  it("someone else's tap on a step is told privately it is not theirs, and nothing is kept", async () => {
    const { run, post, questionId } = await startRun([single, note]);
    const notYours = { status: 200, body: { ephemeral_text: "This question is not yours to answer\\." } };
    expect(await tap(post, "Production", { user: OTHER_USER })).toEqual(notYours);
    expect((await stack.api("GET", `/questions/${questionId}`)).body.question).not.toHaveProperty("draft");

    const step2 = redrawn(post, (await tap(post, "Staging (Recommended)")).body.update);
    for (const name of ["Urgent", "Back", "Skip"]) {
      expect(await tap(step2, name, { user: OTHER_USER })).toEqual(notYours);
    }
    expect(await draftOf(questionId)).toEqual({ deploy_target: ["Staging (Recommended)"] });
    expect(await statusOf(questionId)).toBe("pending");
    expect(patches()).toHaveLength(0);

    await tap(step2, "Routine (Recommended)");
    expect(await replyOf(run)).toBe("answered||Staging (Recommended)|Routine (Recommended)");
  });
});

describe("Mattermost identity: only what Mattermost's API confirms counts", () => {
  it("a message counts only when its post, read back from the API, is the sender's, in that channel, and recent", async () => {
    const { post, questionId, run } = await startRun([single]);
    const before = await allItems();
    const claimsThread = { root_id: post.id };
    const forgeries = [
      // A made-up post id (the API answers 404), with and without a root_id naming the question.
      () => typed("2", { unknownPost: true }),
      () => typed("2", { unknownPost: true, body: claimsThread }),
      // Someone else's post in the question's thread, sent as the owner's.
      () => typed("2", { rootId: post.id, author: OTHER_USER }),
      () => typed("2", { rootId: post.id, author: OTHER_USER, body: claimsThread }),
      // The owner's post in another channel.
      () => typed("2", { rootId: post.id, postChannel: `x${channel}`, body: claimsThread }),
      // A real post of the owner in the thread, but from an hour ago: a replay.
      () => typed("2", { rootId: post.id, createdAt: stack.clock.now() - 3_600_000 }),
    ];
    for (const forge of forgeries) expect(await forge()).toEqual({ status: 200, body: {} });
    // Refused before handling: not even a dedupe claim was written.
    await expectUnchanged(before, questionId, run);

    // The owner's real post is in another thread, or at the top level; the body claims the question's
    // thread. The post is read as what it is — chatter — and changes nothing.
    expect(await typed("2", { rootId: "otherthread000000000000001", body: claimsThread })).toEqual({
      status: 200,
      body: {},
    });
    expect(await typed("2", { body: claimsThread })).toEqual({ status: 200, body: {} });
    expect(await questionItems()).toEqual(before.filter((item) => item.entity !== "inboundEvent"));
    expect(await statusOf(questionId)).toBe("pending");

    // A genuine reply answers with what the post says, not with the text the body carries.
    await typed("2", { rootId: post.id, message: "1" });
    expect(await replyOf(run)).toBe("answered||Staging (Recommended)|");
  });

  it("an API that fails or times out refuses a message, a command and a tap, and changes nothing", async () => {
    const { post, questionId, run } = await startRun([single]);
    const before = await allItems();
    fault = (call) => (call.verb === "GET" ? { status: 500, body: { message: "boom" } } : undefined);
    expect(await typed("2", { rootId: post.id, body: { root_id: post.id } })).toEqual({
      status: 200,
      body: {},
    });
    const command = await slash("cancel");
    expect(command.status).toBe(200);
    expect(command.body).toMatchObject({
      response_type: "ephemeral",
      text: expect.stringMatching(UNCONFIRMED),
    });
    const tapped = await tap(post, "Production");
    expect(tapped).toEqual({ status: 200, body: { ephemeral_text: expect.stringMatching(UNCONFIRMED) } });
    // Slower than the client waits (2 s).
    fault = (call) =>
      call.verb === "GET"
        ? new Promise((resolve) => setTimeout(() => resolve({ body: {} }), 2_500))
        : undefined;
    expect(await typed("2", { rootId: post.id })).toEqual({ status: 200, body: {} });
    await expectUnchanged(before, questionId, run);

    fault = undefined;
    await tap(post, "Production");
    expect(await replyOf(run)).toBe("answered||Production|");
  });

  it("a command, tap or dialog of someone the API does not list in that channel is refused; a tap on a post of another channel too", async () => {
    const { post, questionId, run } = await startRun([single]);
    await tap(post, "Other…");
    const opened = lastDialog();
    const before = await allItems();

    outsiders.add(`${channel}:${OWNER}`);
    try {
      const command = await slash("cancel");
      expect(command.status).toBe(200);
      expect(command.body).toMatchObject({
        response_type: "ephemeral",
        text: expect.stringMatching(UNCONFIRMED),
      });
      expect(await tap(post, "Production")).toEqual({
        status: 200,
        body: { ephemeral_text: expect.stringMatching(UNCONFIRMED) },
      });
      const submitted = await submitDialog(opened, { "deploy_target:other": "blue-green" });
      expect(submitted.status).toBe(200);
      expect(submitted.body.error).toMatch(UNCONFIRMED);
    } finally {
      outsiders.delete(`${channel}:${OWNER}`);
    }
    const elsewhere = newId("userpost");
    userPosts.set(elsewhere, {
      channel_id: `x${channel}`,
      user_id: OTHER_USER,
      root_id: "",
      message: "hi",
      create_at: stack.clock.now(),
      type: "",
    });
    expect(await sendJson({ ...tapBody(post, "Production"), post_id: elsewhere })).toEqual({
      status: 200,
      body: { ephemeral_text: expect.stringMatching(UNCONFIRMED) },
    });
    await expectUnchanged(before, questionId, run);

    // The member's own command still works.
    expect((await slash("cancel")).body.text).toBe("Cancelled\\.");
    expect(await replyOf(run)).toBe("no_answer|cancelled||");
  });

  it("a dialog submitted from another channel than its tap, or after 15 minutes, is refused and changes nothing; a fresh one answers", async () => {
    // The question itself outlives the form.
    const { post, questionId, run } = await startRun([single], { input: { timeoutSeconds: 3600 } });
    await tap(post, "Other…");
    const opened = lastDialog();
    const before = await allItems();
    // The owner is a member there too: only the state's own channel says where the form was opened.
    const elsewhere = await submitDialog(
      opened,
      { "deploy_target:other": "blue-green" },
      OWNER,
      `x${channel}`,
    );
    expect(elsewhere).toEqual({ status: 200, body: { error: expect.stringMatching(UNCONFIRMED) } });
    await expectUnchanged(before, questionId, run);

    await stack.clock.advance(15 * 60_000 + 1_000);
    const late = await allItems();
    mattermost.calls.length = 0;
    expect(await submitDialog(opened, { "deploy_target:other": "blue-green" })).toEqual({
      status: 200,
      body: { error: "This form is no longer valid." },
    });
    await expectUnchanged(late, questionId, run);

    await tap(post, "Other…");
    expect((await submitDialog(lastDialog(), { "deploy_target:other": "blue-green" })).body).toEqual({});
    expect(await replyOf(run)).toBe("answered||blue-green|");
  });
});

describe("Mattermost: typed text in a channel counts only in the question's thread or addressed to the bot", () => {
  it("chatter at the top level or in another thread changes nothing; a mention of the bot answers", async () => {
    const { questionId, run } = await startRun([single]);
    // A valid answer, but at the top level of the channel and not addressed to the bot: conversation.
    expect((await typed("2")).body).toEqual({});
    expect((await typed("2", { rootId: "otherthread000000000000001" })).body).toEqual({});
    expect((await typed(`@${BOT_USERNAME}2 2`)).body).toEqual({});
    expect(await statusOf(questionId)).toBe("pending");
    await typed(`@${BOT_USERNAME} 2`);
    expect(await replyOf(run)).toBe("answered||Production|");
  });

  it("the bot's username is read only for a message that may mention it", async () => {
    const { questionId } = await startRun([single]);
    await typed("brb");
    expect(mattermost.calls.filter((c) => c.path === "/api/v4/users/me")).toEqual([]);
    expect(await statusOf(questionId)).toBe("pending");
  });

  it("a question posted into an existing thread is answered by a reply in that thread", async () => {
    const thread = "threadroot0000000000000009";
    const { run } = await startRun([single], {
      targets: [{ channel: "mattermost", chatId: channel, threadId: thread }],
    });
    await typed("2", { rootId: thread });
    expect(await replyOf(run)).toBe("answered||Production|");
  });
});

describe("Mattermost: an answer link only where its answerer alone can read it", () => {
  /** The answer link of a Markdown "Answer in browser" link. */
  const linkIn = (text: string) =>
    /\[Answer in browser\]\((https:\/\/handraise\.test\/answer\/[^)\s]+)\)/.exec(text)?.[1];
  const ownerLink = (questionId: string) =>
    new RegExp(`^${PUBLIC_URL}/answer/${questionId}\\?sig=[A-Za-z0-9_-]{43}$`);
  const names = (post: { body: any }) => actionsOf(post).map((a) => a.name);
  const sentBodies = () => JSON.stringify(mattermost.calls.map((c) => c.body));
  const deliveriesOf = async (questionId: string) =>
    (await stack.api("GET", `/questions/${questionId}`)).body.question.deliveries.map(
      (d: { chatId: string; privateTo?: string }) => [d.chatId, d.privateTo],
    );

  /** Answers through the answer page at a link, as a browser posts its form (the link names the public URL). */
  function answerThroughLink(url: string, fields: [string, string][]) {
    const link = new URL(url);
    return stack.request("POST", `${link.pathname}${link.search}`, {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams([
        ["sig", link.searchParams.get("sig") ?? ""],
        ...fields,
        ["action", "submit"],
      ]).toString(),
    });
  }

  it("a channel's post has no link; the owner's tap on Answer in browser gets their own link as ephemeral text, which answers as them", async () => {
    const { post, questionId, run } = await startRun([single]);
    expect(sentBodies()).not.toContain("/answer/");
    expect(await deliveriesOf(questionId)).toEqual([[channel, undefined]]);
    const postsBefore = created.length;

    const response = await tap(post, "Answer in browser");
    expect(response.status).toBe(200);
    // Only the tapper sees it; the post is not updated.
    expect(Object.keys(response.body)).toEqual(["ephemeral_text"]);
    expect(response.body.ephemeral_text).toMatch(
      /^Your own link to answer in a browser\\\. It works for you alone: do not share it\\\.\n\n\[Answer in browser\]\(/,
    );
    const url = linkIn(response.body.ephemeral_text) ?? "";
    expect(url).toMatch(ownerLink(questionId));
    expect(created.length).toBe(postsBefore);
    expect(patches()).toHaveLength(0);
    expect(sentBodies()).not.toContain("/answer/");

    expect((await answerThroughLink(url, [["a.deploy_target", "1"]])).status).toBe(303);
    expect(await replyOf(run)).toBe("answered||Production|");
    expect((await stack.api("GET", `/questions/${questionId}`)).body.question.resolvedBy).toBe(
      `web:mattermost:${OWNER}`,
    );
  });

  it("someone else's tap on Answer in browser is told it is not theirs, and no link is handed anywhere", async () => {
    const { post, questionId } = await startRun([single]);
    const postsBefore = created.length;
    const response = await tap(post, "Answer in browser", { user: OTHER_USER });
    expect(response).toEqual({
      status: 200,
      body: { ephemeral_text: "This question is not yours to answer\\." },
    });
    expect(sentBodies()).not.toContain("/answer/");
    expect(created.length).toBe(postsBefore);
    expect(patches()).toHaveLength(0);
    expect(await statusOf(questionId)).toBe("pending");
  });

  it("the bot's direct channel with the owner gets the owner's link at every step; a channel's copy keeps the button", async () => {
    const dm = `dm${channel}`;
    directChannels.set(dm, `${BOT_USER_ID}__${OWNER}`);
    const { posts, questionId, run } = await startRun([single, multi, note], {
      targets: [
        { channel: "mattermost", chatId: dm },
        { channel: "mattermost", chatId: channel },
      ],
    });
    const direct = posts.find((p) => p.body.channel_id === dm) as (typeof posts)[number];
    const shared = posts.find((p) => p.body.channel_id === channel) as (typeof posts)[number];
    expect(mattermost.calls.some((c) => c.verb === "GET" && c.path === `/api/v4/channels/${dm}`)).toBe(true);
    expect(linkIn(direct.body.message)).toMatch(ownerLink(questionId));
    expect(names(direct)).not.toContain("Answer in browser");
    expect(JSON.stringify(shared.body)).not.toContain("/answer/");
    expect(names(shared)).toContain("Answer in browser");
    expect(await deliveriesOf(questionId)).toEqual([
      [dm, `mattermost:${OWNER}`],
      [channel, undefined],
    ]);

    // A tap's redraw of the direct post keeps its link…
    const step2 = await tap(direct, "Production");
    expect(linkIn(step2.body.update.message)).toMatch(ownerLink(questionId));
    expect(names({ body: step2.body.update })).toEqual(["Choose one or more…", "Back", "Skip"]);
    // …and so does a dialog's (the post is patched).
    await tap({ id: direct.id, body: { channel_id: dm, ...step2.body.update } }, "Choose one or more…");
    expect(await submitDialog(lastDialog(), { checks: ["Unit"] }, OWNER, dm)).toEqual({
      status: 200,
      body: {},
    });
    const patched = patches().at(-1) as RecordedCall;
    expect(patched.path).toBe(`/api/v4/posts/${direct.id}/patch`);
    expect(patched.body.message).toMatch(/^\*\*3 of 3\*\*/);
    expect(linkIn(patched.body.message)).toMatch(ownerLink(questionId));

    // The channel's copy, redrawn at a step, has the button and no link.
    const sharedStep = await tap(shared, "Production");
    expect(JSON.stringify(sharedStep.body)).not.toContain("/answer/");
    expect(names({ body: sharedStep.body.update })).toEqual([
      "Choose one or more…",
      "Back",
      "Answer in browser",
      "Skip",
    ]);
    const link = linkIn(direct.body.message) ?? "";
    const answers: [string, string][] = [
      ["a.deploy_target", "1"],
      ["a.checks", "0"],
      ["a.release_note", "1"],
    ];
    expect((await answerThroughLink(link, answers)).status).toBe(303);
    expect(await replyOf(run)).toBe("answered||ProductionUnit|Urgent");
  });

  it("a direct channel the API does not confirm as the bot's with the owner — someone else's, two people's, an error — gets the button, not the link", async () => {
    const others = `dmothers${channel}`;
    const people = `dmpeople${channel}`;
    const failing = `dmfailing${channel}`;
    directChannels.set(others, `${BOT_USER_ID}__${OTHER_USER}`);
    directChannels.set(people, `${OTHER_USER}__${OWNER}`);
    directChannels.set(failing, `${BOT_USER_ID}__${OWNER}`);
    fault = (call) =>
      call.path === `/api/v4/channels/${failing}`
        ? { status: 403, body: { message: "forbidden" } }
        : undefined;
    const targets = [others, people, failing].map((chatId) => ({ channel: "mattermost", chatId }));
    const { posts, questionId } = await startRun([single], { targets });
    expect(posts).toHaveLength(3);
    for (const post of posts) expect(names(post)).toContain("Answer in browser");
    expect(sentBodies()).not.toContain("/answer/");
    expect((await deliveriesOf(questionId)).map(([, privateTo]: unknown[]) => privateTo)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe("Mattermost: the context (who is asking and why) above the questions", () => {
  const CONTEXT = "Release agent for <alice> & *ops*:\n@channel v1.4 `green`";
  /** As Mattermost's Markdown shows it literally: markup escaped, `@` kept from notifying, the line break kept. */
  const SHOWN = "Release agent for \\<alice\\> \\& \\*ops\\*:\n@\u200bchannel v1\\.4 \\`green\\`";

  it("stands above the question in the first post, each step's redraw and the retired copy, escaped", async () => {
    const before = created.length;
    const asked = await stack.api("POST", "/questions", {
      questions: [single, note],
      owner: `mattermost:${OWNER}`,
      deliverTo: [{ channel: "mattermost", chatId: channel }],
      context: CONTEXT,
    });
    expect(asked.status).toBe(201);
    const questionId = asked.body.id as string;
    // The question API delivers, and records the posted copy, before it answers.
    expect(posted((await stack.api("GET", `/questions/${questionId}`)).body.question)).toBeGreaterThanOrEqual(
      1,
    );
    const post = created[before] as { id: string; body: any };
    expect(post.body.message).toMatch(/^\*\*1 of 2\*\*\n\n/);
    expect(post.body.message).toContain(`Question for you:\n\n${SHOWN}\n\nDeploy to\nWhere should it go?`);

    const first = await tap(post, "Production");
    expect(first.body.update.message).toMatch(/^\*\*2 of 2\*\*\n\n/);
    expect(first.body.update.message).toContain(`Question for you:\n\n${SHOWN}\n\nRelease note`);

    const step2 = { id: post.id, body: { channel_id: post.body.channel_id, ...first.body.update } };
    const last = await tap(step2, "Urgent");
    expect(last.body.update.props).toEqual({ attachments: [] });
    expect(last.body.update.message).toContain(`Question for you:\n\n${SHOWN}\n\n1\\. Deploy to`);
    expect(await statusOf(questionId)).toBe("answered");
  });
});

describe("Mattermost: every message fits, whatever the question's size", () => {
  const redrawn = (post: { id: string; body: any }, update: any) => ({
    id: post.id,
    body: { channel_id: post.body.channel_id, ...update },
  });
  /** Mattermost shows text escaped: compare a header as the post carries it. */
  const escaped = (text: string) =>
    text.replace(/[\\`*_{}[\]()#+\-.!|~<>=&$]/g, "\\$&").replace(/@/g, "@\u200b");

  it("the largest question the contract allows: the post, each step, the dialogs, the notices and the ended copy within Mattermost's limits; the outcome shown", async () => {
    const { questions } = largestArgs("mixed");
    const [first, second, third] = questions;
    const { run, post, questionId } = await startRun(questions, {
      input: { context: largestContext("mixed") },
    });
    const responses: unknown[] = [];
    const respond = async (sent: Promise<{ body: any }>) => {
      const { body } = await sent;
      responses.push(body);
      return body;
    };

    // A keyed own answer of the longest in the question's thread: recorded, and the comment repeats it.
    const own = textOf("mixed", MAX_ANSWER_VALUE_UNITS, "Own ");
    const recorded = await respond(typed(`${third?.id}: ${own}`, { rootId: post.id }));
    expect(recorded).toMatchObject({
      response_type: "comment",
      text: expect.stringMatching(/^Recorded: .+Still needed: /s),
    });

    const step2 = redrawn(post, (await respond(tap(post, first?.options[1]?.label ?? ""))).update);
    expect(await respond(tap(step2, "Choose one or more…"))).toEqual({});
    const choose = lastDialog();
    expect(choose.body.dialog.elements.map((e: { type: string }) => e.type)).toEqual(["select", "textarea"]);
    const chosen = await respond(
      submitDialog(choose, {
        [`${second?.id}`]: [second?.options[0]?.label, second?.options[3]?.label],
        [`${second?.id}:other`]: own.slice(0, 3000),
      }),
    );
    expect(chosen).toEqual({});
    const step3 = redrawn(post, (patches().at(-1) as RecordedCall).body);
    expect(step3.body.message).toContain("3 of 3");

    expect(await respond(tap(step3, "Other…"))).toEqual({});
    const other = lastDialog();
    // One character over an own answer's limit: refused, naming the limit; then the longest a textarea takes.
    const tooLong = await respond(submitDialog(other, { [`${third?.id}:other`]: `${own}x` }));
    expect(tooLong.error).toContain(`longer than ${MAX_ANSWER_VALUE_UNITS} characters`);
    expect(await respond(submitDialog(other, { [`${third?.id}:other`]: own.slice(0, 3000) }))).toEqual({});
    expect(await replyOf(run)).toMatch(/^answered\|/);

    // Retired by the stream, which the run's reply waited for.
    const retired = patches().find(
      (c) => c.path === `/api/v4/posts/${post.id}/patch` && c.body.props.attachments.length === 0,
    );
    if (!retired) throw new Error("the copy was not retired");
    const message = retired.body.message as string;
    const outcome = message.slice(message.lastIndexOf("Answered — "));
    for (const question of questions) expect(outcome).toContain(`${escaped(question.header)}: `);
    expect(outcome).toContain(`${escaped(third?.header ?? "")}: Own `);
    expect(await statusOf(questionId)).toBe("answered");
    expect(responses.flatMap(mattermostActionResponseProblems)).toEqual([]);
    expect(
      mattermost.refused.map((call) => `${call.path}: ${mattermostProblems(call.path, call.body)}`),
    ).toEqual([]);
  });
});

describe("Mattermost: several people decide (quorum)", () => {
  const BOB = "bobid00000000000000000003";
  const bob = `mattermost:${BOB}`;
  /** Mattermost's Markdown escaping of a sentence's full stop, as its notices carry it. */
  const escaped = (sentence: string) => sentence.replace(/\.$/, "\\.");

  /** A question for the owner and Bob, each in their direct channel with the bot, that `quorum` answers close. */
  async function askBoth(quorum: number) {
    const ownerDm = `dmowner${channel}`;
    const bobDm = `dmbob${channel}`;
    directChannels.set(ownerDm, `${BOT_USER_ID}__${OWNER}`);
    directChannels.set(bobDm, `${BOT_USER_ID}__${BOB}`);
    const id = unique("mm-q");
    const before = created.length;
    const asked = await stack.api("POST", "/questions", {
      id,
      questions: [single],
      owner: `mattermost:${OWNER}`,
      deliverTo: [{ channel: "mattermost", chatId: ownerDm }],
      answerers: [{ owner: bob, deliverTo: [{ channel: "mattermost", chatId: bobDm }] }],
      quorum,
    });
    expect(asked.status).toBe(201);
    await stack.settled();
    const postIn = (dm: string) => {
      const post = created.slice(before).find((p) => p.body.channel_id === dm);
      if (!post) throw new Error(`no copy in ${dm}`);
      return post;
    };
    return { id, owner: { dm: ownerDm, post: postIn(ownerDm) }, bob: { dm: bobDm, post: postIn(bobDm) } };
  }
  const patchesOf = (postId: string) =>
    patches().filter((call) => call.path === `/api/v4/posts/${postId}/patch`);

  it("quorum 2: the first vote is told privately it waits for 1 more and loses only its own copy's buttons; the second closes it", async () => {
    const { id, owner, bob: bobs } = await askBoth(2);
    mattermost.calls.length = 0;
    const first = await tap(bobs.post, "Production", { user: BOB });
    expect(first).toEqual({
      status: 200,
      body: { ephemeral_text: escaped("Your answer is recorded — waiting for 1 more.") },
    });
    await stack.settled();
    // Only Bob's copy is patched (by the table's stream consumer), without buttons; the owner's keeps them.
    expect(patches().map((call) => call.path)).toEqual([`/api/v4/posts/${bobs.post.id}/patch`]);
    const retired = patchesOf(bobs.post.id)[0]?.body;
    expect(retired.message).toContain("waiting for 1 more");
    expect(retired.props.attachments?.[0]?.actions ?? []).toEqual([]);
    expect(await statusOf(id)).toBe("pending");

    mattermost.calls.length = 0;
    await tap(owner.post, "Production");
    await stack.settled();
    expect((await stack.api("GET", `/questions/${id}`)).body.question).toMatchObject({
      status: "answered",
      answers: { [single.id]: ["Production"] },
      votes: [{ by: bob }, { by: `mattermost:${OWNER}` }],
    });
    expect(patchesOf(bobs.post.id).at(-1)?.body.message).toContain("Answered");
  });

  it("a second vote from the same person is refused privately and changes nothing", async () => {
    const { id, bob: bobs } = await askBoth(2);
    await tap(bobs.post, "Production", { user: BOB });
    await stack.settled();
    const before = (await stack.api("GET", `/questions/${id}`)).body.question;
    expect(await tap(bobs.post, "Staging (Recommended)", { user: BOB })).toEqual({
      status: 200,
      body: { ephemeral_text: escaped("You have already answered.") },
    });
    expect((await stack.api("GET", `/questions/${id}`)).body.question).toEqual(before);
  });

  it("a dialog's state read by the one who opened it and resent as the owner is refused and records nothing", async () => {
    const { id, owner, bob: bobs } = await askBoth(2);
    await tap(bobs.post, "Other…", { user: BOB });
    const opened = lastDialog();
    expect(await submitDialog(opened, { "deploy_target:other": "blue-green" }, BOB, bobs.dm)).toEqual({
      status: 200,
      body: { error: "Your answer is recorded — waiting for 1 more." },
    });
    await stack.settled();
    const before = (await stack.api("GET", `/questions/${id}`)).body.question;
    expect(before.votes).toMatchObject([{ by: bob }]);
    // Mattermost delivered the state to Bob's client; he posts it as the owner, where the owner is a member.
    for (const dm of [bobs.dm, owner.dm]) {
      const replayed = await submitDialog(opened, { "deploy_target:other": "blue-green" }, OWNER, dm);
      expect(replayed, dm).toEqual({ status: 200, body: { error: expect.stringMatching(UNCONFIRMED) } });
    }
    await stack.settled();
    expect((await stack.api("GET", `/questions/${id}`)).body.question).toEqual(before);
    expect(await statusOf(id)).toBe("pending");
  });

  it("a non-owner's /handraise cancel is refused with the sentence and changes nothing, at any quorum", async () => {
    for (const quorum of [1, 2]) {
      const { id, bob: bobs } = await askBoth(quorum);
      const refused = await sendForm(slashFields("cancel", bobs.dm, BOB), {
        authorization: `Token ${COMMAND_TOKEN}`,
      });
      expect(refused.body, `quorum ${quorum}`).toEqual({
        response_type: "ephemeral",
        text: escaped("Only the question's owner can cancel it; you can skip it instead."),
      });
      expect(await statusOf(id)).toBe("pending");
    }
  });

  it("a Skip from Bob with quorum 1 is his abstention: told so privately, his copy retired, the question waits", async () => {
    const { id, bob: bobs } = await askBoth(1);
    mattermost.calls.length = 0;
    expect(await tap(bobs.post, "Skip", { user: BOB })).toEqual({
      status: 200,
      body: { ephemeral_text: escaped("You skipped this question; the others can still answer.") },
    });
    await stack.settled();
    expect(patches().map((call) => call.path)).toEqual([`/api/v4/posts/${bobs.post.id}/patch`]);
    expect(patchesOf(bobs.post.id)[0]?.body.message).toContain("You skipped this question");
    expect(await statusOf(id)).toBe("pending");
  });
});
