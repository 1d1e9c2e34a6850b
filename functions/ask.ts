/**
 * The AskUser task (`lambda:invoke.waitForTaskToken`): registers the question with the run's task token and
 * delivers it, then returns; the run stays suspended until an answer, a cancel or its timeout. Expected
 * failures are thrown by name for the state machine's Catch: ToolInputError, SessionBusyError,
 * DeliveryFailedError (no target took the question; it is closed as delivery_failed), and
 * Handraise.InvalidInput for a task input that does not fit (the workflow's, not the model's: its message
 * names each problem's path). A reminder or an escalation at or past the deadline, or a `requestedBy` who
 * would be the only one to answer (InvalidArgumentError), ends the task like a failed delivery.
 */
import middy from "@middy/core";
import type { Context } from "aws-lambda";
import { DeliveryFailedError, parseInput } from "#lib/app/errors.ts";
import { CHANNELS } from "#lib/channels/channel-list.ts";
import { functionDeadline, withPlatformDeadline } from "#lib/channels/platform-http.ts";
import { loadConfig } from "#lib/config.ts";
import {
  contextSchema,
  deliveryTargetSchema,
  escalationSchema,
  ownerSchema,
  remindAfterSecondsSchema,
} from "#lib/questions/question-record.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { createServices } from "#lib/wiring.ts";
import * as z from "#lib/zod.ts";

const observability = await createObservability("ask");
const services = createServices(loadConfig(), "ask", observability, CHANNELS);
await services.ready();
const { askQuestion, now } = services;

const askTaskEventSchema = z.object({
  taskToken: z.string().check(z.minLength(1), z.maxLength(4096)),
  runId: z.string().check(z.minLength(1)),
  toolCallId: z.string().check(z.minLength(1), z.maxLength(128)),
  owner: ownerSchema,
  sessionKey: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  agentId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  deliverTo: z.array(deliveryTargetSchema).check(z.maxLength(10)),
  questions: z.unknown(),
  timeoutSeconds: z.optional(z.unknown()),
  // The task input's own (never the model's): null or absent, the deployment's default reminders.
  remindAfterSeconds: z.nullish(remindAfterSecondsSchema),
  escalate: z.nullish(escalationSchema),
  // The person the run acts for, who may never answer its question (the task input's, never the model's).
  requestedBy: z.nullish(ownerSchema),
  // Who is asking and why, shown above the questions (the task input's, never the model's).
  context: z.nullish(contextSchema),
});

export const handler = middy()
  .use(observability.middlewares)
  .handler(async (event: unknown, context: Context): Promise<{ questionId: string }> => {
    const { questions, timeoutSeconds, ...task } = parseInput(
      askTaskEventSchema,
      event,
      "AskUser task input",
    );
    // No webhook is waiting on this function: delivering may wait out a platform's rate limit (or retry a
    // 5xx) for as long as its own time allows, rather than fail the question as delivery_failed.
    const deadline = functionDeadline(context.getRemainingTimeInMillis(), now());
    const record = await withPlatformDeadline(deadline, () =>
      askQuestion({ ...task, args: { questions, timeoutSeconds }, askedBy: "run" }),
    );
    if (record.status === "delivery_failed") throw new DeliveryFailedError(record.id);
    return { questionId: record.id };
  });
