/**
 * Several people decide (docs/api.md, "Several people decide"): who may answer, votes kept on the record,
 * the quorum counted with conditional writes on the local stack's DynamoDB.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allItems, startTestStack, type TestStack } from "./support/test-stack.ts";

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.stop();
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
      { answerers: [{ group: { channel: "telegram", chatId: "-100" } }] },
      "answerers.0.group.channel",
      'The channel "telegram" is not enabled',
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
