/**
 * EventBridge Scheduler for the local stack: the operations Handraise calls, over the service's restJson1
 * protocol (`POST /schedules/{Name}` CreateSchedule, `GET /schedules/{Name}?groupName=` GetSchedule,
 * `DELETE /schedules/{Name}?groupName=` DeleteSchedule, with AWS's error codes in `x-amzn-errortype`), so the
 * handlers' own Scheduler client sets timers through `AWS_ENDPOINT_URL_SCHEDULER`. Each one-time schedule
 * (`at(yyyy-mm-ddThh:mm:ss)`, UTC) runs on this process's clock (or one a test moves): when it is due, its
 * target function is invoked in process with the schedule's input, as Scheduler invokes a Lambda function
 * (asynchronously: a failed invocation is retried twice, as Lambda retries an asynchronous one), then deleted
 * (`ActionAfterCompletion: DELETE`). A target that fails every attempt is kept in the schedule's dead-letter
 * queue (`Target.DeadLetterConfig`), with the schedule's input as the message.
 *
 * Differences from AWS, kept small on purpose: only one-time `at()` schedules in UTC; a schedule fires at its
 * second, where AWS fires within its minute; the retries come after 1 and 2 seconds, not minutes; the
 * target role is not assumed (any role ARN goes); `Target.RetryPolicy` is kept, not applied (the invocation
 * itself never fails here); on AWS a function that fails goes to the function's on-failure destination
 * (serverless.yml makes it the same queue) and Scheduler's own dead letters are the schedules it could not
 * invoke; schedules are in memory, so a restart forgets them (a question persisted with HANDRAISE_DATA_DIR
 * still reads as expired past its deadline).
 */

import type { AddressInfo } from "node:net";
import { createFaultSwitch, type FaultSwitch } from "./faults.ts";
import { createServer, replyRestJson } from "./local-server.ts";

export interface LocalSchedule {
  name: string;
  group: string;
  expression: string;
  /** When it fires (epoch ms). */
  atMs: number;
  target: {
    arn: string;
    roleArn: string;
    input: string;
    /** `Target.DeadLetterConfig.Arn`: the SQS queue a target that failed every attempt is sent to. */
    deadLetterArn?: string | undefined;
    /** `Target.RetryPolicy`, as given. */
    retryPolicy?: { MaximumEventAgeInSeconds?: number; MaximumRetryAttempts?: number } | undefined;
  };
  deleteAfterCompletion: boolean;
}

export interface LocalScheduler {
  url: string;
  /** The schedules that have not fired (or been deleted), soonest first. */
  schedules(): LocalSchedule[];
  /** How many calls of each operation were served (CreateSchedule, DeleteSchedule, …), and targets invoked. */
  counts(): Record<string, number>;
  faults: FaultSwitch;
  /** Resolves once no target invocation is in flight. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export interface LocalSchedulerOptions {
  host: string;
  region: string;
  account: string;
  /** Invokes a schedule's target (a Lambda function ARN) with its input; rejects when the function failed. */
  invoke: (arn: string, input: unknown) => Promise<void>;
  /** Where a target's final failure is reported (default stderr, one JSON line). */
  onFailure?: (schedule: LocalSchedule, error: unknown) => void;
  /**
   * Sends a target's final failure to the schedule's dead-letter queue (an SQS queue ARN): the message body is
   * the schedule's input. Without it, or without a queue, the failure is only reported.
   */
  deadLetter?: (queueArn: string, body: string, attempts: number) => void;
  /** The clock schedules are due by and retries wait on (default: this process's). */
  clock?: SchedulerClock;
}

/** What the scheduler reads the time from and waits on: a test gives one it moves itself. */
export interface SchedulerClock {
  now(): number;
  /** Calls `due` once `ms` have passed; the returned function cancels it. */
  after(ms: number, due: () => void): () => void;
}

/** This process's clock. Its timers do not hold the process open: the scheduler's server does, until it stops. */
const PROCESS_CLOCK: SchedulerClock = {
  now: () => Date.now(),
  after(ms, due) {
    const timer = setTimeout(due, Math.min(ms, MAX_TIMER_MS)).unref();
    return () => clearTimeout(timer);
  },
};

const NAME = /^[0-9a-zA-Z_.-]{1,64}$/;
const AT = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/;
const SQS_ARN = /^arn:[\w-]+:sqs:[\w-]+:\d{12}:[\w-]{1,80}$/;
/** Lambda retries a failed asynchronous invocation twice; here after these delays. */
const RETRY_DELAYS_MS = [1_000, 2_000];
/** setTimeout's longest delay: a schedule further out is re-armed when this passes. */
const MAX_TIMER_MS = 2 ** 31 - 1;

class SchedulerError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function startLocalScheduler(options: LocalSchedulerOptions): Promise<LocalScheduler> {
  const faults = createFaultSwitch();
  const clock = options.clock ?? PROCESS_CLOCK;
  const schedules = new Map<string, { schedule: LocalSchedule; cancel: () => void }>();
  const counts: Record<string, number> = {};
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  const count = (what: string) => {
    counts[what] = (counts[what] ?? 0) + 1;
  };
  const key = (group: string, name: string) => `${group}/${name}`;
  const arnOf = (group: string, name: string) =>
    `arn:aws:scheduler:${options.region}:${options.account}:schedule/${group}/${name}`;
  const sleep = (ms: number) => new Promise<void>((resolve) => clock.after(ms, resolve));

  /** Fires the schedule when it is due; a timer that wakes early (the longest delay has passed) re-arms. */
  function arm(id: string, schedule: LocalSchedule): () => void {
    return clock.after(Math.max(0, schedule.atMs - clock.now()), () => {
      if (schedule.atMs > clock.now()) {
        const entry = schedules.get(id);
        if (entry) entry.cancel = arm(id, schedule);
        return;
      }
      fire(id, schedule);
    });
  }

  function fire(id: string, schedule: LocalSchedule): void {
    if (stopped) return;
    const run = (async () => {
      let input: unknown;
      try {
        input = JSON.parse(schedule.target.input || "{}");
      } catch {
        input = schedule.target.input;
      }
      for (let attempt = 0; ; attempt++) {
        count("invocations");
        try {
          await options.invoke(schedule.target.arn, input);
          break;
        } catch (error) {
          const delay = RETRY_DELAYS_MS[attempt];
          if (delay === undefined || stopped) {
            (options.onFailure ?? reportFailure)(schedule, error);
            const queue = schedule.target.deadLetterArn;
            if (queue !== undefined) options.deadLetter?.(queue, schedule.target.input, attempt + 1);
            break;
          }
          await sleep(delay);
        }
      }
      if (schedule.deleteAfterCompletion && schedules.get(id)?.schedule === schedule) schedules.delete(id);
    })();
    inFlight.add(run);
    void run.finally(() => inFlight.delete(run));
  }

  function create(name: string, body: Record<string, unknown>): unknown {
    const group = typeof body.GroupName === "string" ? body.GroupName : "default";
    const id = key(group, name);
    if (schedules.has(id)) {
      throw new SchedulerError(409, "ConflictException", `Schedule ${name} already exists.`);
    }
    const expression = String(body.ScheduleExpression ?? "");
    const at = AT.exec(expression)?.[1];
    if (!at) {
      throw new SchedulerError(
        400,
        "ValidationException",
        `Only at() schedules are served locally: ${expression}`,
      );
    }
    const zone = body.ScheduleExpressionTimezone;
    if (zone !== undefined && zone !== "UTC") {
      throw new SchedulerError(400, "ValidationException", "Only UTC schedules are served locally.");
    }
    const atMs = Date.parse(`${at}Z`);
    // Scheduler refuses a one-time schedule in the past (the current second still counts).
    if (!Number.isFinite(atMs) || atMs < Math.floor(clock.now() / 1000) * 1000) {
      throw new SchedulerError(400, "ValidationException", `The schedule time ${at} has passed.`);
    }
    const target = (body.Target ?? {}) as {
      Arn?: unknown;
      RoleArn?: unknown;
      Input?: unknown;
      DeadLetterConfig?: { Arn?: unknown };
      RetryPolicy?: LocalSchedule["target"]["retryPolicy"];
    };
    if (typeof target.Arn !== "string" || typeof target.RoleArn !== "string") {
      throw new SchedulerError(400, "ValidationException", "Target.Arn and Target.RoleArn are required.");
    }
    const deadLetterArn = target.DeadLetterConfig?.Arn;
    if (deadLetterArn !== undefined && (typeof deadLetterArn !== "string" || !SQS_ARN.test(deadLetterArn))) {
      throw new SchedulerError(
        400,
        "ValidationException",
        "Target.DeadLetterConfig.Arn must be an SQS queue ARN.",
      );
    }
    if ((body.FlexibleTimeWindow as { Mode?: unknown } | undefined)?.Mode === undefined) {
      throw new SchedulerError(400, "ValidationException", "FlexibleTimeWindow is required.");
    }
    const schedule: LocalSchedule = {
      name,
      group,
      expression,
      atMs,
      target: {
        arn: target.Arn,
        roleArn: target.RoleArn,
        input: typeof target.Input === "string" ? target.Input : "",
        ...(deadLetterArn !== undefined && { deadLetterArn }),
        ...(target.RetryPolicy !== undefined && { retryPolicy: target.RetryPolicy }),
      },
      deleteAfterCompletion: body.ActionAfterCompletion === "DELETE",
    };
    schedules.set(id, { schedule, cancel: arm(id, schedule) });
    return { ScheduleArn: arnOf(group, name) };
  }

  function remove(name: string, group: string): unknown {
    const entry = schedules.get(key(group, name));
    if (!entry)
      throw new SchedulerError(404, "ResourceNotFoundException", `Schedule ${name} does not exist.`);
    entry.cancel();
    schedules.delete(key(group, name));
    return {};
  }

  function get(name: string, group: string): unknown {
    const entry = schedules.get(key(group, name));
    if (!entry)
      throw new SchedulerError(404, "ResourceNotFoundException", `Schedule ${name} does not exist.`);
    const { schedule } = entry;
    return {
      Arn: arnOf(group, name),
      Name: name,
      GroupName: group,
      ScheduleExpression: schedule.expression,
      ScheduleExpressionTimezone: "UTC",
      State: "ENABLED",
      FlexibleTimeWindow: { Mode: "OFF" },
      ActionAfterCompletion: schedule.deleteAfterCompletion ? "DELETE" : "NONE",
      Target: {
        Arn: schedule.target.arn,
        RoleArn: schedule.target.roleArn,
        Input: schedule.target.input,
        ...(schedule.target.deadLetterArn !== undefined && {
          DeadLetterConfig: { Arn: schedule.target.deadLetterArn },
        }),
        ...(schedule.target.retryPolicy !== undefined && { RetryPolicy: schedule.target.retryPolicy }),
      },
    };
  }

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const reply = (status: number, body: unknown, code?: string) => replyRestJson(res, status, body, code);
    try {
      const url = new URL(req.url ?? "/", "http://local");
      const match = /^\/schedules\/([^/]+)$/.exec(url.pathname);
      const operation =
        match === null
          ? undefined
          : ({ POST: "CreateSchedule", GET: "GetSchedule", DELETE: "DeleteSchedule" } as const)[
              req.method as "POST" | "GET" | "DELETE"
            ];
      if (!match?.[1] || operation === undefined) {
        throw new SchedulerError(
          404,
          "UnknownOperationException",
          `${req.method} ${url.pathname} is not served locally`,
        );
      }
      count(operation);
      const fault = faults.take(operation);
      if (fault) throw new SchedulerError(fault.status, fault.code, fault.message);
      const name = decodeURIComponent(match[1]);
      if (!NAME.test(name))
        throw new SchedulerError(400, "ValidationException", `Invalid schedule name ${name}.`);
      const group = url.searchParams.get("groupName") ?? "default";
      if (operation === "CreateSchedule") {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: Record<string, unknown>;
        try {
          body = JSON.parse(text || "{}") as Record<string, unknown>;
        } catch {
          throw new SchedulerError(400, "ValidationException", "The body is not JSON.");
        }
        return reply(200, create(name, body));
      }
      return reply(200, operation === "DeleteSchedule" ? remove(name, group) : get(name, group));
    } catch (error) {
      if (error instanceof SchedulerError) return reply(error.status, { Message: error.message }, error.code);
      return reply(500, { Message: "Internal error" }, "InternalServerException");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, options.host, () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${port}`,
    schedules: () => [...schedules.values()].map((entry) => entry.schedule).sort((a, b) => a.atMs - b.atMs),
    counts: () => ({ ...counts }),
    faults,
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    async stop() {
      stopped = true;
      for (const { cancel } of schedules.values()) cancel();
      schedules.clear();
      await Promise.race([
        Promise.allSettled([...inFlight]),
        new Promise((resolve) => setTimeout(resolve, 2_000).unref()),
      ]);
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

function reportFailure(schedule: LocalSchedule, error: unknown): void {
  console.error(
    JSON.stringify({
      level: "ERROR",
      service: "handraise-local",
      message: `the target of schedule ${schedule.group}/${schedule.name} failed every attempt`,
      error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
    }),
  );
}
