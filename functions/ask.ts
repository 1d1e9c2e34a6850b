/**
 * The AskUser task (`lambda:invoke.waitForTaskToken`): registers the question with the run's task token and
 * delivers it, then returns; the run stays suspended until an answer, a cancel or its timeout. Expected
 * failures are thrown by name for the state machine's Catch: ToolInputError, SessionBusyError,
 * DeliveryFailedError.
 */
import middy from "@middy/core";
import { z } from "zod";
import { loadConfig } from "#lib/config.ts";
import { deliveryTargetSchema, ownerSchema } from "#lib/store/question-record.ts";
import { createServices } from "#lib/wiring.ts";

const { askQuestion } = createServices(loadConfig());

const askTaskEventSchema = z.object({
  taskToken: z.string().min(1).max(4096),
  runId: z.string().min(1),
  toolCallId: z.string().min(1).max(128),
  owner: ownerSchema,
  sessionKey: z.string().min(1).max(256).optional(),
  agentId: z.string().min(1).max(256).optional(),
  deliverTo: z.array(deliveryTargetSchema).max(10),
  questions: z.unknown(),
  timeoutSeconds: z.unknown().optional(),
});

export const handler = middy(async (event: unknown): Promise<{ questionId: string }> => {
  const { questions, timeoutSeconds, ...task } = askTaskEventSchema.parse(event);
  const record = await askQuestion({ ...task, args: { questions, timeoutSeconds } });
  return { questionId: record.id };
});
