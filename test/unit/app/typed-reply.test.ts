import { describe, expect, it } from "vitest";
import { interpretTypedReply, type TypedReply } from "#lib/app/typed-reply.ts";
import { invalidText } from "#lib/channels/replies.ts";
import { normalizeAskUserArgs } from "#lib/questions/index.ts";

const { questions } = normalizeAskUserArgs({
  questions: [
    {
      id: "deploy_target",
      header: "Deploy to",
      question: "Where?",
      options: [{ label: "Staging" }, { label: "Production" }],
    },
    {
      id: "checks",
      header: "Checks",
      question: "Which?",
      multiSelect: true,
      options: [{ label: "Unit" }, { label: "E2E" }],
    },
  ],
});

describe("interpretTypedReply", () => {
  it("a reply that answers every question is an answer, canonicalized", () => {
    expect(interpretTypedReply(questions, "2\n1, e2e")).toEqual({
      kind: "answer",
      answers: { deploy_target: ["Production"], checks: ["Unit", "E2E"] },
    });
  });

  it("a reply that answers some questions is incomplete and names the missing ones", () => {
    const reply = interpretTypedReply(questions, "checks: 2");
    expect(reply.kind).toBe("incomplete");
    if (reply.kind !== "incomplete") return;
    expect(reply.answered).toEqual({ checks: ["E2E"] });
    expect(reply.given).toEqual({ checks: ["E2E"] });
    expect(reply.missing.map((q) => q.id)).toEqual(["deploy_target"]);
  });

  it("passes skip, /cancel and empty text through", () => {
    expect(interpretTypedReply(questions, " SKIP ")).toEqual({ kind: "skip" });
    expect(interpretTypedReply(questions, "/Cancel")).toEqual({ kind: "cancel" });
    expect(interpretTypedReply(questions, "  ")).toEqual({ kind: "none" });
  });

  it("answers across messages: the earlier answers and this message's together", () => {
    const reply = interpretTypedReply(questions, "2", { checks: ["E2E"] });
    expect(reply).toEqual({ kind: "answer", answers: { deploy_target: ["Production"], checks: ["E2E"] } });
  });

  it("an incomplete reply across messages carries every answer so far", () => {
    const note = { id: "note", header: "Note", question: "Note?", options: twoOptions };
    const three = [...questions, ...normalizeAskUserArgs({ questions: [note] }).questions];
    const reply = interpretTypedReply(three, "2", { checks: ["Unit"] });
    expect(reply).toEqual({
      kind: "incomplete",
      answered: { deploy_target: ["Production"], checks: ["Unit"] },
      given: { deploy_target: ["Production"] },
      missing: [three[2]],
    });
  });

  it("skip and /cancel work after answers of earlier messages", () => {
    expect(interpretTypedReply(questions, "/cancel", { deploy_target: ["Staging"] })).toEqual({
      kind: "cancel",
    });
    expect(interpretTypedReply(questions, "skip", { deploy_target: ["Staging"] })).toEqual({ kind: "skip" });
  });
});

const twoOptions = [{ label: "Routine" }, { label: "Urgent" }];

/** A refusal as the person reads it: its reason put into words by the reply catalog. */
const told = (reply: TypedReply) =>
  reply.kind === "invalid" ? { kind: "invalid", message: invalidText(reply.reason) } : reply;

describe("interpretTypedReply: a number that names no option", () => {
  const [deployTarget] = questions;
  const single = deployTarget ? [deployTarget] : [];

  it.each(["3", "0", "07"])("one question: %j is refused, saying which numbers there are", (typed) => {
    expect(told(interpretTypedReply(single, typed))).toEqual({
      kind: "invalid",
      message: `There is no option ${typed} — type a number 1–2 or your own answer.`,
    });
  });

  it("says which question and what was typed as data, never as a sentence", () => {
    const [, checks] = questions;
    expect(interpretTypedReply(questions, "checks: 1, 7")).toEqual({
      kind: "invalid",
      reason: { kind: "no_such_option", question: checks, typed: "7", several: true },
    });
  });

  it("several questions: a bare number and a keyed number are refused alike, naming the question", () => {
    const message = "Deploy to [deploy_target]: there is no option 3 — type a number 1–2 or your own answer.";
    expect(told(interpretTypedReply(questions, "3"))).toEqual({
      kind: "invalid",
      message,
    });
    expect(told(interpretTypedReply(questions, "deploy_target: 3"))).toEqual({
      kind: "invalid",
      message,
    });
    expect(told(interpretTypedReply(questions, "1: 3\nchecks: 1"))).toEqual({
      kind: "invalid",
      message,
    });
  });

  it("refuses the number in a multi-select list, and in a later message", () => {
    expect(told(interpretTypedReply(questions, "checks: 1, 7"))).toEqual({
      kind: "invalid",
      message: "Checks [checks]: there is no option 7 — type a number 1–2 or your own answer.",
    });
    expect(told(interpretTypedReply(questions, "7", { deploy_target: ["Staging"] }))).toEqual({
      kind: "invalid",
      message: "Checks [checks]: there is no option 7 — type a number 1–2 or your own answer.",
    });
  });

  it("a number that is an option's label is that option; other numbers in text are free text", () => {
    const { questions: sizes } = normalizeAskUserArgs({
      questions: [
        { id: "size", header: "Size", question: "How many?", options: [{ label: "10" }, { label: "20" }] },
      ],
    });
    expect(interpretTypedReply(sizes, "20")).toEqual({ kind: "answer", answers: { size: ["20"] } });
    expect(interpretTypedReply(sizes, "1")).toEqual({ kind: "answer", answers: { size: ["10"] } });
    expect(interpretTypedReply(sizes, "5 replicas")).toEqual({
      kind: "answer",
      answers: { size: ["5 replicas"] },
    });
    expect(interpretTypedReply(sizes, "+3")).toEqual({ kind: "answer", answers: { size: ["+3"] } });
  });
});

describe("interpretTypedReply: answers the contract refuses", () => {
  it("a typed answer that is too long is invalid with the reason, never thrown", () => {
    const reply = interpretTypedReply(questions, `deploy_target: ${"x".repeat(5000)}\nchecks: 1`);
    expect(reply.kind).toBe("invalid");
    if (reply.kind !== "invalid") return;
    expect(reply.reason).toMatchObject({
      kind: "answer_refused",
      problem: "too_long",
      questionId: "deploy_target",
    });
    expect(invalidText(reply.reason)).toContain("longer than 4000 characters");
  });
});
