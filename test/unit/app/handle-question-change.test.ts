/**
 * A closed question's run is resumed before its event is published: a bus that keeps refusing the event
 * never keeps the answer from the run, and the record still fails so that the event is sent again.
 */
import { describe, expect, it } from "vitest";
import { createHandleQuestionChange } from "#lib/app/handle-question-change.ts";
import type { QuestionTimers } from "#lib/app/question-timers.ts";
import type { SettleClosedQuestion } from "#lib/app/settle-closed-question.ts";
import type { ChannelRegistry } from "#lib/channels/chat-channel.ts";
import type { ClosedQuestion } from "#lib/store/question-stream.ts";
import { silentTelemetry } from "#lib/telemetry/telemetry.ts";
import { questionRecord } from "../../support/records.ts";

describe("handleQuestionChange: a closed question", () => {
  it("a publish that always fails: the run is resumed on every attempt, and every attempt fails for a retry", async () => {
    const steps: string[] = [];
    const handle = createHandleQuestionChange({
      events: {
        publish: async () => {
          steps.push("publish");
          throw new Error("EventBridge refused 1 question event(s)");
        },
      },
      settle: (async (closed: ClosedQuestion) => {
        steps.push(`settle ${closed.record.id}`);
        return "resumed";
      }) as SettleClosedQuestion,
      timers: {
        start: async () => {},
        stop: async () => {
          steps.push("timers stopped");
        },
      } as QuestionTimers,
      channels: new Map() as ChannelRegistry,
      telemetry: silentTelemetry,
    });
    const change = {
      kind: "closed" as const,
      record: questionRecord({ id: "q-bus-down", status: "answered" }),
      taskToken: "token",
    };
    for (let attempt = 0; attempt < 3; attempt++) {
      await expect(handle(change)).rejects.toThrow("EventBridge refused");
    }
    expect(steps).toEqual(Array(3).fill(["settle q-bus-down", "timers stopped", "publish"]).flat());
  });

  it("a settle that fails (Step Functions throttled) fails the record before anything is announced", async () => {
    const published: string[] = [];
    const handle = createHandleQuestionChange({
      events: { publish: async (events) => void published.push(...events.map((e) => e.detailType)) },
      settle: (async () => {
        throw Object.assign(new Error("Rate exceeded"), { name: "ThrottlingException" });
      }) as SettleClosedQuestion,
      timers: { start: async () => {}, stop: async () => {} } as QuestionTimers,
      channels: new Map() as ChannelRegistry,
      telemetry: silentTelemetry,
    });
    const record = questionRecord({ id: "q-throttled", status: "answered" });
    await expect(handle({ kind: "closed", record, taskToken: "token" })).rejects.toThrow("Rate exceeded");
    expect(published).toEqual([]);
  });
});
