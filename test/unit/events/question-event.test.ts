import { describe, expect, it } from "vitest";
import { questionEvent } from "#lib/events/question-event.ts";
import type { QuestionRecord } from "#lib/questions/question-record.ts";

const record: QuestionRecord = {
  id: "ask_1",
  status: "pending",
  questions: [],
  owner: "web:alice",
  deliveries: [],
  createdAtMs: 0,
  expiresAtMs: 60_000,
  notify: { url: "https://hooks.example.com/T000/secret-path" },
  draft: { target: ["Staging"] },
};

describe("questionEvent", () => {
  it("carries the record and its dedupe id, but not the notify URL or the stepper's draft", () => {
    const { detailType, source, detail } = questionEvent("Question Requested", record);
    expect({ detailType, source }).toEqual({ detailType: "Question Requested", source: "handraise" });
    expect(detail).toMatchObject({ id: "ask_1", owner: "web:alice", eventId: "ask_1:requested" });
    expect(JSON.stringify(detail)).not.toContain("secret-path");
    expect(detail).not.toHaveProperty("notify");
    expect(detail).not.toHaveProperty("draft");
    expect(questionEvent("Question Resolved", record).detail.eventId).toBe("ask_1:resolved");
  });
});
