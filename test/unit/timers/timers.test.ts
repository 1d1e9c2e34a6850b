import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  type SchedulerClient,
  ValidationException,
} from "@aws-sdk/client-scheduler";
import { describe, expect, it } from "vitest";
import { atExpression, createSchedulerTimers } from "#lib/timers/scheduler-timers.ts";
import { FinalTimerError, timersOf } from "#lib/timers/timers.ts";

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0, 250);
const record = {
  id: "ask_0123456789abcdef0123456789abcdef",
  createdAtMs: T0,
  expiresAtMs: T0 + 900_000,
};

describe("a question's timers", () => {
  it("are its expiry, each reminder and its escalation, named after the question, what they do and which", () => {
    const timers = timersOf({
      ...record,
      remindAfterSeconds: [300, 600],
      escalate: { afterSeconds: 450, owner: "web:bob", deliverTo: [{ channel: "console", chatId: "b" }] },
    });
    expect(timers).toEqual([
      {
        name: `${record.id}-expire`,
        event: { questionId: record.id, kind: "expire", dueAtMs: T0 + 900_000 },
      },
      {
        name: `${record.id}-remind-0`,
        event: { questionId: record.id, kind: "remind", index: 0, dueAtMs: T0 + 300_000 },
      },
      {
        name: `${record.id}-remind-1`,
        event: { questionId: record.id, kind: "remind", index: 1, dueAtMs: T0 + 600_000 },
      },
      {
        name: `${record.id}-escalate`,
        event: { questionId: record.id, kind: "escalate", dueAtMs: T0 + 450_000 },
      },
    ]);
    // A 48-character id (the longest a record has) still makes a valid schedule name.
    const longest = timersOf({ ...record, id: "a".repeat(48), remindAfterSeconds: [1, 2, 3, 4, 5] });
    for (const { name } of longest) expect(name).toMatch(/^[0-9a-zA-Z_.-]{1,64}$/);
  });

  it("without reminders or escalation: only the expiry", () => {
    expect(timersOf(record).map((t) => t.event.kind)).toEqual(["expire"]);
  });
});

describe("at expressions", () => {
  it("are UTC to the second, rounded up: never before the time", () => {
    expect(atExpression(Date.UTC(2026, 0, 2, 3, 4, 5))).toBe("at(2026-01-02T03:04:05)");
    expect(atExpression(Date.UTC(2026, 0, 2, 3, 4, 5, 1))).toBe("at(2026-01-02T03:04:06)");
    expect(atExpression(Date.UTC(2026, 11, 31, 23, 59, 59, 999))).toBe("at(2027-01-01T00:00:00)");
  });
});

/** A Scheduler client that records each command and answers with `answer`. */
function fakeClient(answer: (command: unknown) => unknown = () => ({})) {
  const sent: unknown[] = [];
  const client = {
    async send(command: unknown) {
      sent.push(command);
      const result = answer(command);
      if (result instanceof Error) throw result;
      return result;
    },
  } as unknown as SchedulerClient;
  return { client, sent };
}

const settings = {
  group: "handraise-prod",
  targetArn: "arn:aws:lambda:us-east-1:123456789012:function:handraise-prod-questionTimer",
  roleArn: "arn:aws:iam::123456789012:role/handraise-prod-scheduler",
  deadLetterArn: "arn:aws:sqs:us-east-1:123456789012:handraise-prod-QuestionTimerDeadLetterQueue-1A2B3C",
};
const meta = { $metadata: {}, message: "x", Message: "x" };

describe("Scheduler timers", () => {
  const [expire] = timersOf(record);
  if (!expire) throw new Error("no expiry timer");

  it("create a one-time schedule in the group: at the due time, UTC, no window, deleted once run, with a dead-letter queue and retry policy", async () => {
    const { client, sent } = fakeClient();
    await createSchedulerTimers({ client, ...settings, now: () => T0 }).set(expire);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeInstanceOf(CreateScheduleCommand);
    expect((sent[0] as CreateScheduleCommand).input).toEqual({
      Name: `${record.id}-expire`,
      GroupName: "handraise-prod",
      ScheduleExpression: "at(2026-12-01T12:15:01)",
      ScheduleExpressionTimezone: "UTC",
      FlexibleTimeWindow: { Mode: "OFF" },
      ActionAfterCompletion: "DELETE",
      Target: {
        Arn: settings.targetArn,
        RoleArn: settings.roleArn,
        Input: JSON.stringify(expire.event),
        // What Scheduler cannot deliver within an hour is kept in the queue, never dropped.
        RetryPolicy: { MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: 10 },
        DeadLetterConfig: { Arn: settings.deadLetterArn },
      },
    });
  });

  it("set a timer that is already due a moment ahead (Scheduler refuses a time that has passed)", async () => {
    const { client, sent } = fakeClient();
    await createSchedulerTimers({ client, ...settings, now: () => T0 + 901_000 }).set(expire);
    expect((sent[0] as CreateScheduleCommand).input.ScheduleExpression).toBe("at(2026-12-01T12:15:03)");
  });

  it("keep a schedule that exists (a retried stream record), and clear one that is gone without error", async () => {
    const { client } = fakeClient((command) =>
      command instanceof CreateScheduleCommand
        ? new ConflictException(meta)
        : new ResourceNotFoundException(meta),
    );
    const timers = createSchedulerTimers({ client, ...settings, now: () => T0 });
    await expect(timers.set(expire)).resolves.toBeUndefined();
    await expect(timers.clear(expire.name)).resolves.toBeUndefined();
  });

  it("delete by name in the group; a refusal no retry cures is final, throttling is not", async () => {
    const { client, sent } = fakeClient((command) =>
      command instanceof DeleteScheduleCommand
        ? new ValidationException(meta)
        : new Error("ThrottlingException"),
    );
    const timers = createSchedulerTimers({ client, ...settings, now: () => T0 });
    await expect(timers.clear(expire.name)).rejects.toBeInstanceOf(FinalTimerError);
    expect((sent[0] as DeleteScheduleCommand).input).toEqual({
      Name: expire.name,
      GroupName: "handraise-prod",
    });
    const thrown = await timers.set(expire).catch((error: unknown) => error);
    expect(thrown).not.toBeInstanceOf(FinalTimerError);
  });
});
