/**
 * The local stack's EventBridge Scheduler, through the AWS SDK's own client as the handlers use it: the
 * restJson1 requests it answers, AWS's error codes, and schedules that fire on this process's clock.
 */
import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  GetScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  ValidationException,
} from "@aws-sdk/client-scheduler";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalScheduler, startLocalScheduler } from "#infra/local/scheduler.ts";
import { atExpression } from "#lib/timers/scheduler-timers.ts";
import { manualClock } from "./support/manual-clock.ts";

const TARGET = "arn:aws:lambda:us-east-1:000000000000:function:handraise-local-questionTimer";
/** The scheduler's clock, moved by the tests: a schedule fires, and a retry comes, without waiting. */
const clock = manualClock(Date.UTC(2030, 0, 1));
let scheduler: LocalScheduler;
let client: SchedulerClient;
const invoked: { arn: string; input: unknown; at: number }[] = [];
let failures = 0;
const deadLetters: { queue: string; body: string; attempts: number }[] = [];
const QUEUE = "arn:aws:sqs:us-east-1:000000000000:QuestionTimerDeadLetterQueue";

beforeAll(async () => {
  scheduler = await startLocalScheduler({
    host: "127.0.0.1",
    region: "us-east-1",
    account: "000000000000",
    invoke: async (arn, input) => {
      invoked.push({ arn, input, at: clock.now() });
      if ((input as { fail?: number }).fail !== undefined && failures++ < (input as { fail: number }).fail) {
        throw new Error("the function failed");
      }
    },
    onFailure: () => undefined,
    deadLetter: (queue, body, attempts) => deadLetters.push({ queue, body, attempts }),
    clock,
  });
  client = new SchedulerClient({
    endpoint: scheduler.url,
    region: "us-east-1",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
});
afterAll(async () => {
  client?.destroy();
  await scheduler?.stop();
});

const create = (
  name: string,
  atMs: number,
  input: unknown = { name },
  deadLetter: { DeadLetterConfig?: { Arn: string } } = {},
) =>
  client.send(
    new CreateScheduleCommand({
      Name: name,
      GroupName: "handraise-local",
      ScheduleExpression: atExpression(atMs),
      ScheduleExpressionTimezone: "UTC",
      FlexibleTimeWindow: { Mode: "OFF" },
      ActionAfterCompletion: "DELETE",
      Target: {
        Arn: TARGET,
        RoleArn: "arn:aws:iam::000000000000:role/r",
        Input: JSON.stringify(input),
        ...deadLetter,
      },
    }),
  );

describe("the local Scheduler", () => {
  it("creates, reads and deletes schedules by name in a group, with AWS's errors", async () => {
    const at = clock.now() + 60_000;
    const created = await create("q1-expire", at);
    expect(created.ScheduleArn).toBe(
      "arn:aws:scheduler:us-east-1:000000000000:schedule/handraise-local/q1-expire",
    );
    await expect(create("q1-expire", at)).rejects.toBeInstanceOf(ConflictException);
    const read = await client.send(
      new GetScheduleCommand({ Name: "q1-expire", GroupName: "handraise-local" }),
    );
    expect(read).toMatchObject({ ScheduleExpression: atExpression(at), ActionAfterCompletion: "DELETE" });
    await client.send(new DeleteScheduleCommand({ Name: "q1-expire", GroupName: "handraise-local" }));
    await expect(
      client.send(new DeleteScheduleCommand({ Name: "q1-expire", GroupName: "handraise-local" })),
    ).rejects.toBeInstanceOf(ResourceNotFoundException);
    // A time that has passed is refused, as AWS refuses it.
    await expect(create("q1-late", clock.now() - 5_000)).rejects.toBeInstanceOf(ValidationException);
  });

  it("invokes the target with the input at its second, then deletes the schedule; a deleted one never fires", async () => {
    const at = Math.ceil((clock.now() + 1_200) / 1000) * 1000;
    await create("q2-remind-0", at);
    await create("q2-remind-1", at);
    await client.send(new DeleteScheduleCommand({ Name: "q2-remind-1", GroupName: "handraise-local" }));
    await clock.advance(at - clock.now() - 1);
    expect(invoked.filter((i) => (i.input as { name?: string }).name?.startsWith("q2-"))).toEqual([]);
    await clock.advance(301);
    await scheduler.idle();
    const fired = invoked.filter((i) => (i.input as { name?: string }).name?.startsWith("q2-"));
    expect(fired.map((i) => [i.arn, i.input])).toEqual([[TARGET, { name: "q2-remind-0" }]]);
    expect(fired[0]?.at).toBeGreaterThanOrEqual(at);
    expect(scheduler.schedules().map((s) => s.name)).not.toContain("q2-remind-0");
  });

  it("retries a target that failed, as Lambda retries an asynchronous invocation", async () => {
    const before = invoked.length;
    await create("q3-escalate", clock.now() + 1_000, { fail: 1 });
    await clock.advance(3_500);
    await scheduler.idle();
    expect(invoked.length - before).toBe(2);
    expect(scheduler.counts()).toMatchObject({
      CreateSchedule: expect.any(Number),
      invocations: expect.any(Number),
    });
  });

  it("keeps a target that failed every attempt in the schedule's dead-letter queue, with its input", async () => {
    const input = { name: "q4-remind-0", fail: 3 };
    failures = 0;
    await create("q4-remind-0", clock.now() + 1_000, input, { DeadLetterConfig: { Arn: QUEUE } });
    const schedule = scheduler.schedules().find((s) => s.name === "q4-remind-0");
    expect(schedule?.target.deadLetterArn).toBe(QUEUE);
    // Attempts at its time, 1 s and 3 s later; the dead letter only after the last.
    await clock.advance((schedule?.atMs ?? 0) + 3_000 - clock.now() - 1);
    expect(deadLetters).toEqual([]);
    await clock.advance(1);
    await scheduler.idle();
    expect(deadLetters).toEqual([{ queue: QUEUE, body: JSON.stringify(input), attempts: 3 }]);
    // A dead-letter queue must be an SQS queue, as AWS says.
    await expect(
      create("q4-bad", clock.now() + 60_000, {}, { DeadLetterConfig: { Arn: "arn:aws:sns:us-east-1:0:t" } }),
    ).rejects.toBeInstanceOf(ValidationException);
  });
});
