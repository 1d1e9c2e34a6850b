/**
 * The bodies the question API answers with, as zod schemas: the routes' return types (lib/http/question-api.ts
 * builds each body to fit) and the responses of the API's OpenAPI document (lib/http/openapi.ts).
 */
import {
  cancelReasonSchema,
  questionRecordSchema,
  questionStatusSchema,
} from "../questions/question-record.ts";
import { answersSchema, voteSchema } from "../questions/schema.ts";
import * as z from "../zod.ts";

/** The answer page's link of a question for its owner: present when the deployment's page is on. */
const answerUrlSchema = z.exactOptional(
  z.string().check(z.describe("The owner's answer page link; absent when the answer page is off.")),
);

/** 201 of POST /questions. */
export const questionCreatedSchema = z.object({
  id: z.string(),
  status: z
    .enum(["pending", "delivery_failed"])
    .check(
      z.describe("delivery_failed when no target took it: it is stored closed, and the id still reads it."),
    ),
  expiresAtMs: z.int(),
  answerUrl: answerUrlSchema,
});

/** 200 of GET /questions/{id}. */
export const questionReadSchema = z.object({ question: questionRecordSchema, answerUrl: answerUrlSchema });

/** 200 of GET /questions: one page of pending questions, oldest first. */
export const questionPageSchema = z.object({
  questions: z.array(questionRecordSchema),
  nextCursor: z.exactOptional(
    z.string().check(z.describe("There only when more may follow: pass it back as cursor.")),
  ),
});

const votesSchema = z.array(voteSchema).check(z.describe("With a quorum: every vote counted, in order."));

/**
 * Present only when this request closed the question and the run that asked said it no longer waits
 * (stopped, timed out): the outcome is recorded, but nothing acts on it. A resume left to a retry is not it.
 */
const runSchema = z.exactOptional(
  z
    .literal("not_waiting")
    .check(z.describe("Recorded, but the run that asked no longer waits for it (stopped or timed out).")),
);

/** 200 of POST /questions/{id}/answer: the answers as recorded (canonical); with a quorum, the votes. */
export const answeredSchema = z.object({
  status: z.literal("answered"),
  answers: answersSchema,
  votes: z.exactOptional(votesSchema),
  run: runSchema,
});

/** 200 of POST /questions/{id}/answer whose vote left no answer able to reach the quorum. */
export const noQuorumSchema = z.object({
  status: z.literal("no_quorum"),
  votes: votesSchema,
  run: runSchema,
});

/** 202 of POST /questions/{id}/answer: the vote is kept, the question waits for more agreeing answers. */
export const voteRecordedSchema = z.object({
  status: z.literal("pending"),
  waitingFor: z.int().check(z.gte(1), z.describe("How many more agreeing answers close it.")),
  votes: votesSchema,
});

/** 200 of POST /questions/{id}/cancel. */
export const cancelledSchema = z.object({
  status: z.literal("cancelled"),
  reason: cancelReasonSchema,
  run: runSchema,
});

/** 200 of GET /questions/{id}/wait: `pending` when the wait ran out first. */
export const waitResultSchema = z.object({
  status: questionStatusSchema,
  answers: z.exactOptional(answersSchema),
  reason: z.exactOptional(cancelReasonSchema),
  votes: z.exactOptional(votesSchema),
});

/** One problem with the input, at the dot-joined path of the offending value (`questions.0.options`). */
export const issueSchema = z.object({ path: z.string(), message: z.string() });

/**
 * An error body (docs/api.md, "Errors") whose `code` is one of `codes`. Open to fields added later, as error
 * details are: `issues` comes with INVALID_ARGUMENT and INVALID_ANSWER, `pendingQuestionId` with
 * SESSION_BUSY, and ALREADY_RESOLVED has the question's final `status` beside `error`.
 */
export function errorBodySchema(codes: readonly [string, ...string[]]) {
  const finalStatus = questionStatusSchema.check(z.describe("ALREADY_RESOLVED: how the question ended."));
  const has = (code: string) => codes.includes(code);
  const error = z.looseObject({
    code: z.enum(codes),
    message: z.string().check(z.describe("A sentence for a person.")),
    ...((has("INVALID_ARGUMENT") || has("INVALID_ANSWER")) && {
      issues: z.exactOptional(z.array(issueSchema).check(z.describe("One per problem, at its path."))),
    }),
    ...(has("SESSION_BUSY") && {
      pendingQuestionId: z.exactOptional(
        z.string().check(z.describe("SESSION_BUSY: the question the session is waiting on.")),
      ),
    }),
  });
  return z.looseObject({
    error,
    ...(has("ALREADY_RESOLVED") && {
      status: codes.length === 1 ? finalStatus : z.exactOptional(finalStatus),
    }),
  });
}
