import { describe, expect, it } from "vitest";
import { interpretTypedReply } from "#lib/app/typed-reply.ts";
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
    expect(reply.missing.map((q) => q.id)).toEqual(["deploy_target"]);
  });

  it("passes skip, /cancel and empty text through", () => {
    expect(interpretTypedReply(questions, " SKIP ")).toEqual({ kind: "skip" });
    expect(interpretTypedReply(questions, "/Cancel")).toEqual({ kind: "cancel" });
    expect(interpretTypedReply(questions, "  ")).toEqual({ kind: "none" });
  });
});
