/**
 * Several people decide (docs/api.md, "Several people decide"): who may answer, votes kept on the record,
 * the quorum counted with conditional writes on the local stack's DynamoDB.
 */
import { StartExecutionCommand } from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerPath, signAnswerLink } from "#lib/web/answer-link.ts";
import { type FakePlatform, startFakePlatform } from "./support/fake-platform.ts";
import { answerThroughLink } from "./support/link-answer.ts";
import { allItems, replyOf, startTestStack, type TestStack, waitFor } from "./support/test-stack.ts";

/** The answer page's key here, so a test can make a person answerer's own link as the stack does. */
const LINK_SECRET = "quorum-test-link-secret-6Zq1t0mWc8yHf4kP2sXv";

/**
 * Each person's own `answer` key, so a test can have several keys vote: a key is one voter, whoever its
 * `resolvedBy` names, so one key could not cast the votes a quorum needs.
 */
const PEOPLE = ["alice", "bob", "carol", "dave", ...Array.from({ length: 9 }, (_, i) => `member${i}`)];
const keyOf = (person: string) => `${person.replace(":", "-")}-key-0123456789abcdef`;
const API_KEYS = PEOPLE.map((name) => `web-${name}:answer:${keyOf(`web:${name}`)}`).join(",");

let stack: TestStack;
/** Telegram, for a group whose chats can be shared; e-mail, a channel whose chats cannot. */
let telegram: FakePlatform;
let messageIds = 100;
beforeAll(async () => {
  telegram = await startFakePlatform((call) =>
    call.method === "sendMessage"
      ? { body: { ok: true, result: { message_id: ++messageIds, chat: { id: call.body.chat_id } } } }
      : { body: { ok: true, result: true } },
  );
  stack = await startTestStack({
    HANDRAISE_LINK_SECRET: LINK_SECRET,
    TELEGRAM_BOT_TOKEN: "123456:TEST-token",
    TELEGRAM_WEBHOOK_SECRET: "quorum-test-webhook-secret",
    TELEGRAM_API_BASE: telegram.url,
    HANDRAISE_EMAIL_FROM: "handraise@example.com",
    HANDRAISE_API_KEYS: API_KEYS,
  });
});
afterAll(async () => {
  await stack?.stop();
  await telegram?.stop();
});

let counter = 0;
const unique = (prefix: string) => `${prefix}-${Date.now()}-${++counter}`;

function askBody(overrides: Record<string, unknown> = {}) {
  return {
    id: unique("quorum"),
    questions: [
      {
        id: "deploy_target",
        header: "Deploy to",
        question: "Where should it go?",
        options: [{ label: "Staging" }, { label: "Production" }],
      },
    ],
    owner: "web:alice",
    ...overrides,
  };
}

describe("answerers and quorum on POST /questions", () => {
  it("are kept on the record: who may answer from when, the quorum, and no votes yet", async () => {
    const body = askBody({
      answerers: [{ owner: "web:bob" }, { owner: "web:carol", deliverTo: [] }],
      quorum: 2,
    });
    const created = await stack.api("POST", "/questions", body);
    expect(created.status).toBe(201);
    const { question } = (await stack.api("GET", `/questions/${body.id}`)).body;
    expect(question).toMatchObject({
      status: "pending",
      quorum: 2,
      votes: [],
      answerers: [
        { owner: "web:alice", fromMs: question.createdAtMs },
        { owner: "web:bob", fromMs: question.createdAtMs },
        { owner: "web:carol", fromMs: question.createdAtMs },
      ],
    });
  });

  it("quorum 1 (the default) keeps no votes and shows no quorum", async () => {
    const body = askBody({ answerers: [{ owner: "web:bob" }] });
    expect((await stack.api("POST", "/questions", body)).status).toBe(201);
    const { question } = (await stack.api("GET", `/questions/${body.id}`)).body;
    expect(question.quorum).toBeUndefined();
    expect(question.votes).toBeUndefined();
    expect(question.answerers).toHaveLength(2);
  });

  it.each([
    [
      "an owner listed twice",
      { answerers: [{ owner: "web:bob" }, { owner: "web:bob" }] },
      "answerers.1.owner",
      "answerers lists web:bob twice: list each person once.",
    ],
    [
      "the owner listed again",
      { answerers: [{ owner: "web:alice" }] },
      "answerers.0.owner",
      "web:alice is the question's owner, who may answer already: list only other people in answerers.",
    ],
    [
      "a quorum above the number of people",
      { answerers: [{ owner: "web:bob" }], quorum: 3 },
      "quorum",
      "quorum must be at most the number of people who may answer (2) when no group is among the answerers.",
    ],
    [
      "a quorum the requester would have to join",
      { answerers: [{ owner: "web:bob" }], quorum: 2, requestedBy: "web:bob" },
      "quorum",
      "quorum must be at most the number of people who may answer (1, not counting the person it is asked for) when no group is among the answerers.",
    ],
    ["a quorum of 0", { quorum: 0 }, "quorum", "quorum must be a whole number from 1 to 10"],
    ["a quorum of 11", { quorum: 11 }, "quorum", "quorum must be a whole number from 1 to 10"],
    ["a quorum of 1.5", { quorum: 1.5 }, "quorum", "quorum must be a whole number from 1 to 10"],
    [
      "an entry that is neither a person nor a group",
      { answerers: [{}] },
      "answerers.0",
      "each item of answerers must be a person {owner, deliverTo?} or a group {group: {channel, chatId}}",
    ],
    [
      "an entry that is both",
      { answerers: [{ owner: "web:bob", group: { channel: "telegram", chatId: "-1" } }] },
      "answerers.0",
      "each item of answerers must be a person {owner, deliverTo?} or a group {group: {channel, chatId}}",
    ],
    [
      "an owner that is not platform-qualified",
      { answerers: [{ owner: "bob" }] },
      "answerers.0.owner",
      "owner must be platform-qualified",
    ],
    [
      "a group on a channel that is not enabled",
      { answerers: [{ group: { channel: "slack", chatId: "C100" } }] },
      "answerers.0.group.channel",
      'The channel "slack" is not enabled',
    ],
    [
      "a group on a channel without group chats (e-mail: one person's address)",
      { answerers: [{ group: { channel: "email", chatId: "team@example.com" } }], quorum: 2 },
      "answerers.0.group.channel",
      'The channel "email" has no group chats',
    ],
    [
      "a group on the local console (one person's terminal)",
      { answerers: [{ owner: "web:bob" }, { group: { channel: "console", chatId: "team" } }] },
      "answerers.1.group.channel",
      'The channel "console" has no group chats',
    ],
    [
      "a person's target on a channel that is not enabled",
      { answerers: [{ owner: "web:bob", deliverTo: [{ channel: "slack", chatId: "C1" }] }] },
      "answerers.0.deliverTo.0.channel",
      'The channel "slack" is not enabled',
    ],
    [
      "ten answerers",
      { answerers: Array.from({ length: 10 }, (_, i) => ({ owner: `web:p${i}` })) },
      "answerers",
      "answerers must list at most 9 answerers",
    ],
    [
      "an unknown field in an entry",
      { answerers: [{ owner: "web:bob", role: "lead" }] },
      "answerers.0.role",
      "role is not a field of",
    ],
  ])("%s → 400 INVALID_ARGUMENT at its path, nothing stored", async (_name, overrides, path, message) => {
    const body = askBody(overrides);
    const response = await stack.api("POST", "/questions", body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("INVALID_ARGUMENT");
    const issue = response.body.error.issues.find((i: { path: string }) => i.path === path);
    expect(issue?.message).toContain(message);
    expect((await allItems(stack)).some((item) => item.id === body.id)).toBe(false);
  });
});

/** A question for alice, bob and carol, decided by two agreeing answers. */
async function twoOfThree(overrides: Record<string, unknown> = {}) {
  const body = askBody({
    answerers: [{ owner: "web:bob" }, { owner: "web:carol" }],
    quorum: 2,
    ...overrides,
  });
  expect((await stack.api("POST", "/questions", body)).status).toBe(201);
  return body.id as string;
}

/**
 * An answer over the API with `person`'s own key, naming them: the key's vote, recorded as `api:<person>`.
 * `key` "default": the test stack's admin key instead.
 */
const vote = (id: string, person: string, label: string, key: "own" | "default" = "own") =>
  stack.api(
    "POST",
    `/questions/${id}/answer`,
    { answers: { deploy_target: [label] }, resolvedBy: person },
    key === "own" ? { auth: `Bearer ${keyOf(person)}` } : {},
  );

/** `person`'s own link to question `id`, as a chat hands it to them. */
async function linkOf(id: string, person: string): Promise<string> {
  const { question } = (await stack.api("GET", `/questions/${id}`)).body;
  const sig = signAnswerLink(LINK_SECRET, { id, answerer: person, expiresAtMs: question.expiresAtMs });
  return `${stack.httpUrl}${answerPath(question, person, sig)}`;
}

/** Skips on the page as `person`, through their own link; the question as it then reads. */
async function skipAs(id: string, person: string) {
  const link = await linkOf(id, person);
  const sig = new URL(link).searchParams.get("sig") ?? "";
  const skipped = await fetch(link, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ sig, action: "skip" }),
    redirect: "manual",
  });
  expect(skipped.status).toBe(303);
  return (await stack.api("GET", `/questions/${id}`)).body.question;
}

/** `person`'s own vote through their link: option `index` of the one question. */
async function voteInPerson(id: string, person: string, index: number) {
  const voted = await answerThroughLink(await linkOf(id, person), { deploy_target: String(index) });
  expect(voted.status).toBe(303);
}

describe("quorum 2 of 3 over the question API", () => {
  it("pending after one vote (202), answered after two agreeing ones, the votes on the record", async () => {
    const id = await twoOfThree();
    const first = await vote(id, "web:bob", "production", "default");
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({
      status: "pending",
      waitingFor: 1,
      votes: [{ by: "api:web:bob", answers: { deploy_target: ["Production"] }, key: "default" }],
    });
    expect((await stack.api("GET", `/questions/${id}`)).body.question.status).toBe("pending");

    // The same key naming another person is refused: one key is one voter, and cannot close it alone.
    const sameKey = await vote(id, "web:carol", "Production", "default");
    expect(sameKey.status).toBe(409);
    expect(sameKey.body.error.code).toBe("ALREADY_ANSWERED");
    const waiting = (await stack.api("GET", `/questions/${id}`)).body.question;
    expect(waiting.status).toBe("pending");
    expect(waiting.votes).toHaveLength(1);

    // Own text and labels are compared trimmed and case aside: " PRODUCTION " agrees with "Production".
    const second = await vote(id, "web:carol", " PRODUCTION ");
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ status: "answered", answers: { deploy_target: ["Production"] } });
    const { question } = (await stack.api("GET", `/questions/${id}`)).body;
    expect(question).toMatchObject({
      status: "answered",
      answers: { deploy_target: ["Production"] },
      resolvedBy: "api:web:carol",
      resolvedByKey: "web-carol",
    });
    expect(question.votes.map((v: { by: string }) => v.by)).toEqual(["api:web:bob", "api:web:carol"]);
    expect(question.votes.map((v: { key: string }) => v.key)).toEqual(["default", "web-carol"]);
  });

  it("a second answer from the same key → 409 ALREADY_ANSWERED, nothing changes", async () => {
    const id = await twoOfThree();
    expect((await vote(id, "web:bob", "Staging")).status).toBe(202);
    const again = await vote(id, "web:bob", "Production");
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("ALREADY_ANSWERED");
    const { question } = (await stack.api("GET", `/questions/${id}`)).body;
    expect(question.status).toBe("pending");
    expect(question.votes).toHaveLength(1);
  });

  it("no_quorum when a split leaves no answer able to reach two, with the votes in the result", async () => {
    const id = await twoOfThree();
    // A key's vote is no person's: only people who may still vote keep an answer able to reach two.
    expect((await vote(id, "web:dave", "Tomorrow", "default")).status).toBe(202);
    await voteInPerson(id, "web:alice", 0);
    // One each: carol could still agree with either.
    await voteInPerson(id, "web:bob", 1);
    expect((await skipAs(id, "web:carol")).status).toBe("no_quorum");
    const waited = await stack.api("GET", `/questions/${id}/wait?timeoutMs=0`);
    expect(waited.body).toMatchObject({ status: "no_quorum" });
    expect(waited.body.votes).toHaveLength(4);
  });

  it("a key still cancels the whole question after votes", async () => {
    const id = await twoOfThree();
    expect((await vote(id, "web:alice", "Staging")).status).toBe(202);
    expect((await vote(id, "web:bob", "Production")).status).toBe(202);
    const cancelled = await stack.api("POST", `/questions/${id}/cancel`, { reason: "cancelled" });
    expect(cancelled.body).toEqual({ status: "cancelled", reason: "cancelled" });
  });

  it("the person it is asked for is refused, even when listed", async () => {
    const id = await twoOfThree({
      requestedBy: "web:carol",
      answerers: [{ owner: "web:bob" }, { owner: "web:carol" }],
    });
    const refused = await vote(id, "web:carol", "Staging");
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("REQUESTER_CANNOT_ANSWER");
    expect((await stack.api("GET", `/questions/${id}`)).body.question.votes).toEqual([]);
  });

  it("quorum 1 with several people: the first answer closes, naming who gave it", async () => {
    const body = askBody({ answerers: [{ owner: "web:bob" }, { owner: "web:carol" }] });
    await stack.api("POST", "/questions", body);
    const first = await vote(body.id, "web:bob", "Staging");
    expect(first.body).toEqual({ status: "answered", answers: { deploy_target: ["Staging"] } });
    expect((await stack.api("GET", `/questions/${body.id}`)).body.question.resolvedBy).toBe("api:web:bob");
    expect((await vote(body.id, "web:carol", "Staging")).body.error.code).toBe("ALREADY_RESOLVED");
  });
});

describe("an API answer on a question with a quorum is its key's vote", () => {
  /** The question's votes and status, to show a refusal changed nothing. */
  const stateOf = async (id: string) => {
    const { question } = (await stack.api("GET", `/questions/${id}`)).body;
    return { status: question.status, votes: question.votes };
  };

  it("without resolvedBy it is recorded as api, with the key's name", async () => {
    const id = await twoOfThree();
    const voted = await stack.api("POST", `/questions/${id}/answer`, {
      answers: { deploy_target: ["Staging"] },
    });
    expect(voted.status).toBe(202);
    expect(await stateOf(id)).toMatchObject({ status: "pending", votes: [{ by: "api", key: "default" }] });
  });

  it("one key cannot make up voters: its second vote, naming anyone, → 409 ALREADY_ANSWERED, nothing changes", async () => {
    const id = await twoOfThree({
      answerers: [{ owner: "web:bob" }, { group: { channel: "telegram", chatId: "-100" } }],
    });
    expect((await vote(id, "web:bob", "Staging", "default")).status).toBe(202);
    // Neither a made-up name, nor a listed person, nor a member of the group counts as a second voter.
    for (const madeUp of ["web:mallory", "web:alice", "api:web:bob", "telegram:77", "WEB:BOB"]) {
      const refused = await vote(id, madeUp, "Staging", "default");
      expect(refused.status, madeUp).toBe(409);
      expect(refused.body.error.code).toBe("ALREADY_ANSWERED");
    }
    // Never a bare identity: an API vote cannot read like one a person cast in a chat or on the page.
    expect(await stateOf(id)).toEqual({
      status: "pending",
      votes: [expect.objectContaining({ by: "api:web:bob", key: "default" })],
    });
  });

  it("a person's own vote and a key's naming them are two voters, each once", async () => {
    const id = await twoOfThree();
    const { question } = (await stack.api("GET", `/questions/${id}`)).body;
    const sig = signAnswerLink(LINK_SECRET, { id, answerer: "web:bob", expiresAtMs: question.expiresAtMs });
    const bob = `${stack.httpUrl}${answerPath(question, "web:bob", sig)}`;
    expect((await answerThroughLink(bob, { deploy_target: "0" })).status).toBe(303);
    expect((await vote(id, "web:bob", "Production", "default")).status).toBe(202);
    expect((await vote(id, "web:bob", "Staging", "default")).status).toBe(409);
    expect((await answerThroughLink(bob, { deploy_target: "1" })).status).toBe(409);
    const { votes } = await stateOf(id);
    expect(votes.map((v: { by: string; key?: string }) => [v.by, v.key])).toEqual([
      ["web:bob", undefined],
      ["api:web:bob", "default"],
    ]);
  });
});

describe("simultaneous votes on the local stack's DynamoDB", () => {
  it("ten keys voting twice each, all at once: each counted once, exactly one closes", async () => {
    // The owner and nine listed people, all ten needed: the most people and the highest quorum allowed.
    const people = ["web:alice", ...Array.from({ length: 9 }, (_, i) => `web:member${i}`)];
    const body = askBody({ answerers: people.slice(1).map((owner) => ({ owner })), quorum: 10 });
    expect((await stack.api("POST", "/questions", body)).status).toBe(201);
    const replies = await Promise.all(
      [...people, ...people].map((person) => vote(body.id, person, "Production")),
    );
    const statuses = replies.map((reply) => reply.status);
    const closing = replies.filter((reply) => reply.status === 200);
    expect(closing).toHaveLength(1);
    expect(statuses.filter((s) => s === 202)).toHaveLength(9);
    expect(statuses.filter((s) => s === 409)).toHaveLength(10);
    const { question } = (await stack.api("GET", `/questions/${body.id}`)).body;
    expect(question.status).toBe("answered");
    const voters = question.votes.map((v: { by: string }) => v.by);
    expect(voters).toHaveLength(10);
    expect(new Set(voters)).toEqual(new Set(people.map((person) => `api:${person}`)));
    expect(question.resolvedBy).toBe(voters.at(-1));
  });
});

describe("a run of the agent state machine", () => {
  it("receives no_quorum like another no-answer reason", async () => {
    const sessionKey = unique("quorum-run");
    const { executionArn } = await stack.sfn.send(
      new StartExecutionCommand({
        stateMachineArn: stack.stateMachineArns.agent,
        input: JSON.stringify({
          sessionKey,
          owner: "web:alice",
          deliverTo: [],
          answerers: [{ owner: "web:bob" }],
          quorum: 2,
          prompt: "test",
          model: {
            provider: "scripted",
            steps: [
              { toolCalls: [{ id: "c1", name: "ask_user", arguments: { questions: askBody().questions } }] },
              { reply: "{{c1.status}}|{{c1.reason}}" },
            ],
          },
        }),
      }),
    );
    if (!executionArn) throw new Error("no execution ARN");
    const id = await waitFor(
      async () => (await stack.api("GET", `/questions?sessionKey=${sessionKey}`)).body.questions[0]?.id,
      { what: "the run's question" },
    );
    const { question } = (await stack.api("GET", `/questions/${id}`)).body;
    expect(question).toMatchObject({
      quorum: 2,
      votes: [],
      answerers: [{ owner: "web:alice" }, { owner: "web:bob" }],
    });
    await voteInPerson(id, "web:alice", 0);
    await voteInPerson(id, "web:bob", 1);
    expect((await stack.api("GET", `/questions/${id}`)).body.question.status).toBe("no_quorum");
    expect(await replyOf(stack, executionArn)).toBe("no_answer|no_quorum");
  });
});

describe("events", () => {
  it("Question Resolved of a no_quorum question carries its status and votes", async () => {
    const id = await twoOfThree();
    await voteInPerson(id, "web:alice", 0);
    await voteInPerson(id, "web:bob", 1);
    expect((await skipAs(id, "web:carol")).status).toBe("no_quorum");
    await stack.streamsDrained();
    const resolved = stack.events.filter(
      (event) => event.detail.id === id && event["detail-type"] === "Question Resolved",
    );
    expect(resolved).toHaveLength(1);
    expect(resolved[0]?.detail).toMatchObject({ status: "no_quorum", quorum: 2 });
    const detail = resolved[0]?.detail as { votes?: { by: string }[] } | undefined;
    const votes = detail?.votes ?? [];
    expect(votes.map((v) => v.by)).toEqual(["web:alice", "web:bob", "web:carol"]);
  });
});

describe("the answer page with a quorum", () => {
  it("a person's vote through their link: recorded, shown as waiting, refused a second time", async () => {
    const id = await twoOfThree();
    const bob = await linkOf(id, "web:bob");
    expect((await answerThroughLink(bob, { deploy_target: "1" })).status).toBe(303);
    const shown = await fetch(bob);
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain("Your answer is recorded — waiting for 1 more.");
    const again = await answerThroughLink(bob, { deploy_target: "0" });
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("You have already answered.");

    // Carol, who has not answered, is shown how far it is.
    const carol = await linkOf(id, "web:carol");
    expect(await (await fetch(carol)).text()).toContain("1 of 2 answers so far");

    // Carol agrees through her own link: two of three, answered, named as the last voter.
    expect((await answerThroughLink(carol, { deploy_target: "1" })).status).toBe(303);
    const { question } = (await stack.api("GET", `/questions/${id}`)).body;
    expect(question).toMatchObject({
      status: "answered",
      answers: { deploy_target: ["Production"] },
      resolvedBy: "web:carol",
    });
    expect(question.votes.map((v: { by: string }) => v.by)).toEqual(["web:bob", "web:carol"]);
  });

  it("Skip on the page is the person's abstention", async () => {
    const question = await skipAs(await twoOfThree(), "web:bob");
    expect(question.status).toBe("pending");
    expect(question.votes).toMatchObject([{ by: "web:bob", answers: {}, skipped: true }]);
  });

  it("with quorum 1, another answerer's Skip is their abstention; the question waits for the others", async () => {
    const body = askBody({ answerers: [{ owner: "web:bob" }, { owner: "web:carol" }] });
    expect((await stack.api("POST", "/questions", body)).status).toBe(201);
    const afterBob = await skipAs(body.id, "web:bob");
    expect(afterBob.status).toBe("pending");
    expect(afterBob.votes).toMatchObject([{ by: "web:bob", answers: {}, skipped: true }]);
    // The next answer still closes it at once.
    const carol = await vote(body.id, "web:carol", "Production");
    expect(carol.status).toBe(200);
    expect((await stack.api("GET", `/questions/${body.id}`)).body.question).toMatchObject({
      status: "answered",
      resolvedBy: "api:web:carol",
    });
  });

  it("with quorum 1, the owner's Skip still ends the question as skipped", async () => {
    const body = askBody({ answerers: [{ owner: "web:bob" }] });
    expect((await stack.api("POST", "/questions", body)).status).toBe(201);
    expect(await skipAs(body.id, "web:alice")).toMatchObject({ status: "cancelled", reason: "skipped" });
  });

  it("with quorum 1 and no group, no_quorum once every person who may answer has abstained", async () => {
    // Asked for alice: she never counts, so bob and carol are everyone who may answer.
    const body = askBody({
      answerers: [{ owner: "web:bob" }, { owner: "web:carol" }],
      requestedBy: "web:alice",
    });
    expect((await stack.api("POST", "/questions", body)).status).toBe(201);
    expect((await skipAs(body.id, "web:bob")).status).toBe("pending");
    expect(await skipAs(body.id, "web:carol")).toMatchObject({ status: "no_quorum" });
  });
});
