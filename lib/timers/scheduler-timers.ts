import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  type SchedulerClient,
} from "@aws-sdk/client-scheduler";
import { FinalTimerError, type Timers } from "./timers.ts";

export interface SchedulerTimersOptions {
  client: SchedulerClient;
  /** The stack's schedule group: the creator's role may create and delete schedules in it only. */
  group: string;
  /** The question-timer function every schedule invokes. */
  targetArn: string;
  /** The role Scheduler assumes to invoke it (it may invoke that function and send to the queue below). */
  roleArn: string;
  /** The SQS queue where Scheduler keeps a timer it could not deliver (the schedules' dead-letter queue). */
  deadLetterArn: string;
  now: () => number;
}

/**
 * How long Scheduler keeps trying to invoke the function when it cannot (throttled, unavailable) before it
 * puts the timer in the dead-letter queue: an hour late still expires, reminds or escalates; later than
 * that, an operator decides (docs/operating.md). A failure inside the function is Lambda's to retry.
 */
export const SCHEDULE_RETRY_POLICY = { MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: 10 };

/**
 * Scheduler refuses a one-time schedule whose time has passed: a timer that is already due, or nearly (the
 * stream was late, a reminder came due meanwhile), is set this far ahead instead (then rounded up to the
 * next whole second).
 */
const MIN_LEAD_MS = 1_000;

/** Refusals no retry can cure. */
const FINAL_ERRORS = new Set(["ValidationException", "AccessDeniedException"]);

/** `at(yyyy-mm-ddThh:mm:ss)` in UTC, rounded up to the whole second: never before `atMs`. */
export function atExpression(atMs: number): string {
  return `at(${new Date(Math.ceil(atMs / 1000) * 1000).toISOString().slice(0, 19)})`;
}

/**
 * Timers as EventBridge Scheduler one-time schedules (`at(…)` UTC, flexible window off, deleted by Scheduler
 * once they have run), each invoking the question-timer function with its event as input. Scheduler fires
 * within the minute of its time, so a timer may come up to a minute early or late; the function waits for
 * the times that are rules (the deadline, the escalation time). A timer Scheduler cannot deliver within its
 * retry policy goes to the dead-letter queue, never nowhere. A schedule that exists already is kept (a
 * retried stream record sets it again); one that is gone is no error to clear.
 */
export function createSchedulerTimers(options: SchedulerTimersOptions): Timers {
  const { client, group: GroupName } = options;

  function rethrow(error: unknown): never {
    if (error instanceof Error && FINAL_ERRORS.has(error.name)) {
      throw new FinalTimerError(error.name, error.message);
    }
    throw error;
  }

  return {
    async set({ name, event }) {
      try {
        await client.send(
          new CreateScheduleCommand({
            Name: name,
            GroupName,
            ScheduleExpression: atExpression(Math.max(event.dueAtMs, options.now() + MIN_LEAD_MS)),
            ScheduleExpressionTimezone: "UTC",
            FlexibleTimeWindow: { Mode: "OFF" },
            ActionAfterCompletion: "DELETE",
            Target: {
              Arn: options.targetArn,
              RoleArn: options.roleArn,
              Input: JSON.stringify(event),
              RetryPolicy: SCHEDULE_RETRY_POLICY,
              DeadLetterConfig: { Arn: options.deadLetterArn },
            },
          }),
        );
      } catch (error) {
        if (error instanceof ConflictException) return;
        rethrow(error);
      }
    },

    async clear(name) {
      try {
        await client.send(new DeleteScheduleCommand({ Name: name, GroupName }));
      } catch (error) {
        if (error instanceof ResourceNotFoundException) return;
        rethrow(error);
      }
    },
  };
}
