/**
 * Discord's behaviour, with the handlers in process (test/support/in-process-stack.ts) against a fake
 * Discord: verification, the posted message, taps, modals, commands, the stepper, where a link may show, the
 * context and the sizes. What only the real wiring proves (a run resumed through Step Functions, the same
 * interaction twice settled by conditional writes, a slow Discord API in real time) is in
 * discord-e2e.test.ts.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { decodeControl } from "#lib/channels/control-codec.ts";
import { MAX_WEBHOOK_BODY_BYTES } from "#lib/http/middlewares.ts";
import { MAX_ANSWER_VALUE_UNITS } from "#lib/questions/schema.ts";
import {
  type InProcessRun,
  type InProcessStack,
  runResult,
  startInProcessStack,
} from "../support/in-process-stack.ts";
import { largestArgs, largestContext, textOf } from "../support/largest-questions.ts";
import { discordMessageProblems, discordResponseProblems } from "../support/platform-sizes.ts";
import {
  APPLICATION_ID,
  BOT_TOKEN,
  type Component,
  controls,
  customId,
  discordGuild,
  editsMessage,
  OTHER_USER_ID,
  OWNER_ID,
  PUBLIC_KEY,
  postsMessage,
  privateNotice,
  readsChannel,
  type SendOptions,
} from "./support/discord-guild.ts";
import { type FakePlatform, type RecordedCall, startFakePlatform } from "./support/fake-platform.ts";
import { answerThroughLinkInProcess as answerThroughLink, linkPath } from "./support/link-answer.ts";
import { multiQuestion as multi, singleQuestion as single, unique } from "./support/sample-questions.ts";
import { posted } from "./support/test-stack.ts";

/** The deployment's public URL, which answer links name. */
const PUBLIC_URL = "https://handraise.test";

let stack: InProcessStack;
let discord: FakePlatform;
/** Each test talks in a channel of its own: commands go to the oldest pending question in the channel. */
let CHANNEL = "645027906669510000";
const webhookResponses: string[] = [];
/** The task tokens of the questions pending when a request was sent: what a response must not carry. */
const pendingTokens = new Set<string>();

/** The calls that post a message anywhere or edit message `messageId`. */
const touching = (calls: RecordedCall[], messageId: string) =>
  calls.filter((call) => postsMessage(call) || call.path.endsWith(`/messages/${messageId}`));
/**
 * Edits of one posted message: an earlier test's question may still be retired in the background (the stream
 * consumer edits its copies after that test ended), so "no edit" is asserted of this test's message only.
 */
const editsOf = (messageId: string) => (call: RecordedCall) =>
  editsMessage(call) && call.path.endsWith(`/messages/${messageId}`);
const guild = discordGuild({
  channel: () => CHANNEL,
  now: () => stack.clock.now(),
  post: async (body, headers) => {
    for (const item of stack.store.items.values())
      if (item.taskToken) pendingTokens.add(String(item.taskToken));
    const response = await stack.request("POST", "/webhooks/discord", { headers, body });
    webhookResponses.push(response.text);
    return response;
  },
});
const { dms, groupDms, nextSnowflake, fastDiscord, send, tap, submit, command } = guild;

beforeAll(async () => {
  // Refused like Discord past its size limits: every test here runs within them.
  discord = await startFakePlatform(fastDiscord, { limits: "discord" });
  stack = await startInProcessStack({
    DISCORD_BOT_TOKEN: BOT_TOKEN,
    DISCORD_PUBLIC_KEY: PUBLIC_KEY,
    DISCORD_APPLICATION_ID: APPLICATION_ID,
    DISCORD_API_BASE: discord.url,
    HANDRAISE_PUBLIC_URL: PUBLIC_URL,
  });
});
afterAll(async () => {
  await stack?.stop();
  await discord?.stop();
});
beforeEach(() => {
  discord.calls.length = 0;
  discord.respond(fastDiscord);
  CHANNEL = String(BigInt(CHANNEL) + 1n);
});
// What a test's last change set going (a copy retired) ends before the next test counts the calls.
afterEach(() => stack.settled());

/** The reply of the scripted run discord-e2e.test.ts starts, unless a test gives its own. */
const DEFAULT_REPLY = "{{c1.status}}|{{c1.reason}}|{{c1.deploy_target}}{{c1.checks}}";
/** Each run's reply template. */
const replies = new WeakMap<InProcessRun, string>();

async function startRun(
  questions: unknown[],
  options: {
    channels?: string[];
    reply?: string;
    escalate?: unknown;
    input?: Record<string, unknown>;
  } = {},
) {
  const sessionKey = unique("dc");
  const channels = options.channels ?? [CHANNEL];
  const before = discord.calls.filter(postsMessage).length;
  // The run's AskUser task: the ask handler delivers and stores where each copy went before it returns.
  const run = await stack.ask({
    sessionKey,
    ...(options.escalate !== undefined && { escalate: options.escalate }),
    owner: `discord:${OWNER_ID}`,
    deliverTo: channels.map((chatId) => ({ channel: "discord", chatId })),
    questions,
    ...options.input,
  });
  replies.set(run, options.reply ?? DEFAULT_REPLY);
  const posts = discord.calls.filter(postsMessage).slice(before);
  expect(posts.length).toBeGreaterThanOrEqual(channels.length);
  const questionId = (await stack.api("GET", `/questions?sessionKey=${sessionKey}`)).body.questions[0]
    .id as string;
  expect(questionId).toBe(run.questionId);
  const record = (await stack.api("GET", `/questions/${questionId}`)).body.question;
  expect(posted(record)).toBeGreaterThanOrEqual(channels.length);
  const messageIn = (channel: string) =>
    record.deliveries.find((d: { chatId: string }) => d.chatId === channel).messageId as string;
  return { run, posts, questionId, messageIn };
}

/** The reply the scripted run ends with (its template's `{{c1.<field>}}`), from what its AskUser task received. */
async function replyOf(run: InProcessRun): Promise<string> {
  const result = runResult(await run.result());
  return (replies.get(run) ?? DEFAULT_REPLY).replace(/\{\{c1\.(\w+)\}\}/g, (_match, field: string) => {
    if (field === "status") return result.status;
    if (field === "reason") return result.reason ?? "";
    return (result.answers?.[field] ?? []).join(",");
  });
}
const statusOf = async (questionId: string) =>
  (await stack.api("GET", `/questions/${questionId}`)).body.question.status as string;
/** A copy of every item the store holds (as a scan of the table would list them). */
const allItems = () => structuredClone([...stack.store.items.values()]) as Record<string, any>[];

describe("Discord webhook verification", () => {
  it("answers Discord's signed PING with PONG", async () => {
    const response = await send({ id: nextSnowflake(), application_id: APPLICATION_ID, type: 1, version: 1 });
    expect(response).toMatchObject({ status: 200, body: { type: 1 } });
  });

  it("refuses unsigned, tampered, other-body and stale requests with 401, storing and resuming nothing", async () => {
    const { run, posts, questionId, messageIn } = await startRun([single]);
    const interaction = tap(customId(posts[0] as RecordedCall, "Production"), messageIn(CHANNEL));
    const before = allItems();
    const now = Math.floor(stack.clock.now() / 1000);
    for (const options of [
      { signature: "none" },
      { signature: "tampered" },
      { signature: "other-body" },
      { timestamp: now - 301 },
      { timestamp: now + 310 },
    ] as SendOptions[]) {
      expect((await send(interaction, options)).status, JSON.stringify(options)).toBe(401);
    }
    expect(allItems()).toEqual(before);
    expect(await statusOf(questionId)).toBe("pending");
    expect(discord.calls.filter(editsOf(messageIn(CHANNEL)))).toEqual([]);

    // The very same interaction, properly signed, is taken.
    expect((await send(interaction)).body.type).toBe(7);
    expect(await replyOf(run)).toBe("answered||Production");
  });

  it("a body over the webhook limit → 413 before its signature is looked at, nothing stored", async () => {
    const before = allItems();
    const oversized = { id: nextSnowflake(), type: 1, padding: "x".repeat(MAX_WEBHOOK_BODY_BYTES) };
    for (const signature of ["valid", "none"] as const) {
      expect((await send(oversized, { signature })).status, signature).toBe(413);
    }
    expect(allItems()).toEqual(before);
  });

  it("a verified but malformed body → 400", async () => {
    expect((await send("{not json")).status).toBe(400);
    expect((await send({ type: 3, id: "not-a-snowflake" })).status).toBe(400);
  });
});

describe("Discord end to end", () => {
  it("posts one single-select question as escaped text with option buttons, Other…, Answer in browser and Skip, and no task token", async () => {
    const { posts, questionId } = await startRun([
      {
        ...single,
        question: "Ship *now* to `prod`, @everyone? ~~maybe~~ ||x|| > quoted [link](https://x.y)",
      },
    ]);
    const post = posts[0] as RecordedCall;
    expect(post.path).toBe(`/channels/${CHANNEL}/messages`);
    expect(post.headers.authorization).toBe(`Bot ${BOT_TOKEN}`);
    expect(post.body.allowed_mentions).toEqual({ parse: [] });
    expect(post.body.content).toContain(
      "Ship \\*now\\* to \\`prod\\`, @everyone? \\~\\~maybe\\~\\~ \\|\\|x\\|\\| \\> quoted \\[link\\](https://x.y)",
    );
    expect(post.body.content.length).toBeLessThanOrEqual(2000);
    expect(post.body.components.map((row: Component) => row.components?.map((c) => c.label))).toEqual([
      ["Staging (Recommended)", "Production"],
      ["Other…", "Answer in browser", "Skip"],
    ]);
    // In a guild channel, "Answer in browser" is a button like the others, not a link.
    const browser = controls(post).find((c) => c.label === "Answer in browser");
    expect(browser).toEqual({ type: 2, style: 2, label: "Answer in browser", custom_id: expect.any(String) });
    expect(decodeControl(browser?.custom_id ?? "")).toMatchObject({ kind: "browser", questionId });
    expect(JSON.stringify(post.body)).not.toContain("/answer/");
    for (const control of controls(post)) {
      expect(control.custom_id?.length).toBeLessThanOrEqual(100);
      expect(control.custom_id).toContain(questionId);
    }
    const tokens = allItems().flatMap((i) => (i.taskToken ? [i.taskToken as string] : []));
    expect(tokens.length).toBeGreaterThan(0);
    for (const call of discord.calls)
      for (const token of tokens) expect(JSON.stringify(call.body)).not.toContain(token);
  });

  it("multi-select: a string select with min 1 / max n submits the chosen options at once", async () => {
    const { run, posts, messageIn } = await startRun([multi]);
    const post = posts[0] as RecordedCall;
    const [select, ...buttons] = controls(post);
    expect(select).toMatchObject({
      type: 3,
      min_values: 1,
      max_values: 3,
      options: [
        { label: "Unit", value: "0" },
        { label: "E2E", value: "1" },
        { label: "Lint", value: "2" },
      ],
    });
    expect(buttons.map((b) => b.label)).toEqual(["Other…", "Answer in browser", "Skip"]);

    const response = await send(tap(select?.custom_id ?? "", messageIn(CHANNEL), { values: ["2", "0"] }));
    expect(response.body).toMatchObject({ type: 7, data: { components: [] } });
    expect(await replyOf(run)).toBe("answered||Unit,Lint");
  });

  it("Other… opens a modal, and its submission is the free-text answer", async () => {
    const { run, posts, messageIn } = await startRun([single]);
    const opened = await send(tap(customId(posts[0] as RecordedCall, "Other…"), messageIn(CHANNEL)));
    expect(opened.body.type).toBe(9);
    const modal = opened.body.data;
    expect(modal.title.length).toBeLessThanOrEqual(45);
    expect(modal.components).toEqual([
      expect.objectContaining({ type: 18, component: expect.objectContaining({ type: 4, required: true }) }),
    ]);

    const input = modal.components[0].component.custom_id as string;
    const response = await send(
      submit(modal.custom_id, messageIn(CHANNEL), { [input]: "blue-green on Friday" }),
    );
    expect(response.body).toMatchObject({ type: 7, data: { components: [] } });
    expect(await replyOf(run)).toBe("answered||blue-green on Friday");
  });

  it("/question posts the question again; /question answer: answers it like a typed reply", async () => {
    const { run, questionId } = await startRun([single]);
    const shown = await send(command("question"));
    expect(shown.body).toMatchObject(privateNotice("Posted the question again."));
    expect(discord.calls.filter(postsMessage)).toHaveLength(2);

    const answered = await send(command("question", { answer: "2" }));
    expect(answered.body).toMatchObject(privateNotice("Answered — Deploy to: Production"));
    expect(await replyOf(run)).toBe("answered||Production");
    // Both copies, the first post and the re-post, lose their controls.
    const record = (await stack.api("GET", `/questions/${questionId}`)).body.question;
    expect(record.deliveries).toHaveLength(2);
    expect(
      discord.calls
        .filter(editsMessage)
        .map((e) => e.path)
        .sort(),
    ).toEqual(
      record.deliveries
        .map((d: { messageId: string }) => `/channels/${CHANNEL}/messages/${d.messageId}`)
        .sort(),
    );
  });

  it("someone else's tap gets a private notice and changes nothing", async () => {
    const { run, posts, questionId, messageIn } = await startRun([single]);
    const production = customId(posts[0] as RecordedCall, "Production");
    const response = await send(tap(production, messageIn(CHANNEL), { user: OTHER_USER_ID }));
    expect(response.body).toMatchObject(privateNotice("This question is not yours to answer."));
    expect(await statusOf(questionId)).toBe("pending");
    expect(discord.calls.filter(editsOf(messageIn(CHANNEL)))).toEqual([]);
    // Their /cancel finds no question of theirs here.
    expect((await send(command("cancel", { user: OTHER_USER_ID }))).body).toMatchObject(
      privateNotice("No question is waiting for you here."),
    );
    expect(await statusOf(questionId)).toBe("pending");

    await send(tap(production, messageIn(CHANNEL)));
    expect(await replyOf(run)).toBe("answered||Production");
  });

  it("two pending questions in one channel are each answered through their own buttons", async () => {
    const reply = "{{c1.status}}|{{c1.deploy_target}}{{c1.second}}";
    const first = await startRun([single], { reply });
    const second = await startRun([{ ...single, id: "second", header: "Second" }], { reply });

    await send(tap(customId(second.posts[0] as RecordedCall, "Production"), second.messageIn(CHANNEL)));
    expect(await replyOf(second.run)).toBe("answered|Production");
    expect(await statusOf(first.questionId)).toBe("pending");

    await send(
      tap(customId(first.posts[0] as RecordedCall, "Staging (Recommended)"), first.messageIn(CHANNEL)),
    );
    expect(await replyOf(first.run)).toBe("answered|Staging (Recommended)");
  });
});

describe("Discord stepper (a prompt of several questions, one step at a time)", () => {
  const THREE = [
    { ...single, header: "Deploy" },
    { ...multi, options: [{ label: "Unit (Recommended)" }, { label: "E2E" }, { label: "Lint" }] },
    {
      id: "release_note",
      header: "Note",
      question: "Release note?",
      options: [{ label: "Routine (Recommended)" }, { label: "Urgent" }],
    },
  ];
  const reply = "deploy={{c1.deploy_target}} | checks={{c1.checks}} | note={{c1.release_note}}";
  const startThree = () => startRun(THREE, { reply });

  /**
   * The prompt redrawn in place at step `step` (UPDATE_MESSAGE): its controls, each custom_id a control of
   * the shared codec for this question and this step, within Discord's 100 characters.
   */
  function redrawnAt(response: Awaited<ReturnType<typeof send>>, questionId: string, step: number) {
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ type: 7, data: { allowed_mentions: { parse: [] } } });
    expect(response.body.data.content).toContain(`${step + 1} of 3 · ${THREE[step]?.header}`);
    expect(response.body.data.content.length).toBeLessThanOrEqual(2000);
    const all = (response.body.data.components as Component[]).flatMap((row) => {
      expect(row.type).toBe(1);
      return row.components ?? [];
    });
    expect(all.length).toBeGreaterThan(0);
    for (const control of all) {
      expect(control.custom_id?.length).toBeLessThanOrEqual(100);
      expect(decodeControl(control.custom_id ?? "")).toMatchObject({ questionId, questionIndex: step });
    }
    return all;
  }
  const idOf = (components: Component[], label: string) => {
    const found = components.find((c) => c.label === label)?.custom_id;
    if (!found) throw new Error(`no control ${label}`);
    return found;
  };
  const selectOf = (components: Component[]) => {
    const select = components.find((c) => c.type === 3);
    if (!select?.custom_id) throw new Error("no select");
    return select;
  };
  const questionOf = async (questionId: string) =>
    (await stack.api("GET", `/questions/${questionId}`)).body.question;

  it("is posted as step 1 and answered step by step (buttons, the select, buttons); the run resumes with all three", async () => {
    const { run, posts, questionId, messageIn } = await startThree();
    const message = messageIn(CHANNEL);
    const post = posts[0] as RecordedCall;
    expect(post.body.content).toContain("1 of 3 · Deploy");
    expect(post.body.content).not.toContain("Which checks?");
    expect(controls(post).map((c) => c.label)).toEqual([
      "Staging (Recommended)",
      "Production",
      "Other…",
      "Answer in browser",
      "Skip",
    ]);

    const second = redrawnAt(await send(tap(customId(post, "Production"), message)), questionId, 1);
    expect(selectOf(second)).toMatchObject({ min_values: 1, max_values: 3 });
    expect(decodeControl(selectOf(second).custom_id ?? "")?.kind).toBe("choose");
    expect(second.filter((c) => c.type === 2).map((c) => c.label)).toEqual([
      "Other…",
      "Back",
      "Answer in browser",
      "Skip",
    ]);
    // Kept as the draft, not an answer: the question is still pending.
    const kept = await questionOf(questionId);
    expect(kept).toMatchObject({ status: "pending", draft: { deploy_target: ["Production"] } });
    expect(kept).not.toHaveProperty("answers");

    const chosen = await send(tap(selectOf(second).custom_id ?? "", message, { values: ["2", "0"] }));
    const third = redrawnAt(chosen, questionId, 2);
    expect((await questionOf(questionId)).draft).toEqual({
      deploy_target: ["Production"],
      checks: ["Unit (Recommended)", "Lint"],
    });

    const last = await send(tap(idOf(third, "Urgent"), message));
    expect(last.body).toMatchObject({ type: 7, data: { components: [] } });
    expect(last.body.data.content).toContain(
      "Answered — Deploy: Production; Checks: Unit (Recommended), Lint",
    );
    expect(await replyOf(run)).toBe("deploy=Production | checks=Unit (Recommended),Lint | note=Urgent");
    expect(await questionOf(questionId)).not.toHaveProperty("draft");
  });

  it("Back shows the step before with its choice marked; a different option there changes the earlier answer", async () => {
    const { run, posts, questionId, messageIn } = await startThree();
    const message = messageIn(CHANNEL);
    const second = redrawnAt(
      await send(tap(customId(posts[0] as RecordedCall, "Production"), message)),
      questionId,
      1,
    );
    const third = redrawnAt(
      await send(tap(selectOf(second).custom_id ?? "", message, { values: ["1"] })),
      questionId,
      2,
    );

    // Back from step 3: the select shows E2E chosen.
    const again = redrawnAt(await send(tap(idOf(third, "Back"), message)), questionId, 1);
    expect(selectOf(again).options.map((o: Component) => o.default === true)).toEqual([false, true, false]);
    // Back from step 2: Production is drawn as chosen (green), Staging not; step 1 has no Back.
    const first = redrawnAt(await send(tap(idOf(again, "Back"), message)), questionId, 0);
    expect(first.filter((c) => c.style === 3).map((c) => c.label)).toEqual(["Production"]);
    expect(first.map((c) => c.label)).not.toContain("Back");

    const changed = redrawnAt(await send(tap(idOf(first, "Staging (Recommended)"), message)), questionId, 1);
    expect((await questionOf(questionId)).draft).toEqual({
      deploy_target: ["Staging (Recommended)"],
      checks: ["E2E"],
    });
    const final = redrawnAt(
      await send(tap(selectOf(changed).custom_id ?? "", message, { values: ["1"] })),
      questionId,
      2,
    );
    expect((await send(tap(idOf(final, "Routine (Recommended)"), message))).body.type).toBe(7);
    expect(await replyOf(run)).toBe("deploy=Staging (Recommended) | checks=E2E | note=Routine (Recommended)");
  });

  it("Other… on a step opens a modal whose answer moves the prompt on to the next step", async () => {
    const { run, posts, questionId, messageIn } = await startThree();
    const message = messageIn(CHANNEL);
    const second = redrawnAt(
      await send(tap(customId(posts[0] as RecordedCall, "Production"), message)),
      questionId,
      1,
    );
    const opened = await send(tap(idOf(second, "Other…"), message));
    expect(opened.body.type).toBe(9);
    expect(decodeControl(opened.body.data.custom_id)).toMatchObject({
      kind: "other",
      questionId,
      questionIndex: 1,
    });
    const input = opened.body.data.components[0].component.custom_id as string;

    const third = redrawnAt(
      await send(submit(opened.body.data.custom_id, message, { [input]: "smoke only" })),
      questionId,
      2,
    );
    await send(tap(idOf(third, "Urgent"), message));
    expect(await replyOf(run)).toBe("deploy=Production | checks=smoke only | note=Urgent");
  });

  it("a typed /question answer: during the steps answers what is still open, with what the steps kept", async () => {
    const { run, posts, questionId, messageIn } = await startThree();
    redrawnAt(
      await send(tap(customId(posts[0] as RecordedCall, "Production"), messageIn(CHANNEL))),
      questionId,
      1,
    );
    // A keyed line answers its own question, out of order: Checks is still needed.
    expect((await send(command("question", { answer: "release_note: night-shift" }))).body).toMatchObject(
      privateNotice("Recorded: Note: night-shift. Still needed: Checks \\[checks\\]."),
    );
    expect((await questionOf(questionId)).draft).toEqual({
      deploy_target: ["Production"],
      release_note: ["night-shift"],
    });
    // A plain line answers the first question still open (Checks), and with what was kept that is all.
    const answered = await send(command("question", { answer: "2" }));
    expect(answered.body).toMatchObject(
      privateNotice("Answered — Deploy: Production; Checks: E2E; Note: night-shift"),
    );
    expect(await replyOf(run)).toBe("deploy=Production | checks=E2E | note=night-shift");
  });

  it("/question posts the prompt again at its first step still open, with Back", async () => {
    const { posts, questionId, messageIn } = await startThree();
    redrawnAt(
      await send(tap(customId(posts[0] as RecordedCall, "Production"), messageIn(CHANNEL))),
      questionId,
      1,
    );
    expect((await send(command("question"))).body).toMatchObject(privateNotice("Posted the question again."));
    const again = discord.calls.filter(postsMessage).at(-1) as RecordedCall;
    expect(again.body.content).toContain("2 of 3 · Checks");
    expect(controls(again).map((c) => c.label)).toContain("Back");
    for (const control of controls(again).filter((c) => c.custom_id !== undefined)) {
      expect(decodeControl(control.custom_id ?? "")).toMatchObject({ questionId, questionIndex: 1 });
    }
  });

  it("someone else's tap on a step gets a private notice and nothing is kept", async () => {
    const { run, posts, questionId, messageIn } = await startThree();
    const message = messageIn(CHANNEL);
    const production = customId(posts[0] as RecordedCall, "Production");
    const notYours = privateNotice("This question is not yours to answer.");

    expect((await send(tap(production, message, { user: OTHER_USER_ID }))).body).toMatchObject(notYours);
    const untouched = await questionOf(questionId);
    expect(untouched).toMatchObject({ status: "pending" });
    expect(untouched).not.toHaveProperty("draft");

    // On a later step too: their select and their Back change nothing the owner kept.
    const second = redrawnAt(await send(tap(production, message)), questionId, 1);
    const theirs = { user: OTHER_USER_ID };
    expect(
      (await send(tap(selectOf(second).custom_id ?? "", message, { ...theirs, values: ["0"] }))).body,
    ).toMatchObject(notYours);
    expect((await send(tap(idOf(second, "Back"), message, theirs))).body).toMatchObject(notYours);
    expect((await questionOf(questionId)).draft).toEqual({ deploy_target: ["Production"] });
    expect(discord.calls.filter(editsOf(message))).toEqual([]);

    const third = redrawnAt(
      await send(tap(selectOf(second).custom_id ?? "", message, { values: ["0"] })),
      questionId,
      2,
    );
    await send(tap(idOf(third, "Routine (Recommended)"), message));
    expect(await replyOf(run)).toBe(
      "deploy=Production | checks=Unit (Recommended) | note=Routine (Recommended)",
    );
  });
});

describe("Discord: an answer link shows only in the bot's DM with its answerer", () => {
  const OWN_LINK = "Your own link to answer in a browser. It works for you alone: do not share it.";
  const ownerLink = (questionId: string) =>
    new RegExp(`^${PUBLIC_URL}/answer/${questionId}\\?sig=[A-Za-z0-9_-]{43}$`);
  /** A new DM channel of the bot with `user`, as Discord would open it. */
  function newDm(user: string): string {
    const id = nextSnowflake();
    dms.set(id, user);
    return id;
  }
  const postIn = (posts: RecordedCall[], chatId: string) => {
    const found = posts.find((post) => post.path === `/channels/${chatId}/messages`);
    if (!found) throw new Error(`nothing posted to ${chatId}`);
    return found;
  };
  const componentsOf = (message: { components: Component[] }) =>
    message.components.flatMap((row) => row.components ?? []);
  /** A copy with the button: "Answer in browser" is the codec's browser control, and no link anywhere. */
  function expectButton(message: { components: Component[] }, questionId: string) {
    const browser = componentsOf(message).find((c) => c.label === "Answer in browser");
    expect(browser).toMatchObject({ type: 2, style: 2 });
    expect(decodeControl(browser?.custom_id ?? "")).toMatchObject({ kind: "browser", questionId });
    expect(JSON.stringify(message)).not.toContain("/answer/");
  }
  /** A copy with a link: "Answer in browser" is a link button (style 5, no custom_id) with that link. */
  function linkOf(message: { components: Component[] }): string {
    const browser = componentsOf(message).find((c) => c.label === "Answer in browser");
    expect(browser).toEqual({ type: 2, style: 5, label: "Answer in browser", url: expect.any(String) });
    return browser?.url as string;
  }
  const copiesOf = async (questionId: string) =>
    (await stack.api("GET", `/questions/${questionId}`)).body.question.deliveries as {
      chatId: string;
      messageId: string;
      privateTo?: string;
    }[];

  it("a guild channel's copy has the Answer in browser button and no link; a DM with the owner carries the owner's link; a DM with someone else, a group DM or a channel Discord does not describe, the button", async () => {
    const ownerDm = newDm(OWNER_ID);
    const otherDm = newDm(OTHER_USER_ID);
    const group = nextSnowflake();
    groupDms.set(group, [OWNER_ID, OTHER_USER_ID]);
    const undescribed = nextSnowflake();
    discord.answerOnce((call) => readsChannel(call) && call.method === undescribed, {
      status: 404,
      body: { message: "Unknown Channel", code: 10003 },
    });
    const { posts, questionId } = await startRun([single], {
      channels: [CHANNEL, ownerDm, otherDm, group, undescribed],
    });
    expectButton(postIn(posts, CHANNEL).body, questionId);
    expect(linkOf(postIn(posts, ownerDm).body)).toMatch(ownerLink(questionId));
    for (const shared of [otherDm, group, undescribed]) expectButton(postIn(posts, shared).body, questionId);
    // Each target was described by Discord (GET /channels/{id} with the bot token) before the post.
    const reads = discord.calls.filter(readsChannel);
    expect(reads.map((call) => call.method).sort()).toEqual(
      [CHANNEL, ownerDm, otherDm, group, undescribed].sort(),
    );
    for (const read of reads) expect(read.headers.authorization).toBe(`Bot ${BOT_TOKEN}`);
    const copies = await copiesOf(questionId);
    expect(Object.fromEntries(copies.map((d) => [d.chatId, d.privateTo ?? null]))).toEqual({
      [CHANNEL]: null,
      [ownerDm]: `discord:${OWNER_ID}`,
      [otherDm]: null,
      [group]: null,
      [undescribed]: null,
    });
  });

  it("the owner's tap on Answer in browser in a guild channel gets an ephemeral reply with their own link; nothing is posted or edited; the link answers as them", async () => {
    const { run, posts, questionId, messageIn } = await startRun([single]);
    const browser = customId(postIn(posts, CHANNEL), "Answer in browser");
    const before = discord.calls.length;
    const response = await send(tap(browser, messageIn(CHANNEL)));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      type: 4,
      data: {
        content: OWN_LINK,
        flags: 64,
        allowed_mentions: { parse: [] },
        components: [{ type: 1, components: [expect.objectContaining({ type: 2, style: 5 })] }],
      },
    });
    const url = linkOf(response.body.data);
    expect(url).toMatch(ownerLink(questionId));
    // Handed over in the response alone: no message posted, this question's copy not edited (an earlier
    // test's copies may still be retired in the background meanwhile).
    expect(touching(discord.calls.slice(before), messageIn(CHANNEL))).toEqual([]);

    expect((await stack.request("GET", linkPath(url))).status).toBe(200);
    expect((await answerThroughLink(stack, url, { deploy_target: "1" })).status).toBe(303);
    expect(await replyOf(run)).toBe("answered||Production");
    expect((await stack.api("GET", `/questions/${questionId}`)).body.question).toMatchObject({
      status: "answered",
      resolvedBy: `web:discord:${OWNER_ID}`,
    });
  });

  it("someone else's tap on Answer in browser gets the ephemeral not-yours notice, with no link anywhere", async () => {
    const { posts, questionId, messageIn } = await startRun([single]);
    const browser = customId(postIn(posts, CHANNEL), "Answer in browser");
    const before = discord.calls.length;
    const response = await send(tap(browser, messageIn(CHANNEL), { user: OTHER_USER_ID }));
    expect(response.body).toEqual({
      type: 4,
      data: { content: "This question is not yours to answer.", flags: 64, allowed_mentions: { parse: [] } },
    });
    expect(touching(discord.calls.slice(before), messageIn(CHANNEL))).toEqual([]);
    expect(JSON.stringify(discord.calls.map((call) => call.body))).not.toContain("/answer/");
    expect(await statusOf(questionId)).toBe("pending");
  });

  it("an escalation owner gets a link of their own — on their copy in their DM, and when they tap Answer in browser in the channel — which answers as them", async () => {
    const escalation = `discord:${OTHER_USER_ID}`;
    const theirDm = newDm(OTHER_USER_ID);
    const { run, posts, questionId, messageIn } = await startRun([single], {
      escalate: { afterSeconds: 2, owner: escalation, deliverTo: [{ channel: "discord", chatId: theirDm }] },
    });
    const theirLink = new RegExp(
      `^${PUBLIC_URL}/answer/${questionId}\\?as=${encodeURIComponent(escalation)}&sig=[A-Za-z0-9_-]{43}$`,
    );
    // At the escalation time the question is posted in their DM, with their link (not the owner's).
    await stack.clock.advance(2_000);
    const escalated = discord.calls.find(
      (call) => postsMessage(call) && call.path === `/channels/${theirDm}/messages`,
    );
    if (!escalated) throw new Error("the escalated copy was not posted");
    const linkInDm = linkOf(escalated.body);
    expect(linkInDm).toMatch(theirLink);
    const recorded = (await copiesOf(questionId)).find(
      (d) => d.chatId === theirDm && d.messageId !== undefined,
    );
    if (!recorded) throw new Error("the escalated copy was not recorded");
    expect(recorded.privateTo).toBe(escalation);

    // In the guild channel, their tap is handed the same link of theirs, privately.
    const browser = customId(postIn(posts, CHANNEL), "Answer in browser");
    const response = await send(tap(browser, messageIn(CHANNEL), { user: OTHER_USER_ID }));
    expect(response.body).toMatchObject({ type: 4, data: { content: OWN_LINK, flags: 64 } });
    expect(linkOf(response.body.data)).toBe(linkInDm);

    expect((await answerThroughLink(stack, linkInDm, { deploy_target: "0" })).status).toBe(303);
    expect(await replyOf(run)).toBe("answered||Staging (Recommended)");
    expect((await stack.api("GET", `/questions/${questionId}`)).body.question.resolvedBy).toBe(
      `web:${escalation}`,
    );
  });

  it("the stepper's redraws keep the rule: in the guild channel every step has the button, in the owner's DM their link — after a tap, Back and an Other… answer", async () => {
    const ownerDm = newDm(OWNER_ID);
    const { posts, questionId, messageIn } = await startRun([single, multi], {
      channels: [CHANNEL, ownerDm],
    });
    const inDm = { channel: ownerDm, dm: true };
    /** The prompt redrawn in place by the response (UPDATE_MESSAGE). */
    const redraw = async (interaction: unknown) => {
      const response = await send(interaction);
      expect(response.body.type).toBe(7);
      return response.body.data as { components: Component[]; content: string };
    };
    const idIn = (message: { components: Component[] }, label: string) =>
      componentsOf(message).find((c) => c.label === label)?.custom_id ?? "";

    const guildSecond = await redraw(tap(customId(postIn(posts, CHANNEL), "Production"), messageIn(CHANNEL)));
    expect(guildSecond.content).toContain("2 of 2");
    expectButton(guildSecond, questionId);
    const dmPost = postIn(posts, ownerDm);
    expect(linkOf(dmPost.body)).toMatch(ownerLink(questionId));
    const dmSecond = await redraw(tap(customId(dmPost, "Production"), messageIn(ownerDm), inDm));
    expect(linkOf(dmSecond)).toMatch(ownerLink(questionId));

    expectButton(await redraw(tap(idIn(guildSecond, "Back"), messageIn(CHANNEL))), questionId);
    const dmFirst = await redraw(tap(idIn(dmSecond, "Back"), messageIn(ownerDm), inDm));
    expect(dmFirst.content).toContain("1 of 2");
    expect(linkOf(dmFirst)).toMatch(ownerLink(questionId));

    // Other… on the DM's first step: the modal holds no link; its answer redraws the DM copy, with the link.
    const opened = await send(tap(idIn(dmFirst, "Other…"), messageIn(ownerDm), inDm));
    expect(opened.body.type).toBe(9);
    expect(JSON.stringify(opened.body)).not.toContain("/answer/");
    const input = opened.body.data.components[0].component.custom_id as string;
    const dmAgain = await redraw(
      submit(opened.body.data.custom_id, messageIn(ownerDm), { [input]: "blue-green" }, inDm),
    );
    expect(dmAgain.content).toContain("2 of 2");
    expect(linkOf(dmAgain)).toMatch(ownerLink(questionId));
  });

  it("/question posts the question again by the same rule: the owner's link in their DM, the button in a guild channel", async () => {
    const ownerDm = newDm(OWNER_ID);
    const { questionId } = await startRun([single], { channels: [CHANNEL, ownerDm] });
    expect((await send(command("question", { channel: ownerDm, dm: true }))).body).toMatchObject(
      privateNotice("Posted the question again."),
    );
    const again = discord.calls.filter(postsMessage).at(-1) as RecordedCall;
    expect(again.path).toBe(`/channels/${ownerDm}/messages`);
    expect(linkOf(again.body)).toMatch(ownerLink(questionId));

    expect((await send(command("question"))).body).toMatchObject(privateNotice("Posted the question again."));
    const inGuild = discord.calls.filter(postsMessage).at(-1) as RecordedCall;
    expect(inGuild.path).toBe(`/channels/${CHANNEL}/messages`);
    expectButton(inGuild.body, questionId);
    const copies = await copiesOf(questionId);
    expect(copies.filter((d) => d.privateTo === `discord:${OWNER_ID}`).map((d) => d.chatId)).toEqual([
      ownerDm,
      ownerDm,
    ]);
  });
});

// Last, so that it reads every response the tests above were given, the stepper's redrawn prompts too.
describe("Discord webhook responses", () => {
  it("no webhook response carried a task token", async () => {
    const tokens = allItems().flatMap((i) => (i.taskToken ? [i.taskToken as string] : []));
    expect(webhookResponses.length).toBeGreaterThan(10);
    for (const text of webhookResponses) for (const token of tokens) expect(text).not.toContain(token);
    // The tokens of questions since closed too: each was in the store while its question waited.
    expect(pendingTokens.size).toBeGreaterThan(0);
    for (const text of webhookResponses) for (const token of pendingTokens) expect(text).not.toContain(token);
  });
});

describe("Discord: the context (who is asking and why) above the questions", () => {
  const CONTEXT = "Release agent for *ops* & <alice>:\n# v1.4 _passed_ `CI`";
  /** As Discord markdown shows it literally: emphasis, code, quotes and a heading at a line's start escaped. */
  const SHOWN = "Release agent for \\*ops\\* & <alice\\>:\n\\# v1.4 \\_passed\\_ \\`CI\\`";

  it("stands above the question in the first post, each step's redraw and the retired copy, escaped", async () => {
    const created = await stack.api("POST", "/questions", {
      questions: [single, multi],
      owner: `discord:${OWNER_ID}`,
      deliverTo: [{ channel: "discord", chatId: CHANNEL }],
      context: CONTEXT,
    });
    expect(created.status).toBe(201);
    const questionId = created.body.id as string;
    await stack.settled();
    const record = (await stack.api("GET", `/questions/${questionId}`)).body.question;
    expect(posted(record)).toBeGreaterThanOrEqual(1);
    const message = record.deliveries[0].messageId as string;
    const post = discord.calls.filter(postsMessage).at(-1) as RecordedCall;
    expect(post.body.content).toContain(`Question for you:\n\n${SHOWN}\n\n1 of 2 · Deploy to`);
    expect(post.body.allowed_mentions).toEqual({ parse: [] });

    const redraw = await send(tap(customId(post, "Production"), message));
    expect(redraw.body).toMatchObject({ type: 7, data: { allowed_mentions: { parse: [] } } });
    expect(redraw.body.data.content).toContain(`Question for you:\n\n${SHOWN}\n\n2 of 2 · Checks`);

    const select = (redraw.body.data.components as Component[])
      .flatMap((row) => row.components ?? [])
      .find((c) => c.type === 3);
    const last = await send(tap(select?.custom_id ?? "", message, { values: ["0"] }));
    expect(last.body).toMatchObject({ type: 7, data: { components: [] } });
    expect(last.body.data.content).toContain(`Question for you:\n\n${SHOWN}\n\n1. Deploy to`);
    expect(last.body.data.content).toContain("Answered — Deploy to: Production; Checks: Unit");
  });
});

describe("Discord: every message fits, whatever the question's size", () => {
  /** A component of an interaction response's message, by its label (or a select: the first one). */
  const idIn = (data: { components: Component[] }, label?: string) => {
    const found = data.components
      .flatMap((row) => row.components ?? [])
      .find((c) => (label === undefined ? c.type === 3 : c.label === label));
    if (!found?.custom_id) throw new Error(`no control ${label ?? "select"}`);
    return found.custom_id;
  };

  it("the largest question the contract allows: the post, each step, the modal, the notices and the ended copy within Discord's limits; the outcome shown", async () => {
    const { questions } = largestArgs("mixed");
    const [first, , third] = questions;
    const { run, posts, messageIn } = await startRun(questions, {
      input: { context: largestContext("mixed") },
    });
    const message = messageIn(CHANNEL);
    const responses: unknown[] = [];
    const respond = async (interaction: unknown) => {
      const response = await send(interaction);
      responses.push(response.body);
      return response.body;
    };

    // A keyed own answer of the longest, typed through the command: recorded, and the notice repeats it — cut.
    const own = textOf("mixed", MAX_ANSWER_VALUE_UNITS, "Own ");
    const recorded = await respond(command("question", { answer: `${third?.id}: ${own}` }));
    expect(recorded.data.content).toMatch(/^Recorded: .+…\. Still needed: /s);

    const step2 = await respond(
      tap(customId(posts[0] as RecordedCall, first?.options[1]?.label ?? ""), message),
    );
    expect(step2.type).toBe(7);
    const step3 = await respond(tap(idIn(step2.data), message, { values: ["0", "3"] }));
    expect(step3.data.content).toContain("3 of 3");
    const modal = await respond(tap(idIn(step3.data, "Other…"), message));
    expect(modal).toMatchObject({ type: 9, data: { custom_id: idIn(step3.data, "Other…") } });

    // One character over an own answer's limit: refused, naming the limit; then the longest is taken.
    const tooLong = await respond(submit(modal.data.custom_id, message, { answer: `${own}x` }));
    expect(tooLong.data.content).toContain(`longer than ${MAX_ANSWER_VALUE_UNITS} characters`);
    const retired = await respond(submit(modal.data.custom_id, message, { answer: own }));
    expect(retired).toMatchObject({ type: 7, data: { components: [] } });
    expect(await replyOf(run)).toMatch(/^answered\|/);

    const content = retired.data.content as string;
    const outcome = content.slice(content.lastIndexOf("Answered — "));
    for (const question of questions) expect(outcome).toContain(`${escapeDiscord(question.header)}: `);
    expect(outcome).toContain(`${escapeDiscord(third?.header ?? "")}: Own `);
    expect(responses.flatMap(discordResponseProblems)).toEqual([]);
    expect(discord.refused.map((call) => `${call.path}: ${discordMessageProblems(call.body)}`)).toEqual([]);
  });
});

const escapeDiscord = (text: string) => text.replace(/[\\*_~`|>[\]]/g, "\\$&");

describe("Discord: several people decide (quorum)", () => {
  const BOB_ID = "80351110224678999";
  const bob = `discord:${BOB_ID}`;
  /** A new DM channel of the bot with `user`, as Discord would open it. */
  function newDm(user: string): string {
    const id = nextSnowflake();
    dms.set(id, user);
    return id;
  }
  /** The edits of message `messageId` in `chatId`. */
  const editsIn = (chatId: string, messageId: string) =>
    discord.calls.filter(
      (call) => editsMessage(call) && call.path === `/channels/${chatId}/messages/${messageId}`,
    );

  /** A question for the owner and Bob, each in their DM with the bot, that `quorum` agreeing answers close. */
  async function askBoth(quorum: number) {
    const ownerDm = newDm(OWNER_ID);
    const bobDm = newDm(BOB_ID);
    const id = unique("dc-q");
    const created = await stack.api("POST", "/questions", {
      id,
      questions: [single],
      owner: `discord:${OWNER_ID}`,
      deliverTo: [{ channel: "discord", chatId: ownerDm }],
      answerers: [{ owner: bob, deliverTo: [{ channel: "discord", chatId: bobDm }] }],
      quorum,
    });
    expect(created.status).toBe(201);
    await stack.settled();
    const { deliveries } = (await stack.api("GET", `/questions/${id}`)).body.question;
    const messageIn = (dm: string) =>
      deliveries.find((d: { chatId: string }) => d.chatId === dm).messageId as string;
    const postIn = (dm: string) => {
      const post = discord.calls.find(
        (call) => postsMessage(call) && call.path === `/channels/${dm}/messages`,
      );
      if (!post) throw new Error(`no copy in ${dm}`);
      return post;
    };
    return {
      id,
      owner: { dm: ownerDm, post: postIn(ownerDm), message: messageIn(ownerDm) },
      bob: { dm: bobDm, post: postIn(bobDm), message: messageIn(bobDm) },
    };
  }

  it("quorum 2: the first vote is told privately it waits for 1 more and loses only its own copy's controls; the second closes it", async () => {
    const { id, owner, bob: bobs } = await askBoth(2);
    discord.calls.length = 0;
    const first = await send(
      tap(customId(bobs.post, "Production"), bobs.message, { user: BOB_ID, dm: true, channel: bobs.dm }),
    );
    expect(first.body).toMatchObject(privateNotice("Your answer is recorded — waiting for 1 more."));
    await stack.settled();
    // Only Bob's copy is edited (by the table's stream consumer), without controls; the owner's keeps them.
    expect(discord.calls.filter(editsMessage).map((call) => call.path)).toEqual([
      `/channels/${bobs.dm}/messages/${bobs.message}`,
    ]);
    expect(editsIn(bobs.dm, bobs.message)[0]?.body).toMatchObject({
      content: expect.stringContaining("Your answer is recorded — waiting for 1 more."),
      components: [],
    });
    expect(await statusOf(id)).toBe("pending");

    discord.calls.length = 0;
    const second = await send(
      tap(customId(owner.post, "Production"), owner.message, { dm: true, channel: owner.dm }),
    );
    // The owner's tapped copy shows the outcome through the response; the stream edits Bob's.
    expect(second.body).toMatchObject({ type: 7, data: { components: [] } });
    await stack.settled();
    expect((await stack.api("GET", `/questions/${id}`)).body.question).toMatchObject({
      status: "answered",
      answers: { [single.id]: ["Production"] },
      votes: [{ by: bob }, { by: `discord:${OWNER_ID}` }],
    });
    expect(editsIn(bobs.dm, bobs.message).at(-1)?.body).toMatchObject({
      content: expect.stringContaining("Answered"),
      components: [],
    });
  });

  it("a second vote from the same person is refused privately and changes nothing", async () => {
    const { id, bob: bobs } = await askBoth(2);
    const production = customId(bobs.post, "Production");
    await send(tap(production, bobs.message, { user: BOB_ID, dm: true, channel: bobs.dm }));
    await stack.settled();
    const before = (await stack.api("GET", `/questions/${id}`)).body.question;
    const again = await send(
      tap(customId(bobs.post, "Staging (Recommended)"), bobs.message, {
        user: BOB_ID,
        dm: true,
        channel: bobs.dm,
      }),
    );
    expect(again.body).toMatchObject(privateNotice("You have already answered."));
    expect((await stack.api("GET", `/questions/${id}`)).body.question).toEqual(before);
  });

  it("a non-owner's /cancel is refused with the sentence and changes nothing, at any quorum", async () => {
    for (const quorum of [1, 2]) {
      const { id, bob: bobs } = await askBoth(quorum);
      const refused = await send(command("cancel", { user: BOB_ID, dm: true, channel: bobs.dm }));
      expect(refused.body, `quorum ${quorum}`).toMatchObject(
        privateNotice("Only the question's owner can cancel it; you can skip it instead."),
      );
      expect(await statusOf(id)).toBe("pending");
    }
  });

  it("a Skip from Bob with quorum 1 is his abstention: told so privately, his copy retired, the question waits", async () => {
    const { id, bob: bobs } = await askBoth(1);
    discord.calls.length = 0;
    const skipped = await send(
      tap(customId(bobs.post, "Skip"), bobs.message, { user: BOB_ID, dm: true, channel: bobs.dm }),
    );
    expect(skipped.body).toMatchObject(
      privateNotice("You skipped this question; the others can still answer."),
    );
    await stack.settled();
    expect(discord.calls.filter(editsMessage).map((call) => call.path)).toEqual([
      `/channels/${bobs.dm}/messages/${bobs.message}`,
    ]);
    expect(editsIn(bobs.dm, bobs.message)[0]?.body).toMatchObject({
      content: expect.stringContaining("You skipped this question; the others can still answer."),
      components: [],
    });
    expect(await statusOf(id)).toBe("pending");
  });

  it("quorum 2 with a guild channel as a group: a member's vote is told privately, the shared copy keeps its controls; another member's closes it", async () => {
    const ownerDm = newDm(OWNER_ID);
    const id = unique("dc-group");
    const created = await stack.api("POST", "/questions", {
      id,
      questions: [single],
      owner: `discord:${OWNER_ID}`,
      deliverTo: [{ channel: "discord", chatId: ownerDm }],
      answerers: [{ group: { channel: "discord", chatId: CHANNEL } }],
      quorum: 2,
    });
    expect(created.status).toBe(201);
    await stack.settled();
    const post = discord.calls.find(
      (call) => postsMessage(call) && call.path === `/channels/${CHANNEL}/messages`,
    );
    if (!post) throw new Error("no copy in the channel");
    const message = (await stack.api("GET", `/questions/${id}`)).body.question.deliveries.find(
      (d: { chatId: string }) => d.chatId === CHANNEL,
    ).messageId as string;
    const production = customId(post, "Production");
    discord.calls.length = 0;
    const first = await send(tap(production, message, { user: OTHER_USER_ID }));
    expect(first.body).toMatchObject(privateNotice("Your answer is recorded — waiting for 1 more."));
    await stack.settled();
    expect(discord.calls.filter(editsMessage)).toEqual([]);
    expect((await send(tap(production, message, { user: OTHER_USER_ID }))).body).toMatchObject(
      privateNotice("You have already answered."),
    );
    const closing = await send(tap(production, message, { user: BOB_ID }));
    expect(closing.body).toMatchObject({ type: 7, data: { components: [] } });
    await stack.settled();
    const record = (await stack.api("GET", `/questions/${id}`)).body.question;
    expect(record).toMatchObject({ status: "answered", resolvedBy: bob });
    const ownerCopy = record.deliveries.find((d: { chatId: string }) => d.chatId === ownerDm).messageId;
    expect(editsIn(ownerDm, ownerCopy).at(-1)?.body).toMatchObject({ components: [] });
  });
});
