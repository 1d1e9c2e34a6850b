/** What a question several people decided gives its asker: the run, an MCP call, a notification. */
import { describe, expect, it } from "vitest";
import { resultOf } from "#lib/app/question-result.ts";
import { notificationFor } from "#lib/notify/notification.ts";
import { formatToolResult } from "#lib/questions/index.ts";
import { questionRecord } from "../../support/records.ts";

const votes = [
  { by: "telegram:7", answers: { deploy_target: ["Staging"] }, atMs: 1 },
  { by: "telegram:8", answers: {}, atMs: 2, skipped: true as const },
];

describe("results of a question with a quorum", () => {
  it("no_quorum is a no_answer with its reason and the votes, and tells the model what happened", () => {
    const record = questionRecord({ status: "no_quorum", quorum: 2, votes, resolvedBy: "telegram:8" });
    const result = resultOf(record);
    expect(result).toEqual({ status: "no_answer", reason: "no_quorum", votes });
    const { text } = formatToolResult(result, record.questions);
    expect(text.split("\n")[0]).toBe(
      "The people asked could not agree on one answer, and not enough of them are left to (reason: no_quorum; their votes are in votes). Continue with your best judgment.",
    );
    expect(JSON.parse(text.split("\n").at(-1) ?? "")).toEqual(result);
  });

  it("an answer reached by votes carries them; one without a quorum carries none", () => {
    const answered = { status: "answered" as const, answers: { deploy_target: ["Staging"] } };
    expect(resultOf(questionRecord({ ...answered, quorum: 2, votes }))).toMatchObject({ votes });
    expect(resultOf(questionRecord(answered))).not.toHaveProperty("votes");
  });

  it("the notification's data is that result", () => {
    const record = questionRecord({ status: "no_quorum", quorum: 2, votes, resolvedAtMs: 5 });
    const { body } = notificationFor(record, "https://example.test/hook", 10);
    expect(JSON.parse(body).data).toMatchObject({ status: "no_answer", reason: "no_quorum", votes });
  });
});
