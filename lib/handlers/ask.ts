/** The AskUser task's handler (functions/ask.ts). */
import middy from "@middy/core";
import type { Context } from "aws-lambda";
import { DeliveryFailedError, parseInput } from "../app/errors.ts";
import { WAITER_PATTERN } from "../callbacks/waiter.ts";
import { functionDeadline, withPlatformDeadline } from "../channels/platform-http.ts";
import type { Config } from "../config.ts";
import {
  answerersSchema,
  contextSchema,
  deliveryTargetSchema,
  escalationSchema,
  ownerSchema,
  quorumSchema,
  remindAfterSecondsSchema,
} from "../questions/question-record.ts";
import { ruleMessage } from "../validation-messages.ts";
import { createAsker, createServices } from "../wiring.ts";
import * as z from "../zod.ts";
import type { DeliveringHandlerDeps } from "./handler-deps.ts";

const askTaskEventSchema = z.object({
  taskToken: z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(4096),
      z.regex(WAITER_PATTERN, { error: ruleMessage("must be a task token (base64)") }),
    ),
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
  // Who else may answer, and how many agreeing answers close it (the task input's, never the model's).
  answerers: z.nullish(answerersSchema),
  quorum: z.nullish(quorumSchema),
});

export async function createAskHandler(
  config: Config,
  { observability, channels, aws, ports }: DeliveringHandlerDeps,
) {
  const services = createServices(config, "ask", observability, channels, aws, ports);
  await services.ready();
  const askQuestion = createAsker(services);
  const { now } = services;
  return middy()
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
}
