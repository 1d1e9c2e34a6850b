import { describe, expect, it } from "vitest";
import { createHandleInbound } from "#lib/app/handle-inbound.ts";
import type { ResolveQuestion } from "#lib/app/resolve-question.ts";
import type { ControlAction, Inbound } from "#lib/channels/inbound.ts";
import { normalizeAskUserArgs } from "#lib/questions/index.ts";
import type { QuestionRecord } from "#lib/questions/question-record.ts";
import type { Answers } from "#lib/questions/schema.ts";
import type { QuestionStore, SaveDraftResult } from "#lib/store/question-store.ts";
import { NO_ANSWER_LINKS } from "#lib/web/answer-link.ts";

const { questions } = normalizeAskUserArgs({
  questions: [
    {
      id: "target",
      header: "Target",
      question: "Where?",
      options: [{ label: "Staging" }, { label: "Production" }],
    },
    {
      id: "checks",
      header: "Checks",
      question: "Which checks?",
      multiSelect: true,
      options: [{ label: "Unit" }, { label: "E2E" }, { label: "Lint" }],
    },
    {
      id: "notify",
      header: "Notify",
      question: "Tell the team?",
      options: [{ label: "Yes" }, { label: "No" }],
    },
  ],
});

/**
 * The pipeline over one pending three-question prompt with an in-memory draft: what `saveDraft` stores is
 * what the next `get` reads, and what reached the answer path is recorded.
 */
function stepper(options: { closed?: boolean } = {}) {
  let record: QuestionRecord = {
    id: "ask_3",
    status: "pending",
    questions,
    owner: "telegram:42",
    deliveries: [{ channel: "telegram", chatId: "-100", messageId: "7" }],
    createdAtMs: 0,
    expiresAtMs: Number.MAX_SAFE_INTEGER,
  };
  const drafts: Answers[] = [];
  const answered: Answers[] = [];
  let reads = 0;
  const store = {
    get: async () => {
      reads++;
      return record;
    },
    findByMessage: async () => record.id,
    listPendingPage: async () => {
      const { draft: _draft, step: _step, ...listed } = record;
      return { questions: [listed] };
    },
    claimEvent: async () => true,
    releaseEvent: async () => undefined,
    saveDraft: async (_id: string, draft: Answers, step: number): Promise<SaveDraftResult> => {
      if (options.closed) return { kind: "not_pending", record: { ...record, status: "answered" } };
      drafts.push(draft);
      record = { ...record, draft, step };
      return { kind: "saved", record };
    },
  } as unknown as QuestionStore;
  const resolve = {
    answer: async (_id: string, answers: Answers) => {
      answered.push(answers);
      return { record: { ...record, status: "answered", answers } };
    },
    cancel: async () => ({ record: { ...record, status: "cancelled" } }),
  } as unknown as ResolveQuestion;
  const handle = createHandleInbound({
    store,
    resolve,
    channels: new Map(),
    links: NO_ANSWER_LINKS,
    now: () => 1,
  });
  const tap = (action: ControlAction, actor = "telegram:42") =>
    handle({ platform: "telegram", actor, chatId: "-100", kind: "control", questionId: "ask_3", action });
  const type = (text: string) =>
    handle({
      platform: "telegram",
      actor: "telegram:42",
      chatId: "-100",
      kind: "text",
      text,
      addressed: true,
      replyToMessageId: "7",
    } satisfies Inbound);
  /** A form (an Other… modal, or the whole prompt's form without `step`) submitted by the owner. */
  const submit = (answers: Answers, step?: number) =>
    handle({
      platform: "telegram",
      actor: "telegram:42",
      chatId: "-100",
      kind: "form",
      questionId: "ask_3",
      answers,
      ...(step !== undefined && { step }),
    });
  return { tap, type, submit, handle, drafts, answered, current: () => record, reads: () => reads };
}

describe("handleInbound: the stepper of a prompt with several questions", () => {
  it("each step is kept as the draft and moves on; the last step submits all three through the answer path", async () => {
    const { tap, drafts, answered } = stepper();
    expect(await tap({ type: "option", questionIndex: 0, optionIndex: 1 })).toMatchObject({
      kind: "step",
      questionIndex: 1,
      record: { draft: { target: ["Production"] } },
    });
    expect(await tap({ type: "choose", questionIndex: 1, optionIndexes: [2, 0] })).toMatchObject({
      kind: "step",
      questionIndex: 2,
      record: { draft: { target: ["Production"], checks: ["Unit", "Lint"] } },
    });
    expect(answered).toEqual([]);
    expect((await tap({ type: "option", questionIndex: 2, optionIndex: 0 })).kind).toBe("resolved");
    expect(answered).toEqual([{ target: ["Production"], checks: ["Unit", "Lint"], notify: ["Yes"] }]);
    expect(drafts).toHaveLength(2);
  });

  it("Back shows the step before, its choice kept; answering it again replaces the earlier choice", async () => {
    const { tap, drafts, answered, current } = stepper();
    await tap({ type: "option", questionIndex: 0, optionIndex: 0 });
    expect(current().step).toBe(1);
    expect(await tap({ type: "back", questionIndex: 1 })).toMatchObject({
      kind: "step",
      questionIndex: 0,
      record: { draft: { target: ["Staging"] }, step: 0 },
    });
    expect(drafts).toEqual([{ target: ["Staging"] }, { target: ["Staging"] }]);
    expect(await tap({ type: "option", questionIndex: 0, optionIndex: 1 })).toMatchObject({
      kind: "step",
      questionIndex: 1,
      record: { draft: { target: ["Production"] } },
    });
    await tap({ type: "choose", questionIndex: 1, optionIndexes: [1] });
    await tap({ type: "option", questionIndex: 2, optionIndex: 1 });
    expect(answered).toEqual([{ target: ["Production"], checks: ["E2E"], notify: ["No"] }]);
  });

  it("Back on the first step, or on a step that does not exist, is refused", async () => {
    const { tap } = stepper();
    expect((await tap({ type: "back", questionIndex: 0 })).kind).toBe("invalid");
    expect((await tap({ type: "back", questionIndex: 7 })).kind).toBe("invalid");
  });

  it("the last step with an earlier one still open goes to that one instead of submitting", async () => {
    const { tap, answered } = stepper();
    await tap({ type: "option", questionIndex: 0, optionIndex: 0 });
    expect(await tap({ type: "option", questionIndex: 2, optionIndex: 0 })).toMatchObject({
      kind: "step",
      questionIndex: 1,
    });
    expect(answered).toEqual([]);
  });

  it("Done with nothing ticked keeps nothing and says the step still needs a choice", async () => {
    const { tap, drafts } = stepper();
    const outcome = await tap({ type: "choose", questionIndex: 1, optionIndexes: [] });
    expect(outcome).toMatchObject({ kind: "incomplete", missing: [{ id: "checks" }] });
    expect(outcome.kind === "incomplete" && outcome.recorded).toEqual({});
    expect(drafts).toEqual([]);
  });

  it("someone else's tap on a step is not theirs and keeps nothing", async () => {
    const { tap, drafts } = stepper();
    expect((await tap({ type: "option", questionIndex: 0, optionIndex: 0 }, "telegram:7")).kind).toBe(
      "not_owner",
    );
    expect(drafts).toEqual([]);
  });

  it("a step on a question that ended meanwhile is told it ended", async () => {
    const { tap, answered } = stepper({ closed: true });
    expect((await tap({ type: "option", questionIndex: 0, optionIndex: 0 })).kind).toBe("ended");
    expect(answered).toEqual([]);
  });

  it("an Other… form on a step keeps its text and moves to the next step", async () => {
    const { submit } = stepper();
    const outcome = await submit({ target: ["Canary"] }, 0);
    expect(outcome).toMatchObject({
      kind: "step",
      questionIndex: 1,
      record: { draft: { target: ["Canary"] } },
    });
  });

  it("a step submitted with nothing in it (a blank Other…) answers nothing and stays on that step", async () => {
    const { submit, drafts } = stepper();
    const outcome = await submit({}, 0);
    expect(outcome).toMatchObject({ kind: "incomplete", missing: [{ id: "target" }] });
    expect(outcome.kind === "incomplete" && outcome.recorded).toEqual({});
    expect(drafts).toEqual([]);
  });

  it("a toggle that names no multi-select option is refused", async () => {
    const { tap } = stepper();
    expect((await tap({ type: "toggle", questionIndex: 0, optionIndex: 0 })).kind).toBe("invalid");
    expect((await tap({ type: "toggle", questionIndex: 1, optionIndex: 9 })).kind).toBe("invalid");
    expect((await tap({ type: "toggle", questionIndex: 1, optionIndex: 2 })).kind).toBe("toggled");
  });

  it("a form of the whole prompt does not take blanks from a draft it did not show", async () => {
    const { tap, submit, answered } = stepper();
    await tap({ type: "option", questionIndex: 0, optionIndex: 0 });
    await tap({ type: "choose", questionIndex: 1, optionIndexes: [0] });
    const outcome = await submit({ notify: ["Yes"] });
    expect(outcome).toMatchObject({ kind: "incomplete", missing: [{ id: "target" }, { id: "checks" }] });
    // What this form gave is echoed; the draft it did not show is not.
    expect(outcome.kind === "incomplete" && outcome.recorded).toEqual({ notify: ["Yes"] });
    expect(answered).toEqual([]);
  });

  it("a blank value on a step is invalid and keeps nothing", async () => {
    const { submit, drafts } = stepper();
    const outcome = await submit({ target: ["  "] }, 0);
    expect(outcome.kind).toBe("invalid");
    expect(drafts).toEqual([]);
  });
});

describe("handleInbound: typed lines during the steps", () => {
  it("after Back, a plain line answers the step on screen, not the first question without a value", async () => {
    const { tap, type, answered, current } = stepper();
    await tap({ type: "option", questionIndex: 0, optionIndex: 0 });
    await tap({ type: "choose", questionIndex: 1, optionIndexes: [0] });
    await tap({ type: "back", questionIndex: 2 });
    await tap({ type: "back", questionIndex: 1 });
    // "Target" is on screen again: "2" is its Production, not Notify's "No"; only that line's is recorded.
    expect(await type("2")).toEqual({
      kind: "incomplete",
      record: expect.anything(),
      recorded: { target: ["Production"] },
      missing: [expect.objectContaining({ id: "notify" })],
    });
    expect(current()).toMatchObject({ draft: { target: ["Production"], checks: ["Unit"] }, step: 2 });
    // The next plain line answers what "Still needed" named.
    expect((await type("1")).kind).toBe("resolved");
    expect(answered).toEqual([{ target: ["Production"], checks: ["Unit"], notify: ["Yes"] }]);
  });

  it("a line answering every question resolves at once, whatever step is shown", async () => {
    const { tap, type, answered } = stepper();
    await tap({ type: "option", questionIndex: 0, optionIndex: 0 });
    expect((await type("target: 2\nchecks: 1, 3\nnotify: 1")).kind).toBe("resolved");
    expect(answered).toEqual([{ target: ["Production"], checks: ["Unit", "Lint"], notify: ["Yes"] }]);
  });

  it("a partial line is kept with the steps' draft, and the next line only gives what is missing", async () => {
    const { tap, type, answered, current, reads } = stepper();
    await tap({ type: "option", questionIndex: 0, optionIndex: 1 });
    // A reply to the question's message reads the record once, whole (the draft with it).
    const before = reads();
    const partial = await type("checks: 2");
    expect(partial).toMatchObject({ kind: "incomplete", missing: [{ id: "notify" }] });
    // This line's answer is echoed, not the step's kept before it.
    expect(partial.kind === "incomplete" && partial.recorded).toEqual({ checks: ["E2E"] });
    expect(reads() - before).toBe(1);
    expect(current().draft).toEqual({ target: ["Production"], checks: ["E2E"] });
    expect((await type("2")).kind).toBe("resolved");
    expect(answered).toEqual([{ target: ["Production"], checks: ["E2E"], notify: ["No"] }]);
  });

  it("typed text routed through the pending listing reads the draft the listing does not carry", async () => {
    const { tap, handle, answered } = stepper();
    await tap({ type: "option", questionIndex: 0, optionIndex: 0 });
    await tap({ type: "choose", questionIndex: 1, optionIndexes: [0] });
    const outcome = await handle({
      platform: "telegram",
      actor: "telegram:42",
      chatId: "-100",
      kind: "text",
      text: "yes",
      addressed: true,
    });
    expect(outcome.kind).toBe("resolved");
    expect(answered).toEqual([{ target: ["Staging"], checks: ["Unit"], notify: ["Yes"] }]);
  });
});
