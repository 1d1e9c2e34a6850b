/**
 * What the MCP tools return, as zod schemas: the source of the JSON Schemas the tools declare as
 * `outputSchema` (lib/mcp/tool-output-schemas.json, written by `npm run generate:schemas`). An MCP client
 * checks each result's `structuredContent` against it: the official SDK's client refuses a result that does
 * not fit. A tool error is a result too (`isError`), with its body as `structuredContent`, so every output
 * schema allows the error body beside the tool's own results.
 *
 * The schemas name every field Handraise sends; an error body may gain fields (a code's own detail), so
 * `error` alone allows more. No `type` is an array (some clients and model providers refuse one).
 */

import { RECORD_ID_PATTERN } from "../questions/question-record.ts";
import { askUserResultSchema } from "../questions/schema.ts";
import * as z from "../zod.ts";

const questionIdSchema = z.string().check(z.regex(RECORD_ID_PATTERN));

/** The ask_user result of a question that has ended (docs/ask-user.md, "Results"), with its id. */
const endedSchemas = askUserResultSchema.def.options.map((result) =>
  z.extend(result, { questionId: questionIdSchema }),
);

/** Still open after the call's wait: the model calls get_answer with this id. */
export const pendingResultSchema = z.strictObject({
  status: z.literal("pending"),
  questionId: questionIdSchema,
});

/** A tool error's body: the code, the sentence, and the code's detail (issue paths, the final status, …). */
export const toolErrorBodySchema = z.strictObject({
  error: z.looseObject({
    code: z.string(),
    message: z.string(),
    issues: z.optional(z.array(z.strictObject({ path: z.string(), message: z.string() }))),
    status: z.optional(z.string()),
  }),
});

/** ask_user's and get_answer's structuredContent: the result with its questionId, pending, or an error. */
export const questionResultSchema = z.union([...endedSchemas, pendingResultSchema, toolErrorBodySchema]);

/** cancel_question's: the question, now cancelled, or an error (ALREADY_RESOLVED, NOT_FOUND, …). */
export const cancelResultSchema = z.union([
  z.strictObject({
    status: z.literal("no_answer"),
    reason: z.literal("cancelled"),
    questionId: questionIdSchema,
  }),
  toolErrorBodySchema,
]);
