/**
 * questionIdFor: `ask_` + 32 lowercase hex of a hash
 * of (runId, or else agentId + sessionKey) and toolCallId, deterministic, no field-shifting collisions.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type QuestionIdInput, questionIdFor } from "#lib/questions/index.ts";

const RUN_ID = "arn:aws:states:eu-west-1:123456789012:execution:agent:run-1";

describe("questionIdFor", () => {
  it.each([
    ["a runId", { runId: RUN_ID, toolCallId: "call_1" }],
    ["a sessionKey", { sessionKey: "telegram:42", toolCallId: "call_1" }],
    ["an agentId and a sessionKey", { agentId: "ops", sessionKey: "telegram:42", toolCallId: "call_1" }],
  ])("returns ask_ + 32 lowercase hex for %s", (_name, input: QuestionIdInput) => {
    const id = questionIdFor(input);

    expect(id).toMatch(/^ask_[0-9a-f]{32}$/);
  });

  it("is deterministic: the same input gives the same id (a retried registration is idempotent)", () => {
    const input = { runId: RUN_ID, toolCallId: "call_1" };

    const ids = [questionIdFor(input), questionIdFor({ ...input })];

    expect(ids[0]).toBe(ids[1]);
  });

  it.each([
    ["runId", { runId: `${RUN_ID}-b`, toolCallId: "call_1" }],
    ["toolCallId", { runId: RUN_ID, toolCallId: "call_2" }],
  ])("differs when the %s differs", (_field, other) => {
    const base = { runId: RUN_ID, toolCallId: "call_1" };

    const ids = [questionIdFor(base), questionIdFor(other)];

    expect(ids[0]).not.toBe(ids[1]);
  });

  it("lets the runId win: sessionKey and agentId do not change the id when a runId is given", () => {
    const base = { runId: RUN_ID, toolCallId: "call_1" };

    const ids = [
      questionIdFor(base),
      questionIdFor({ ...base, sessionKey: "telegram:42" }),
      questionIdFor({ ...base, sessionKey: "slack:T1:U1", agentId: "ops" }),
    ];

    expect(new Set(ids).size).toBe(1);
  });

  it("uses the agentId when there is no runId", () => {
    const base = { sessionKey: "telegram:42", toolCallId: "call_1" };

    const ids = [
      questionIdFor(base),
      questionIdFor({ ...base, agentId: "ops" }),
      questionIdFor({ ...base, agentId: "billing" }),
    ];

    expect(new Set(ids).size).toBe(3);
  });

  it("differs when the sessionKey differs", () => {
    const ids = [
      questionIdFor({ sessionKey: "telegram:42", toolCallId: "call_1" }),
      questionIdFor({ sessionKey: "telegram:43", toolCallId: "call_1" }),
    ];

    expect(ids[0]).not.toBe(ids[1]);
  });

  it("does not confuse a runId with a sessionKey of the same text", () => {
    const ids = [
      questionIdFor({ runId: "x", toolCallId: "call_1" }),
      questionIdFor({ sessionKey: "x", toolCallId: "call_1" }),
    ];

    expect(ids[0]).not.toBe(ids[1]);
  });

  it.each<[string, QuestionIdInput, QuestionIdInput]>([
    [
      "sessionKey into toolCallId",
      { sessionKey: "a|b", toolCallId: "c" },
      { sessionKey: "a", toolCallId: "b|c" },
    ],
    ["runId into toolCallId", { runId: "a:b", toolCallId: "c" }, { runId: "a", toolCallId: "b:c" }],
    [
      "agentId into sessionKey",
      { agentId: "a|b", sessionKey: "c", toolCallId: "d" },
      { agentId: "a", sessionKey: "b|c", toolCallId: "d" },
    ],
    [
      "agentId into sessionKey, with no separator",
      { agentId: "ab", sessionKey: "c", toolCallId: "d" },
      { agentId: "a", sessionKey: "bc", toolCallId: "d" },
    ],
    [
      "a quoted JSON fragment",
      { sessionKey: 'a","b', toolCallId: "c" },
      { sessionKey: "a", toolCallId: 'b","c' },
    ],
    [
      "an empty agentId against no agentId",
      { agentId: "", sessionKey: "s", toolCallId: "t" },
      { sessionKey: "s", toolCallId: "t" },
    ],
  ])("does not collide when text shifts between fields (%s)", (_name, first, second) => {
    const ids = [questionIdFor(first), questionIdFor(second)];

    expect(ids[0]).not.toBe(ids[1]);
  });

  it("gives different ids to different scoped inputs (property)", () => {
    const text = fc.string({
      minLength: 1,
      maxLength: 8,
      unit: fc.constantFrom("a", "b", "|", ":", '"', ",", "\\"),
    });
    const input = fc
      .record(
        { runId: text, sessionKey: text, agentId: text, toolCallId: text },
        { requiredKeys: ["toolCallId"] },
      )
      .filter((i) => i.runId !== undefined || i.sessionKey !== undefined);
    /** What the id is documented to depend on: the runId wins; otherwise agentId + sessionKey. */
    const scopeOf = (i: QuestionIdInput) =>
      JSON.stringify(
        i.runId ? ["run", i.runId, i.toolCallId] : ["session", i.agentId, i.sessionKey, i.toolCallId],
      );

    fc.assert(
      fc.property(input, input, (first, second) => {
        fc.pre(scopeOf(first) !== scopeOf(second));

        const ids = [questionIdFor(first), questionIdFor(second)];

        expect(ids[0]).not.toBe(ids[1]);
      }),
    );
  });

  it.each<[string, QuestionIdInput]>([
    ["neither runId nor sessionKey", { toolCallId: "call_1" }],
    ["only an agentId", { agentId: "ops", toolCallId: "call_1" }],
    ["an empty runId and sessionKey", { runId: "", sessionKey: "", toolCallId: "call_1" }],
  ])("throws with %s", (_name, input) => {
    expect(() => questionIdFor(input)).toThrow(/runId or a sessionKey/);
  });
});
