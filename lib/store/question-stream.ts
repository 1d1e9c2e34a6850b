/**
 * Reading the table's DynamoDB stream (view type NEW_IMAGE): a question item that closed while a run waited
 * on it still carries its task token, and is what the stream consumer resumes (lib/app/resume-closed-question.ts).
 * The item's storage format stays in lib/store: the consumer gets a parsed value, never an image.
 */
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import { answersSchema } from "../questions/schema.ts";
import * as z from "../zod.ts";
import { keys } from "./keys.ts";

/** A closed question a run may still wait on: what to resume it with, and the token to resume. */
export type ClosedQuestion =
  | { id: string; taskToken: string; status: "answered"; answers: z.infer<typeof answersSchema> }
  | { id: string; taskToken: string; status: "cancelled"; reason: "cancelled" | "skipped" };

const closedItemSchema = z.discriminatedUnion("status", [
  z.object({
    entity: z.literal("question"),
    id: z.string(),
    taskToken: z.string().check(z.minLength(1)),
    status: z.literal("answered"),
    answers: answersSchema,
  }),
  z.object({
    entity: z.literal("question"),
    id: z.string(),
    taskToken: z.string().check(z.minLength(1)),
    status: z.literal("cancelled"),
    reason: z.enum(["cancelled", "skipped"]),
  }),
]);

/**
 * The closed question in a stream record's new image; undefined for every other item or state (pending,
 * expired, delivery_failed, no token left, another entity, a removed item).
 *
 * @example
 * const closed = closedQuestionFromImage(record.dynamodb?.NewImage);
 * if (closed) await resumeClosedQuestion(closed);
 */
export function closedQuestionFromImage(
  image: Record<string, AttributeValue> | undefined,
): ClosedQuestion | undefined {
  if (!image) return undefined;
  const parsed = closedItemSchema.safeParse(unmarshall(image));
  if (!parsed.success) return undefined;
  const item = parsed.data;
  if (image.pk?.S !== keys.question(item.id)) return undefined;
  return item.status === "answered"
    ? { id: item.id, taskToken: item.taskToken, status: "answered", answers: item.answers }
    : { id: item.id, taskToken: item.taskToken, status: "cancelled", reason: item.reason };
}
