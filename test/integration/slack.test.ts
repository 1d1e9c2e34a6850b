/**
 * Slack's behaviour, with the handlers in process (test/support/in-process-stack.ts) against a fake Slack:
 * verification, the posted Block Kit, taps, typed replies, modals, the stepper, where a link may show, the
 * context and the sizes. What only the real wiring proves (a run resumed through Step Functions, a retried
 * event settled by conditional writes, a slow Slack and the stream) is in slack-e2e.test.ts.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { decodeControl } from "#lib/channels/control-codec.ts";
import { MAX_ANSWER_VALUE_UNITS } from "#lib/questions/schema.ts";
import vectors from "../fixtures/signature-vectors.json" with { type: "json" };
import {
  type InProcessRun,
  type InProcessStack,
  runResult,
  startInProcessStack,
} from "../support/in-process-stack.ts";
import { largestArgs, largestContext, textOf } from "../support/largest-questions.ts";
import { slackProblems } from "../support/platform-sizes.ts";
import { type FakePlatform, type RecordedCall, startFakePlatform } from "./support/fake-platform.ts";
import { answerThroughLinkInProcess as answerThroughLink, linkPath } from "./support/link-answer.ts";
import { multiQuestion as multi, singleQuestion as single, unique } from "./support/sample-questions.ts";
import {
  BOT_TOKEN,
  BOT_USER,
  control,
  type Element,
  elements,
  OWNER,
  SIGNING_SECRET,
  slackWorkspace,
  TEAM,
  ticked,
} from "./support/slack-workspace.ts";

/** The deployment's public URL, which answer links name. */
const PUBLIC_URL = "https://handraise.test";
/** Each test talks in a channel of its own: a plain message goes to the oldest pending question there. */
let CHANNEL = "C0";
let channelCounter = 0;

let stack: InProcessStack;
let slack: FakePlatform;
const workspace = slackWorkspace({
  channel: () => CHANNEL,
  nextNumber: () => ++channelCounter,
  now: () => stack.clock.now(),
  post: (body, headers) => stack.request("POST", "/webhooks/slack", { headers, body }),
});
const { newIm, imOfUser, send, postEvent, postInteraction, postCommand, messageEvent, tap, submit } =
  workspace;

beforeAll(async () => {
  // Refused like Slack past its size limits: every test here runs within them.
  slack = await startFakePlatform(workspace.fakeSlack, { limits: "slack" });
  stack = await startInProcessStack({
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_BASE: slack.url,
    HANDRAISE_PUBLIC_URL: PUBLIC_URL,
  });
});
afterAll(async () => {
  await stack?.stop();
  await slack?.stop();
});
beforeEach(() => {
  slack.calls.length = 0;
  CHANNEL = `C${String(++channelCounter).padStart(8, "0")}`;
});
// What a test's last change set going (a copy retired) ends before the next test counts the calls.
afterEach(() => stack.settled());

const note = {
  id: "release_note",
  header: "Release note",
  question: "How should the note read?",
  options: [{ label: "Routine (Recommended)" }, { label: "Urgent" }],
};

/** The run's AskUser task: the ask handler delivers before it returns, and records every copy it posted. */
async function startRun(
  questions: unknown[],
  options: {
    channels?: string[];
    sessionKey?: string;
    escalate?: unknown;
    input?: Record<string, unknown>;
    threadId?: string;
  } = {},
) {
  const sessionKey = options.sessionKey ?? unique("slack");
  const channels = options.channels ?? [CHANNEL];
  const before = slack.callsTo("chat.postMessage").length;
  const run = await stack.ask({
    sessionKey,
    owner: `slack:${TEAM}:${OWNER}`,
    deliverTo: channels.map((chatId) => ({
      channel: "slack",
      chatId,
      ...(options.threadId !== undefined && { threadId: options.threadId }),
    })),
    ...(options.escalate !== undefined && { escalate: options.escalate }),
    questions,
    ...options.input,
  });
  const posts = slack.callsTo("chat.postMessage").slice(before);
  expect(posts.length).toBeGreaterThanOrEqual(channels.length);
  const questionId = (await stack.api("GET", `/questions?sessionKey=${sessionKey}`)).body.questions[0]
    .id as string;
  expect(questionId).toBe(run.questionId);
  const record = (await stack.api("GET", `/questions/${questionId}`)).body.question;
  expect(record.deliveries.length).toBeGreaterThanOrEqual(channels.length);
  return { run, posts, questionId };
}

/**
 * The reply the scripted run of slack-e2e.test.ts ends with (`{{c1.status}}|{{c1.reason}}|
 * {{c1.deploy_target}}{{c1.checks}}|{{c1.release_note}}`), from what its AskUser task received.
 */
async function replyOf(run: InProcessRun): Promise<string> {
  const result = runResult(await run.result());
  const answers = (id: string) => (result.answers?.[id] ?? []).join(",");
  return `${result.status}|${result.reason ?? ""}|${answers("deploy_target")}${answers("checks")}|${answers("release_note")}`;
}
const statusOf = async (questionId: string) =>
  (await stack.api("GET", `/questions/${questionId}`)).body.question.status as string;
/** Every item the store holds (as a scan of the table would list them). */
const allItems = () => [...stack.store.items.values()] as Record<string, any>[];

/** The `ts` Slack gave the copy posted in `channel`, as the question's record holds it. */
async function postedTs(questionId: string, channel = CHANNEL): Promise<string> {
  await stack.settled();
  const record = (await stack.api("GET", `/questions/${questionId}`)).body.question;
  const ts = record.deliveries.find((d: { chatId: string }) => d.chatId === channel)?.messageId;
  if (typeof ts !== "string") throw new Error(`no delivery of ${questionId} to ${channel}`);
  return ts;
}

// ── Tests ───────────────────────────────────────────────────────────────────────────────────────────

describe("Slack webhook verification", () => {
  it("accepts a request signed now; refuses 301 s old, a changed body, a wrong secret or no signature with 401, storing nothing", async () => {
    expect((await postEvent(messageEvent("hello"))).status).toBe(200);
    const before = allItems().length;
    const now = Math.floor(stack.clock.now() / 1000);
    const body = JSON.stringify(messageEvent("hello"));
    expect((await send(body, "application/json", { timestamp: now - 301 })).status).toBe(401);
    expect((await send(body, "application/json", { sendBody: `${body}x` })).status).toBe(401);
    expect((await send(body, "application/json", { secret: `${SIGNING_SECRET}0` })).status).toBe(401);
    expect((await send(body, "application/json", { unsigned: true })).status).toBe(401);
    // The official vector is genuine but from 2018: outside the replay window.
    const official = vectors.slack_official;
    const response = await stack.request("POST", "/webhooks/slack", {
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-slack-request-timestamp": official.timestamp,
        "x-slack-signature": official.signature,
      },
      body: official.body,
    });
    expect(response.status).toBe(401);
    expect(allItems().length).toBe(before);
    expect(slack.calls).toEqual([]);
  });

  it("answers the url_verification handshake with the challenge, and ssl_check with 200", async () => {
    const challenge = "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P";
    const handshake = { token: "Jhj5dZrVaK7ZwHHjRyZWjbDl", challenge, type: "url_verification" };
    const verified = await postEvent(handshake);
    expect(verified.status).toBe(200);
    expect(verified.json).toEqual({ challenge });
    expect((await postEvent(handshake, { unsigned: true })).status).toBe(401);

    const ssl = await send("ssl_check=1&token=legacy", "application/x-www-form-urlencoded");
    expect(ssl.status).toBe(200);
    expect(slack.calls).toEqual([]);
  });

  it("a body over the webhook limit → 413 before its signature is read, storing nothing", async () => {
    const before = allItems().length;
    const huge = JSON.stringify(messageEvent("x".repeat(130 * 1024)));
    expect((await send(huge, "application/json")).status).toBe(413);
    expect((await send(huge, "application/json", { unsigned: true })).status).toBe(413);
    expect(allItems().length).toBe(before);
    expect(slack.calls).toEqual([]);
  });

  it("a verified but malformed body → 400", async () => {
    expect((await send("{not json", "application/json")).status).toBe(400);
    expect((await send("payload=%7Bnope", "application/x-www-form-urlencoded")).status).toBe(400);
    expect((await send("hello=1", "application/x-www-form-urlencoded")).status).toBe(400);
  });
});

describe("Slack end to end", () => {
  it("posts one single-select question as Block Kit: escaped text, a button per option, Other…, Answer in browser, Skip; no task token", async () => {
    const tricky = { ...single, question: "Ship <!channel> & <@U1> to <https://evil.example|prod>?" };
    const { posts, questionId } = await startRun([tricky]);
    const [message] = posts as [RecordedCall];
    expect(message.path).toBe("/chat.postMessage");
    expect(message.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    expect(message.body.channel).toBe(CHANNEL);
    expect(elements(message).map((e) => e.text?.text)).toEqual([
      "Staging (Recommended)",
      "Production",
      "Other…",
      "Answer in browser",
      "Skip",
    ]);
    // In a channel, "Answer in browser" is a control like the others, not a link.
    expect(decodeControl(control(message, "Answer in browser").action_id)?.kind).toBe("browser");
    // Every control is the shared codec's string, naming the question (no token, no answer, no url).
    for (const element of elements(message)) {
      expect(decodeControl(element.action_id)?.questionId).toBe(questionId);
      expect(element.value).toBe(element.action_id);
      expect(element.url).toBeUndefined();
    }
    const section = JSON.stringify(message.body.blocks);
    expect(section).toContain(
      "Ship &lt;!channel&gt; &amp; &lt;@U1&gt; to &lt;https://evil.example|prod&gt;?",
    );
    expect(`${section}${message.body.text}`).not.toMatch(/<!channel>|<@U1>|<https:/);

    const tokens = allItems().flatMap((i) => (i.taskToken ? [i.taskToken as string] : []));
    expect(tokens.length).toBeGreaterThan(0);
    for (const call of slack.calls)
      for (const token of tokens) expect(JSON.stringify(call.body)).not.toContain(token);
  });

  it("a typed answer in the question's thread resumes the run", async () => {
    const { run, questionId } = await startRun([single]);
    const response = await postEvent(messageEvent("2", { threadTs: await postedTs(questionId) }));
    expect(response.status).toBe(200);
    expect(await replyOf(run)).toBe("answered||Production|");
    expect(slack.callsTo("chat.update")).toHaveLength(1);
  });

  it("multi-select: checkboxes + Done answers with the ticked options from state.values", async () => {
    const { run, posts, questionId } = await startRun([multi]);
    const post = posts[0] as RecordedCall;
    const ts = await postedTs(questionId);
    const checkboxes = elements(post).find((e) => e.type === "checkboxes") as Element;
    expect(elements(post).map((e) => e.text?.text ?? e.type)).toEqual([
      "checkboxes",
      "Done",
      "Other…",
      "Answer in browser",
      "Skip",
    ]);

    const state = (values: string[]) => ticked(checkboxes, values);
    // A tick is only acknowledged: the selection lives in the message until Submit.
    expect((await postInteraction(tap(checkboxes, ts, { state: state(["0"]) }))).status).toBe(200);
    expect(slack.calls.slice(1)).toEqual([]);
    expect(await statusOf(questionId)).toBe("pending");

    // Done with nothing ticked: a private hint, still pending.
    await postInteraction(tap(control(post, "Done"), ts, { state: state([]) }));
    expect(slack.callsTo("chat.postEphemeral").at(-1)?.body.text).toBe(
      "Choose at least one option, then tap Done.",
    );
    expect(await statusOf(questionId)).toBe("pending");

    await postInteraction(tap(control(post, "Done"), ts, { state: state(["0", "2"]) }));
    expect(await replyOf(run)).toBe("answered||Unit,Lint|");
  });

  it("Other… opens a modal (views.open with the tap's trigger_id); its submission is the free-text answer", async () => {
    const { run, posts, questionId } = await startRun([single]);
    const ts = await postedTs(questionId);
    const payload = tap(control(posts[0] as RecordedCall, "Other…"), ts);
    await postInteraction(payload);
    const open = slack.callsTo("views.open").at(-1) as RecordedCall;
    expect(open.body.trigger_id).toBe(payload.trigger_id);
    const view = open.body.view;
    expect(view.type).toBe("modal");
    const input = view.blocks.find((b: { type: string }) => b.type === "input");
    expect(input.element.type).toBe("plain_text_input");

    const response = await postInteraction(
      submit(view, {
        [input.block_id]: {
          [input.element.action_id]: { type: "plain_text_input", value: "blue-green on Friday" },
        },
      }),
    );
    expect(response.status).toBe(200);
    expect(response.text).toBe("");
    expect(await replyOf(run)).toBe("answered||blue-green on Friday|");
  });

  it("several questions: the form modal answers all of them (the demo's round trip)", async () => {
    const { run, posts, questionId } = await startRun([single, multi, note]);
    const post = posts[0] as RecordedCall;
    expect(elements(post).map((e) => e.text?.text)).toEqual([
      "Staging (Recommended)",
      "Production",
      "Other…",
      "Answer in a form",
      "Answer in browser",
      "Skip",
    ]);
    await postInteraction(tap(control(post, "Answer in a form"), await postedTs(questionId)));
    const view = (slack.callsTo("views.open").at(-1) as RecordedCall).body.view;
    const inputs = view.blocks.filter((b: { type: string }) => b.type === "input");
    expect(
      inputs.map((b: { block_id: string; element: { type: string } }) => [b.block_id, b.element.type]),
    ).toEqual([
      ["c|deploy_target", "static_select"],
      ["t|deploy_target", "plain_text_input"],
      ["c|checks", "checkboxes"],
      ["t|checks", "plain_text_input"],
      ["c|release_note", "static_select"],
      ["t|release_note", "plain_text_input"],
    ]);

    const values = {
      "c|deploy_target": { choice: { type: "static_select", selected_option: { value: "Production" } } },
      "t|deploy_target": { text: { type: "plain_text_input", value: null } },
      "c|checks": {
        choice: { type: "checkboxes", selected_options: [{ value: "Unit" }, { value: "E2E" }] },
      },
      "t|checks": { text: { type: "plain_text_input", value: null } },
      "c|release_note": { choice: { type: "static_select", selected_option: null } },
      "t|release_note": { text: { type: "plain_text_input", value: null } },
    };
    // A question left empty: the modal shows an error on it and nothing is answered.
    const incomplete = await postInteraction(submit(view, values));
    expect(incomplete.json).toEqual({
      response_action: "errors",
      errors: { "c|release_note": "Choose an option or type your own answer." },
    });
    expect(await statusOf(questionId)).toBe("pending");

    const complete = await postInteraction(
      submit(view, {
        ...values,
        "t|release_note": { text: { type: "plain_text_input", value: "night-shift" } },
      }),
    );
    expect(complete.text).toBe("");
    expect(await replyOf(run)).toBe("answered||ProductionUnit,E2E|night-shift");
  });

  it("/handraise question posts the pending question again in that conversation", async () => {
    const { questionId } = await startRun([single]);
    const before = slack.callsTo("chat.postMessage").length;
    expect((await postCommand("question")).status).toBe(200);
    expect(
      slack
        .callsTo("chat.postMessage")
        .slice(before)
        .map((c) => c.body.channel),
    ).toEqual([CHANNEL]);
    const record = (await stack.api("GET", `/questions/${questionId}`)).body.question;
    expect(record.deliveries).toHaveLength(2);
    expect((await postCommand("help")).json.text).toContain("/handraise cancel");
  });

  it("someone else's tap gets an ephemeral notice and changes nothing", async () => {
    const { run, posts, questionId } = await startRun([single]);
    const ts = await postedTs(questionId);
    await postInteraction(tap(control(posts[0] as RecordedCall, "Production"), ts, { user: "U0STRANGER" }));
    expect(slack.callsTo("chat.postEphemeral")).toHaveLength(1);
    expect(slack.callsTo("chat.postEphemeral")[0]?.body).toMatchObject({
      channel: CHANNEL,
      user: "U0STRANGER",
      text: "This question is not yours to answer.",
    });
    // Of this message: an earlier test's copies may still be edited in the background.
    expect(slack.callsTo("chat.update").filter((c) => c.body.ts === ts)).toEqual([]);
    expect(await statusOf(questionId)).toBe("pending");
    await postEvent(messageEvent("1", { threadTs: ts }));
    expect(await replyOf(run)).toBe("answered||Staging (Recommended)|");
  });

  it("two pending questions in one channel: a reply routes by the thread it is in", async () => {
    const first = await startRun([single]);
    const second = await startRun([{ ...single, id: "second", header: "Second" }]);
    await postEvent(messageEvent("Production", { threadTs: await postedTs(second.questionId) }));
    expect(await replyOf(second.run)).toBe("answered|||");
    expect(await statusOf(first.questionId)).toBe("pending");
    // A reply in some other thread is conversation, not an answer.
    await postEvent(messageEvent("1", { threadTs: "1600000000.000001" }));
    expect(await statusOf(first.questionId)).toBe("pending");
    // Outside any thread, a message to the bot goes to the owner's oldest pending question in the channel.
    await postEvent(messageEvent(`<@${BOT_USER}> 1`));
    expect(await replyOf(first.run)).toBe("answered||Staging (Recommended)|");
  });

  it("a question posted into an existing thread (deliverTo threadId) is answered by a reply in that thread", async () => {
    const threadTs = "1690000000.000042";
    const { run, posts, questionId } = await startRun([single], {
      sessionKey: unique("slack-thread"),
      threadId: threadTs,
    });
    const [post] = posts as [RecordedCall];
    expect(post.body.thread_ts).toBe(threadTs);
    await postedTs(questionId);
    await postEvent(messageEvent("2", { threadTs }));
    expect(await replyOf(run)).toBe("answered||Production|");
  });

  it("ignores the bot's own messages and message edits", async () => {
    const { questionId } = await startRun([single]);
    const own = messageEvent("1");
    const edited = messageEvent("1");
    const fromBot = { ...own, event: { ...own.event, bot_id: "B0BOT", user: BOT_USER } };
    const edit = { ...edited, event: { ...edited.event, subtype: "message_changed" } };
    expect((await postEvent(fromBot)).status).toBe(200);
    expect((await postEvent(edit)).status).toBe(200);
    expect(await statusOf(questionId)).toBe("pending");
  });
});

describe("Slack: a prompt of several questions is a stepper, one question at a time", () => {
  /** The question as GET /questions/{id} shows it: status and the draft the steps kept. */
  const questionOf = async (questionId: string) =>
    (await stack.api("GET", `/questions/${questionId}`)).body.question as {
      status: string;
      draft?: Record<string, string[]>;
    };
  const progressOf = (call: RecordedCall) =>
    (call.body.blocks as { type: string; elements?: { text: string }[] }[]).find((b) => b.type === "context")
      ?.elements?.[0]?.text;
  /** Taps `label` on `message` (the post or its last redraw) and returns the redraw it caused. */
  async function tapStep(message: RecordedCall, ts: string, label: string, state?: unknown) {
    const before = slack.callsTo("chat.update").length;
    const response = await postInteraction(tap(control(message, label), ts, { state }));
    expect(response.status).toBe(200);
    // The redraw is made before the acknowledgement: it is there when the tap returns.
    const updates = slack.callsTo("chat.update").slice(before);
    expect(updates).toHaveLength(1);
    return updates[0] as RecordedCall;
  }

  it("three questions answered step by step with buttons and Done resume the run with all three answers; each step redraws the tapped message", async () => {
    const { run, posts, questionId } = await startRun([single, multi, note]);
    const post = posts[0] as RecordedCall;
    const ts = await postedTs(questionId);
    expect(post.body.blocks[0].text.text).toBe("*Deploy to*\nWhere should it go?");
    expect(progressOf(post)).toBe("1 of 3");
    // The notification text is still the whole prompt: a typed reply may answer any or all.
    expect(post.body.text).toContain("release_note");

    const second = await tapStep(post, ts, "Production");
    // chat.update of the tapped message: same channel and ts, the step's blocks, every control decodable.
    expect(second.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    expect(second.body).toMatchObject({ channel: CHANNEL, ts, text: expect.stringContaining("Checks") });
    expect(second.body.blocks[0].text.text).toBe("*Checks*\nWhich checks?");
    expect(progressOf(second)).toBe("2 of 3");
    const controls = elements(second).map((e) => decodeControl(e.action_id));
    expect(controls.map((c) => [c?.kind, c?.questionIndex, c?.questionId])).toEqual([
      ["choose", 1, questionId],
      ["done", 1, questionId],
      ["other", 1, questionId],
      ["back", 1, questionId],
      // The whole prompt's controls name the step they were drawn on, as on every platform.
      ["form", 1, questionId],
      ["browser", 1, questionId],
      ["skip", 1, questionId],
    ]);
    expect(await questionOf(questionId)).toMatchObject({
      status: "pending",
      draft: { deploy_target: ["Production"] },
    });

    const checkboxes = elements(second).find((e) => e.type === "checkboxes") as Element;
    const third = await tapStep(second, ts, "Done", ticked(checkboxes, ["0", "2"]));
    expect(progressOf(third)).toBe("3 of 3");
    expect((await questionOf(questionId)).draft).toEqual({
      deploy_target: ["Production"],
      checks: ["Unit", "Lint"],
    });

    await postInteraction(tap(control(third, "Urgent"), ts));
    expect(await replyOf(run)).toBe("answered||ProductionUnit,Lint|Urgent");
    const answered = await questionOf(questionId);
    expect(answered.status).toBe("answered");
    expect(answered.draft).toBeUndefined();
  });

  it("/handraise question during the steps posts the prompt again where the steps left off", async () => {
    const { posts, questionId } = await startRun([single, multi, note]);
    await tapStep(posts[0] as RecordedCall, await postedTs(questionId), "Production");
    const before = slack.callsTo("chat.postMessage").length;
    expect((await postCommand("question")).status).toBe(200);
    const [again] = slack.callsTo("chat.postMessage").slice(before);
    expect(again?.body.blocks[0].text.text).toBe("*Checks*\nWhich checks?");
    expect(progressOf(again as RecordedCall)).toBe("2 of 3");
  });

  it("Back shows the step before with its choice marked; another option there changes the earlier answer", async () => {
    const { run, posts, questionId } = await startRun([single, multi, note]);
    const ts = await postedTs(questionId);
    const second = await tapStep(posts[0] as RecordedCall, ts, "Production");
    const checkboxes = elements(second).find((e) => e.type === "checkboxes") as Element;
    // Done with nothing ticked: told privately, the step stays.
    await postInteraction(tap(control(second, "Done"), ts, { state: ticked(checkboxes, []) }));
    expect(slack.callsTo("chat.postEphemeral").at(-1)?.body.text).toBe(
      "Choose at least one option, then tap Done.",
    );

    const first = await tapStep(second, ts, "Back");
    expect(progressOf(first)).toBe("1 of 3");
    expect(control(first, "✓ Production")).toMatchObject({ style: "primary" });
    expect(elements(first).some((e) => e.text?.text === "Back")).toBe(false);
    // Back writes nothing.
    expect((await questionOf(questionId)).draft).toEqual({ deploy_target: ["Production"] });

    const again = await tapStep(first, ts, "Staging (Recommended)");
    expect(progressOf(again)).toBe("2 of 3");
    expect((await questionOf(questionId)).draft).toEqual({ deploy_target: ["Staging (Recommended)"] });
    const boxes = elements(again).find((e) => e.type === "checkboxes") as Element;
    const last = await tapStep(again, ts, "Done", ticked(boxes, ["1"]));
    // Back from the last step shows the ticks kept, as the checkboxes' initial options.
    const middle = await tapStep(last, ts, "Back");
    const redrawn = elements(middle).find((e) => e.type === "checkboxes") as unknown as {
      initial_options?: { value: string }[];
    };
    expect(redrawn.initial_options?.map((o) => o.value)).toEqual(["1"]);
    const final = await tapStep(middle, ts, "Done", ticked(boxes, ["1"]));
    await postInteraction(tap(control(final, "Routine (Recommended)"), ts));
    expect(await replyOf(run)).toBe("answered||Staging (Recommended)E2E|Routine (Recommended)");
  });

  it("a typed reply in the thread during the steps merges with what the steps kept", async () => {
    const { run, posts, questionId } = await startRun([single, multi, note]);
    const ts = await postedTs(questionId);
    await tapStep(posts[0] as RecordedCall, ts, "Production");

    await postEvent(messageEvent("checks: 1, 3", { threadTs: ts }));
    expect(slack.callsTo("chat.postEphemeral").at(-1)?.body).toMatchObject({
      channel: CHANNEL,
      user: OWNER,
      text: "Recorded: Checks: Unit, Lint. Still needed: Release note [release_note].",
    });
    expect((await questionOf(questionId)).draft).toEqual({
      deploy_target: ["Production"],
      checks: ["Unit", "Lint"],
    });
    // A plain line answers the first question the draft has no value for.
    await postEvent(messageEvent("2", { threadTs: ts }));
    expect(await replyOf(run)).toBe("answered||ProductionUnit,Lint|Urgent");
  });

  it("Other… on a step opens a modal for that question; its submission moves the stepper on in the same message", async () => {
    const { posts, questionId } = await startRun([single, multi, note]);
    const ts = await postedTs(questionId);
    const second = await tapStep(posts[0] as RecordedCall, ts, "Production");
    await postInteraction(tap(control(second, "Other…"), ts));
    const view = (slack.callsTo("views.open").at(-1) as RecordedCall).body.view;
    const inputs = view.blocks.filter((b: { type: string }) => b.type === "input");
    expect(inputs.map((b: { block_id: string }) => b.block_id)).toEqual(["t|checks"]);

    const before = slack.callsTo("chat.update").length;
    const response = await postInteraction(
      submit(view, { "t|checks": { text: { type: "plain_text_input", value: "smoke tests" } } }),
    );
    expect(response.status).toBe(200);
    expect(response.text).toBe("");
    const [redraw] = slack.callsTo("chat.update").slice(before);
    expect(redraw?.body).toMatchObject({ channel: CHANNEL, ts });
    expect(progressOf(redraw as RecordedCall)).toBe("3 of 3");
    expect((await questionOf(questionId)).draft).toEqual({
      deploy_target: ["Production"],
      checks: ["smoke tests"],
    });
  });

  it("someone else's tap on a step is told privately it is not theirs, and nothing is kept", async () => {
    const { posts, questionId } = await startRun([single, multi, note]);
    const ts = await postedTs(questionId);
    const post = posts[0] as RecordedCall;
    await postInteraction(tap(control(post, "Production"), ts, { user: "U0STRANGER" }));
    expect(slack.callsTo("chat.postEphemeral")).toHaveLength(1);
    expect(slack.callsTo("chat.postEphemeral")[0]?.body).toMatchObject({
      channel: CHANNEL,
      user: "U0STRANGER",
      text: "This question is not yours to answer.",
    });
    // Of this message: an earlier test's copies may still be edited in the background.
    expect(slack.callsTo("chat.update").filter((c) => c.body.ts === ts)).toEqual([]);
    const untouched = await questionOf(questionId);
    expect(untouched.status).toBe("pending");
    expect(untouched).not.toHaveProperty("draft");

    // On a later step too: the owner's step stays as it was.
    const second = await tapStep(post, ts, "Staging (Recommended)");
    const checkboxes = elements(second).find((e) => e.type === "checkboxes") as Element;
    await postInteraction(
      tap(control(second, "Done"), ts, { user: "U0STRANGER", state: ticked(checkboxes, ["0"]) }),
    );
    expect(slack.callsTo("chat.postEphemeral").at(-1)?.body.user).toBe("U0STRANGER");
    expect(slack.callsTo("chat.update")).toHaveLength(1);
    expect((await questionOf(questionId)).draft).toEqual({ deploy_target: ["Staging (Recommended)"] });
  });
});

describe("Slack: an answer link shows only in the app's DM with its answerer", () => {
  const OWN_LINK = "Your own link to answer in a browser. It works for you alone: do not share it.";
  /** The owner's link of a question: no `as`, the owner is the link's answerer. */
  const ownerLink = (questionId: string) =>
    new RegExp(`^${PUBLIC_URL}/answer/${questionId}\\?sig=[A-Za-z0-9_-]{43}$`);
  const postIn = (posts: RecordedCall[], chatId: string) => {
    const found = posts.find((post) => post.body.channel === chatId);
    if (!found) throw new Error(`nothing posted to ${chatId}`);
    return found;
  };
  /** A copy with the control: "Answer in browser" is the codec's browser control, and no link anywhere. */
  function expectControl(message: RecordedCall, questionId: string) {
    const browser = control(message, "Answer in browser");
    expect(decodeControl(browser.action_id)).toMatchObject({ kind: "browser", questionId });
    expect(browser.url).toBeUndefined();
    expect(JSON.stringify(message.body)).not.toContain("/answer/");
  }
  /** A copy with a link: "Answer in browser" is a link button (ignored when tapped) with that link. */
  function linkOf(message: RecordedCall): string {
    const browser = control(message, "Answer in browser");
    expect(browser.action_id).toBe("hr_link");
    return browser.url ?? "";
  }
  /** The record's copies, each of `count` posted (the ask handler records them before it returns). */
  async function copiesOf(questionId: string, count: number) {
    await stack.settled();
    const record = (await stack.api("GET", `/questions/${questionId}`)).body.question;
    const copies = record.deliveries as { chatId: string; messageId?: string; privateTo?: string }[];
    expect(copies.filter((d) => d.messageId !== undefined).length).toBeGreaterThanOrEqual(count);
    return copies;
  }
  /** The chat.update of message `ts` a tap caused (made before the acknowledgement). */
  async function redrawOf(payload: ReturnType<typeof tap>, ts: string): Promise<RecordedCall> {
    const before = slack.callsTo("chat.update").length;
    expect((await postInteraction(payload)).status).toBe(200);
    const [update, ...more] = slack
      .callsTo("chat.update")
      .slice(before)
      .filter((call) => call.body.ts === ts);
    expect(more).toEqual([]);
    if (!update) throw new Error(`message ${ts} was not redrawn`);
    return update;
  }

  it("a channel's copy has the Answer in browser control and no link; an IM Slack names the owner in carries the owner's link; someone else's IM, or one Slack does not confirm, the control", async () => {
    const ownerIm = newIm(OWNER);
    const otherIm = newIm("U0SOMEONE");
    const unconfirmed = `D${String(++channelCounter).padStart(9, "0")}`;
    const { posts, questionId } = await startRun([single], {
      channels: [CHANNEL, ownerIm, otherIm, unconfirmed],
    });
    expectControl(postIn(posts, CHANNEL), questionId);
    expect(linkOf(postIn(posts, ownerIm))).toMatch(ownerLink(questionId));
    expectControl(postIn(posts, otherIm), questionId);
    expectControl(postIn(posts, unconfirmed), questionId);
    // Each IM was looked up as Slack documents it (a read: GET with the channel in the query); a channel not.
    const lookups = slack.callsTo("conversations.info");
    expect(lookups.map((call) => call.query.channel).sort()).toEqual([ownerIm, otherIm, unconfirmed].sort());
    for (const lookup of lookups) {
      expect(lookup.verb).toBe("GET");
      expect(lookup.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    }
    const copies = await copiesOf(questionId, 4);
    expect(Object.fromEntries(copies.map((d) => [d.chatId, d.privateTo ?? null]))).toEqual({
      [CHANNEL]: null,
      [ownerIm]: `slack:${TEAM}:${OWNER}`,
      [otherIm]: null,
      [unconfirmed]: null,
    });
  });

  it("a target given as the owner's user id is their DM: the copy carries their link, and a tap on it changes nothing", async () => {
    const before = slack.callsTo("conversations.info").length;
    const { posts, questionId } = await startRun([single], { channels: [OWNER] });
    const post = postIn(posts, OWNER);
    expect(linkOf(post)).toMatch(ownerLink(questionId));
    // chat.postMessage to a user id posts in the app's DM with them: nothing to look up.
    expect(slack.callsTo("conversations.info").slice(before)).toEqual([]);
    const [copy] = await copiesOf(questionId, 1);
    expect(copy).toMatchObject({ chatId: imOfUser(OWNER), privateTo: `slack:${TEAM}:${OWNER}` });
    // Slack reports a tap on a link button too: acknowledged, nothing else.
    const calls = slack.calls.length;
    const link = control(post, "Answer in browser");
    expect(
      (await postInteraction(tap(link, copy?.messageId ?? "", { channel: imOfUser(OWNER) }))).status,
    ).toBe(200);
    expect(slack.calls.length).toBe(calls);
    expect(await statusOf(questionId)).toBe("pending");
  });

  it("the owner's tap on Answer in browser in a channel gets their own link in an ephemeral message, and nothing else; the link answers as them", async () => {
    const { run, posts, questionId } = await startRun([single]);
    const ts = await postedTs(questionId);
    const before = slack.calls.length;
    const response = await postInteraction(tap(control(postIn(posts, CHANNEL), "Answer in browser"), ts));
    expect(response.status).toBe(200);
    expect(response.text).toBe("");
    // One ephemeral message to the tapper: nothing posted in the channel, the message not edited.
    const sent = slack.calls.slice(before);
    expect(sent.map((call) => call.method)).toEqual(["chat.postEphemeral"]);
    const ephemeral = sent[0] as RecordedCall;
    expect(ephemeral.body).toMatchObject({ channel: CHANNEL, user: OWNER, text: OWN_LINK });
    const button = ephemeral.body.blocks[1].elements[0];
    expect(button).toMatchObject({
      type: "button",
      action_id: "hr_link",
      text: { text: "Answer in browser" },
    });
    expect(button.url).toMatch(ownerLink(questionId));

    expect((await stack.request("GET", linkPath(button.url))).status).toBe(200);
    expect((await answerThroughLink(stack, button.url, { deploy_target: "1" })).status).toBe(303);
    expect(await replyOf(run)).toBe("answered||Production|");
    expect((await stack.api("GET", `/questions/${questionId}`)).body.question).toMatchObject({
      status: "answered",
      resolvedBy: `web:slack:${TEAM}:${OWNER}`,
    });
  });

  it("someone else's tap on Answer in browser is told it is not theirs, with no link anywhere", async () => {
    const { posts, questionId } = await startRun([single]);
    const ts = await postedTs(questionId);
    const before = slack.calls.length;
    const browser = control(postIn(posts, CHANNEL), "Answer in browser");
    expect((await postInteraction(tap(browser, ts, { user: "U0STRANGER" }))).status).toBe(200);
    const sent = slack.calls.slice(before);
    expect(sent.map((call) => [call.method, call.body])).toEqual([
      [
        "chat.postEphemeral",
        { channel: CHANNEL, user: "U0STRANGER", text: "This question is not yours to answer." },
      ],
    ]);
    expect(JSON.stringify(slack.calls.map((call) => call.body))).not.toContain("/answer/");
    expect(await statusOf(questionId)).toBe("pending");
  });

  it("an escalation owner gets a link of their own — on their copy in their DM, and when they tap Answer in browser in the channel — which answers as them", async () => {
    const second = "U0SECOND";
    const escalation = `slack:${TEAM}:${second}`;
    const { run, posts, questionId } = await startRun([single], {
      escalate: { afterSeconds: 2, owner: escalation, deliverTo: [{ channel: "slack", chatId: second }] },
    });
    const theirLink = new RegExp(
      `^${PUBLIC_URL}/answer/${questionId}\\?as=${encodeURIComponent(escalation)}&sig=[A-Za-z0-9_-]{43}$`,
    );
    // At the escalation time the question is posted in their DM, with their link (not the owner's).
    await stack.clock.advance(2_000);
    const escalated = slack.callsTo("chat.postMessage").find((call) => call.body.channel === second);
    if (!escalated) throw new Error("the escalated copy was not posted");
    const linkInDm = linkOf(escalated);
    expect(linkInDm).toMatch(theirLink);
    const copies = await copiesOf(questionId, 2);
    expect(copies.find((d) => d.chatId === imOfUser(second))?.privateTo).toBe(escalation);

    // In the channel, their tap is handed the same link of theirs, privately.
    const before = slack.callsTo("chat.postEphemeral").length;
    await postInteraction(
      tap(control(postIn(posts, CHANNEL), "Answer in browser"), await postedTs(questionId), { user: second }),
    );
    const [ephemeral] = slack.callsTo("chat.postEphemeral").slice(before);
    expect(ephemeral?.body).toMatchObject({ channel: CHANNEL, user: second, text: OWN_LINK });
    expect(ephemeral?.body.blocks[1].elements[0].url).toBe(linkInDm);

    expect((await answerThroughLink(stack, linkInDm, { deploy_target: "0" })).status).toBe(303);
    expect(await replyOf(run)).toBe("answered||Staging (Recommended)|");
    expect((await stack.api("GET", `/questions/${questionId}`)).body.question.resolvedBy).toBe(
      `web:${escalation}`,
    );
  });

  it("the stepper's redraws keep the rule: in the channel every step has the control, in the owner's IM their link — after a tap, Back and an Other… answer", async () => {
    const ownerIm = newIm(OWNER);
    const { posts, questionId } = await startRun([single, multi, note], { channels: [CHANNEL, ownerIm] });
    const [channelTs, imTs] = [await postedTs(questionId, CHANNEL), await postedTs(questionId, ownerIm)];
    const inChannel = postIn(posts, CHANNEL);
    const inIm = postIn(posts, ownerIm);
    expectControl(inChannel, questionId);
    expect(linkOf(inIm)).toMatch(ownerLink(questionId));

    // A step answered in each copy: each is redrawn as it was posted.
    const channelSecond = await redrawOf(tap(control(inChannel, "Production"), channelTs), channelTs);
    expectControl(channelSecond, questionId);
    const imSecond = await redrawOf(tap(control(inIm, "Production"), imTs, { channel: ownerIm }), imTs);
    expect(linkOf(imSecond)).toMatch(ownerLink(questionId));
    // Back.
    expectControl(await redrawOf(tap(control(channelSecond, "Back"), channelTs), channelTs), questionId);
    const imFirst = await redrawOf(tap(control(imSecond, "Back"), imTs, { channel: ownerIm }), imTs);
    expect(linkOf(imFirst)).toMatch(ownerLink(questionId));

    // On again (Back left the choice marked), then Other…: the modal holds no link; its answer redraws the IM
    // copy, with the link.
    const imAgain = await redrawOf(tap(control(imFirst, "✓ Production"), imTs, { channel: ownerIm }), imTs);
    await postInteraction(tap(control(imAgain, "Other…"), imTs, { channel: ownerIm }));
    const view = (slack.callsTo("views.open").at(-1) as RecordedCall).body.view;
    expect(JSON.stringify(view)).not.toContain("/answer/");
    const before = slack.callsTo("chat.update").length;
    await postInteraction(
      submit(view, { "t|checks": { text: { type: "plain_text_input", value: "smoke" } } }),
    );
    const [imThird] = slack
      .callsTo("chat.update")
      .slice(before)
      .filter((call) => call.body.ts === imTs);
    expect(imThird?.body.blocks[1].elements[0].text).toBe("3 of 3");
    expect(linkOf(imThird as RecordedCall)).toMatch(ownerLink(questionId));

    // "Answer in a form" from the channel: its modal holds no link either.
    await postInteraction(tap(control(inChannel, "Answer in a form"), channelTs));
    expect(JSON.stringify((slack.callsTo("views.open").at(-1) as RecordedCall).body.view)).not.toContain(
      "/answer/",
    );
    // Nothing in the channel ever carried a link.
    const toChannel = slack.calls.filter((call) => call.body.channel === CHANNEL);
    expect(toChannel.length).toBeGreaterThan(2);
    expect(JSON.stringify(toChannel.map((call) => call.body))).not.toContain("/answer/");
  });

  it("/handraise question posts the question again by the same rule: the owner's link in their IM, the control in a channel", async () => {
    const ownerIm = newIm(OWNER);
    const { questionId } = await startRun([single], { channels: [CHANNEL, ownerIm] });
    await copiesOf(questionId, 2);
    let before = slack.callsTo("chat.postMessage").length;
    expect((await postCommand("question", { channel: ownerIm })).status).toBe(200);
    const [again] = slack.callsTo("chat.postMessage").slice(before);
    expect(again?.body.channel).toBe(ownerIm);
    expect(linkOf(again as RecordedCall)).toMatch(ownerLink(questionId));

    before = slack.callsTo("chat.postMessage").length;
    expect((await postCommand("question")).status).toBe(200);
    const [inChannel] = slack.callsTo("chat.postMessage").slice(before);
    expect(inChannel?.body.channel).toBe(CHANNEL);
    expectControl(inChannel as RecordedCall, questionId);
    const copies = await copiesOf(questionId, 4);
    expect(copies.filter((d) => d.privateTo === `slack:${TEAM}:${OWNER}`).map((d) => d.chatId)).toEqual([
      ownerIm,
      ownerIm,
    ]);
  });
});

describe("Slack: typed text in a channel counts only in the question's thread or addressed to the bot", () => {
  it("a top-level message in a channel changes nothing; a mention of the bot answers", async () => {
    const { questionId, run } = await startRun([single]);
    expect((await postEvent(messageEvent("brb"))).status).toBe(200);
    expect((await postEvent(messageEvent("2", { channelType: "group" }))).status).toBe(200);
    expect((await postEvent(messageEvent("2 <@U0SOMEONE>"))).status).toBe(200);
    expect(await statusOf(questionId)).toBe("pending");
    expect(slack.callsTo("chat.postEphemeral")).toEqual([]);
    await postEvent(messageEvent(`<@${BOT_USER}> 2`));
    expect(await replyOf(run)).toBe("answered||Production|");
  });

  it("a mention of the bot anywhere in the message addresses it", async () => {
    const { run } = await startRun([single]);
    await postEvent(messageEvent(`blue-green, <@${BOT_USER}>`));
    expect(await replyOf(run)).toBe(`answered||blue-green, <@${BOT_USER}>|`);
  });

  it("in a direct conversation with the bot (im) plain text answers", async () => {
    const { run } = await startRun([single]);
    await postEvent(messageEvent("2", { channelType: "im" }));
    expect(await replyOf(run)).toBe("answered||Production|");
  });
});

describe("Slack: a typed reply follows the reply rules (one message at a time)", () => {
  const inThread = async (questionId: string, body: string) =>
    postEvent(messageEvent(body, { threadTs: await postedTs(questionId) }));
  const lastTold = () => slack.callsTo("chat.postEphemeral").at(-1)?.body.text;

  it("after a keyed line, the plain lines answer the questions still open, in order", async () => {
    const { run, questionId } = await startRun([single, multi, note]);
    await inThread(questionId, "checks: 1\n2\nStaging");
    expect(await replyOf(run)).toBe("answered||ProductionUnit|Staging");
  });

  it("/cancel on a later line cancels the question", async () => {
    const { run, questionId } = await startRun([single, multi, note]);
    await inThread(questionId, "2\n/cancel");
    expect(await replyOf(run)).toBe("no_answer|cancelled||");
  });

  it("a number that names no option is refused alike bare and keyed, told privately; the question stays pending", async () => {
    const { run, questionId } = await startRun([single, multi, note]);
    await inThread(questionId, "7\n1\nurgent");
    expect(lastTold()).toBe(
      "Deploy to [deploy_target]: there is no option 7 — type a number 1–2 or your own answer.",
    );
    await inThread(questionId, "deploy_target: 3\nchecks: 1\nurgent");
    expect(lastTold()).toBe(
      "Deploy to [deploy_target]: there is no option 3 — type a number 1–2 or your own answer.",
    );
    expect(await statusOf(questionId)).toBe("pending");
    await inThread(questionId, "2\nchecks: 3\n1");
    expect(await replyOf(run)).toBe("answered||ProductionLint|Routine (Recommended)");
  });

  it("one question: a number that names no option is refused with the numbers there are", async () => {
    const { questionId } = await startRun([single]);
    await inThread(questionId, "3");
    expect(lastTold()).toBe("There is no option 3 — type a number 1–2 or your own answer.");
    expect(await statusOf(questionId)).toBe("pending");
  });
});

describe("Slack: the context (who is asking and why) above the questions", () => {
  const CONTEXT = "Release agent for <alice> & *ops*:\n_v1.4_ <@U0123> `green`";
  /** As mrkdwn shows it literally: `& < >` escaped (no mention, no link), the line break kept. */
  const SHOWN = "Release agent for &lt;alice&gt; &amp; *ops*:\n_v1.4_ &lt;@U0123&gt; `green`";

  it("stands above the question in the first post, each step's redraw and the retired copy, escaped", async () => {
    const created = await stack.api("POST", "/questions", {
      questions: [single, multi],
      owner: `slack:${TEAM}:${OWNER}`,
      deliverTo: [{ channel: "slack", chatId: CHANNEL }],
      context: CONTEXT,
    });
    expect(created.status).toBe(201);
    const questionId = created.body.id as string;
    const ts = await postedTs(questionId);
    const post = slack.callsTo("chat.postMessage").at(-1) as RecordedCall;
    expect(post.body.text).toContain(`Question for you:\n\n${SHOWN}\n\n1. Deploy to`);
    expect(post.body.blocks[0]).toEqual({ type: "section", text: { type: "mrkdwn", text: SHOWN } });
    expect(post.body.blocks[1].text.text).toBe("*Deploy to*\nWhere should it go?");

    await postInteraction(tap(control(post, "Production"), ts));
    const redraw = slack.callsTo("chat.update").at(-1) as RecordedCall;
    expect(redraw.body).toMatchObject({ channel: CHANNEL, ts });
    expect(redraw.body.blocks[0]).toEqual({ type: "section", text: { type: "mrkdwn", text: SHOWN } });
    expect(redraw.body.blocks[1].text.text).toBe("*Checks*\nWhich checks?");
    expect(JSON.stringify(redraw.body)).not.toContain("<alice>");

    await stack.api("POST", `/questions/${questionId}/answer`, {
      answers: { deploy_target: ["Production"], checks: ["Unit"] },
    });
    await stack.settled();
    const retired = slack
      .callsTo("chat.update")
      .find((u) => u.body.ts === ts && !u.body.blocks.some((b: { type: string }) => b.type === "actions"));
    if (!retired) throw new Error("the copy was not retired");
    expect(retired.body.text).toContain(`Question for you:\n\n${SHOWN}\n\n1. Deploy to`);
    expect(retired.body.blocks[0].text.text).toContain(SHOWN);
  });
});

describe("Slack: every message fits, whatever the question's size", () => {
  it("the largest question the contract allows: the post, the form, the notices and the ended copy within Slack's limits; the outcome shown", async () => {
    const { questions } = largestArgs("mixed");
    const [first, second, third] = questions;
    const { run, posts, questionId } = await startRun(questions, {
      input: { context: largestContext("mixed") },
    });
    const ts = await postedTs(questionId);
    const post = posts[0] as RecordedCall;
    expect(elements(post).map((e) => e.text?.text)).toContain(first?.options[0]?.label);

    // A keyed own answer of the longest in the question's thread: recorded, and the notice repeats it — cut.
    const own = textOf("mixed", MAX_ANSWER_VALUE_UNITS, "Own ");
    await postEvent(messageEvent(`${third?.id}: ${own}`, { threadTs: ts }));
    const recorded = slack.callsTo("chat.postEphemeral").at(-1) as RecordedCall;
    expect(recorded.body.text).toMatch(/^Recorded: .+…\. Still needed: /s);

    await postInteraction(tap(control(post, "Answer in a form"), ts));
    const view = (slack.callsTo("views.open").at(-1) as RecordedCall).body.view;
    const text = (value: string) => ({ text: { type: "plain_text_input", value } });
    const values = {
      [`c|${first?.id}`]: {
        choice: { type: "static_select", selected_option: { value: first?.options[1]?.label } },
      },
      [`t|${first?.id}`]: { text: { type: "plain_text_input", value: null } },
      [`c|${second?.id}`]: {
        choice: {
          type: "checkboxes",
          selected_options: [{ value: second?.options[0]?.label }, { value: second?.options[3]?.label }],
        },
      },
      [`t|${second?.id}`]: text(own.slice(0, 3000)),
      [`c|${third?.id}`]: { choice: { type: "static_select", selected_option: null } },
      // One character over an own answer's limit: refused, naming the limit, nothing answered.
      [`t|${third?.id}`]: text(`${own}x`),
    };
    const tooLong = await postInteraction(submit(view, values));
    expect(JSON.stringify(tooLong.json.errors)).toContain(`longer than ${MAX_ANSWER_VALUE_UNITS} characters`);
    expect(await statusOf(questionId)).toBe("pending");

    const complete = await postInteraction(submit(view, { ...values, [`t|${third?.id}`]: text(own) }));
    expect(complete.text).toBe("");
    expect(await replyOf(run)).toMatch(/^answered\|/);
    await stack.settled();
    const retired = slack
      .callsTo("chat.update")
      .find((c) => c.body.ts === ts && !JSON.stringify(c.body.blocks).includes('"actions"'));
    if (!retired) throw new Error("the copy was not retired");
    const shown = retired.body.blocks[0].text.text as string;
    const outcome = shown.slice(shown.lastIndexOf("Answered — "));
    for (const question of questions) expect(outcome).toContain(`${escapeSlack(question.header)}: `);
    expect(outcome).toContain(`${escapeSlack(third?.header ?? "")}: Own `);
    expect(slack.refused.map((call) => `${call.method}: ${slackProblems(call.method, call.body)}`)).toEqual(
      [],
    );
  });
});

const escapeSlack = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

describe("Slack: a step on a group's shared copy of a prompt several people answer", () => {
  it("hands the tapper their own link in an ephemeral message and leaves the channel's message as it is", async () => {
    const ownerIm = newIm(OWNER);
    const id = unique("slack-shared");
    const created = await stack.api("POST", "/questions", {
      id,
      questions: [single, note],
      owner: `slack:${TEAM}:${OWNER}`,
      deliverTo: [{ channel: "slack", chatId: ownerIm }],
      answerers: [{ group: { channel: "slack", chatId: CHANNEL } }],
    });
    expect(created.status).toBe(201);
    const ts = await postedTs(id);
    const post = slack.callsTo("chat.postMessage").find((call) => call.body.channel === CHANNEL);
    if (!post) throw new Error("no copy in the channel");
    const before = slack.calls.length;
    const member = "U0MEMBER";
    expect((await postInteraction(tap(control(post, "Production"), ts, { user: member }))).status).toBe(200);
    // Only an ephemeral message to the tapper, with their own link: the shared message is not redrawn.
    const sent = slack.calls.slice(before);
    expect(sent.map((call) => call.method)).toEqual(["chat.postEphemeral"]);
    expect(sent[0]?.body).toMatchObject({ channel: CHANNEL, user: member });
    expect(sent[0]?.body.blocks[1].elements[0].url).toContain(`/answer/${id}`);
    const record = (await stack.api("GET", `/questions/${id}`)).body.question;
    expect(record.status).toBe("pending");
    expect(record.drafts ?? {}).toEqual({});
  });
});

describe("Slack: several people decide (quorum)", () => {
  const BOB = "U0BOB";
  const bob = `slack:${TEAM}:${BOB}`;

  /** A question for the owner and Bob, each in their IM with the app, that `quorum` agreeing answers close. */
  async function askBoth(quorum: number) {
    const ownerIm = newIm(OWNER);
    const bobIm = newIm(BOB);
    const id = unique("slack-q");
    const created = await stack.api("POST", "/questions", {
      id,
      questions: [single],
      owner: `slack:${TEAM}:${OWNER}`,
      deliverTo: [{ channel: "slack", chatId: ownerIm }],
      answerers: [{ owner: bob, deliverTo: [{ channel: "slack", chatId: bobIm }] }],
      quorum,
    });
    expect(created.status).toBe(201);
    await stack.settled();
    const copyIn = (im: string) => {
      const post = slack.callsTo("chat.postMessage").find((call) => call.body.channel === im);
      if (!post) throw new Error(`no copy in ${im}`);
      return post;
    };
    return {
      id,
      owner: { im: ownerIm, post: copyIn(ownerIm), ts: await postedTs(id, ownerIm) },
      bob: { im: bobIm, post: copyIn(bobIm), ts: await postedTs(id, bobIm) },
    };
  }

  /** The ephemeral notices `user` was sent in `chatId`. */
  const noticesTo = (user: string, chatId: string) =>
    slack
      .callsTo("chat.postEphemeral")
      .filter((call) => call.body.user === user && call.body.channel === chatId)
      .map((call) => call.body.text);
  /** Whether a copy's last edit took its controls off. */
  const controlsOf = (call: RecordedCall | undefined) =>
    (call?.body.blocks as { type: string }[] | undefined)?.filter((block) => block.type === "actions") ?? [];

  it("quorum 2: the first vote is told privately it waits for 1 more and loses only its own copy's controls; the second closes it", async () => {
    const { id, owner, bob: bobs } = await askBoth(2);
    slack.calls.length = 0;
    const first = await postInteraction(
      tap(control(bobs.post, "Production"), bobs.ts, { user: BOB, channel: bobs.im }),
    );
    expect(first.status).toBe(200);
    expect(noticesTo(BOB, bobs.im)).toEqual(["Your answer is recorded — waiting for 1 more."]);
    await stack.settled();
    // Only Bob's copy is edited (by the table's stream consumer), without controls; the owner's keeps them.
    const edits = slack.callsTo("chat.update");
    expect(edits.map((call) => [call.body.channel, call.body.ts])).toEqual([[bobs.im, bobs.ts]]);
    expect(controlsOf(edits[0])).toEqual([]);
    expect(edits[0]?.body.text).toContain("Your answer is recorded — waiting for 1 more.");
    expect(await statusOf(id)).toBe("pending");

    slack.calls.length = 0;
    await postInteraction(tap(control(owner.post, "Production"), owner.ts, { channel: owner.im }));
    await stack.settled();
    expect((await stack.api("GET", `/questions/${id}`)).body.question).toMatchObject({
      status: "answered",
      answers: { [single.id]: ["Production"] },
      votes: [{ by: bob }, { by: `slack:${TEAM}:${OWNER}` }],
    });
    const closing = slack.callsTo("chat.update");
    expect(closing.map((call) => call.body.channel).sort()).toEqual([bobs.im, owner.im].sort());
    for (const edit of closing) expect(controlsOf(edit)).toEqual([]);
  });

  it("a second vote from the same person is refused, privately, and changes nothing", async () => {
    const { id, bob: bobs } = await askBoth(2);
    await postInteraction(tap(control(bobs.post, "Production"), bobs.ts, { user: BOB, channel: bobs.im }));
    await stack.settled();
    const before = (await stack.api("GET", `/questions/${id}`)).body.question;
    slack.calls.length = 0;
    await postInteraction(
      tap(control(bobs.post, "Staging (Recommended)"), bobs.ts, { user: BOB, channel: bobs.im }),
    );
    expect(noticesTo(BOB, bobs.im)).toEqual(["You have already answered."]);
    expect((await stack.api("GET", `/questions/${id}`)).body.question).toEqual(before);
  });

  it("a non-owner's /handraise cancel is refused with the sentence and changes nothing, at any quorum", async () => {
    for (const quorum of [1, 2]) {
      const { id, bob: bobs } = await askBoth(quorum);
      const refused = await postCommand("cancel", { user: BOB, channel: bobs.im });
      expect(refused.json, `quorum ${quorum}`).toEqual({
        response_type: "ephemeral",
        text: "Only the question's owner can cancel it; you can skip it instead.",
      });
      expect(await statusOf(id)).toBe("pending");
    }
  });

  it("a Skip from Bob with quorum 1 is his abstention: told so privately, his copy retired, the question waits", async () => {
    const { id, bob: bobs } = await askBoth(1);
    slack.calls.length = 0;
    await postInteraction(tap(control(bobs.post, "Skip"), bobs.ts, { user: BOB, channel: bobs.im }));
    expect(noticesTo(BOB, bobs.im)).toEqual(["You skipped this question; the others can still answer."]);
    await stack.settled();
    const edits = slack.callsTo("chat.update");
    expect(edits.map((call) => call.body.channel)).toEqual([bobs.im]);
    expect(edits[0]?.body.text).toContain("You skipped this question; the others can still answer.");
    expect(await statusOf(id)).toBe("pending");
  });

  it("quorum 2 with a channel as a group: a member's vote is told privately and the channel's copy keeps its controls; a second member's closes it", async () => {
    const ownerIm = newIm(OWNER);
    const id = unique("slack-group");
    const created = await stack.api("POST", "/questions", {
      id,
      questions: [single],
      owner: `slack:${TEAM}:${OWNER}`,
      deliverTo: [{ channel: "slack", chatId: ownerIm }],
      answerers: [{ group: { channel: "slack", chatId: CHANNEL } }],
      quorum: 2,
    });
    expect(created.status).toBe(201);
    const ts = await postedTs(id);
    const post = slack.callsTo("chat.postMessage").find((call) => call.body.channel === CHANNEL);
    if (!post) throw new Error("no copy in the channel");
    slack.calls.length = 0;
    await postInteraction(tap(control(post, "Production"), ts, { user: "U0ANN" }));
    expect(noticesTo("U0ANN", CHANNEL)).toEqual(["Your answer is recorded — waiting for 1 more."]);
    await stack.settled();
    expect(slack.callsTo("chat.update")).toEqual([]);
    expect((await stack.api("GET", `/questions/${id}`)).body.question.votes).toMatchObject([
      { by: `slack:${TEAM}:U0ANN` },
    ]);
    // The same member again is refused; another member's agreeing vote closes it and every copy is retired.
    await postInteraction(tap(control(post, "Production"), ts, { user: "U0ANN" }));
    expect(noticesTo("U0ANN", CHANNEL).at(-1)).toBe("You have already answered.");
    await postInteraction(tap(control(post, "Production"), ts, { user: "U0CAL" }));
    await stack.settled();
    expect((await stack.api("GET", `/questions/${id}`)).body.question).toMatchObject({
      status: "answered",
      resolvedBy: `slack:${TEAM}:U0CAL`,
    });
    const closing = slack.callsTo("chat.update");
    expect(closing.map((call) => call.body.channel).sort()).toEqual([CHANNEL, ownerIm].sort());
    for (const edit of closing) expect(controlsOf(edit)).toEqual([]);
  });
});
