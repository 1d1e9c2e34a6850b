/**
 * The MCP server's tools: ask_user (the model tool's own name, description and JSON Schema), get_answer and
 * cancel_question, with every sentence they say to a model. Each call waits at most `waitSeconds` (at most
 * 25 s): longer than that, an MCP client's tool timeout could end the call, so a question still open is
 * returned as `pending` and the model calls get_answer again.
 */
import type { AskQuestion } from "../app/ask-question.ts";
import {
  AlreadyResolvedError,
  InvalidArgumentError,
  NotFoundError,
  SessionBusyError,
} from "../app/errors.ts";
import { resultOf } from "../app/question-result.ts";
import type { ResolveQuestion } from "../app/resolve-question.ts";
import type { WaitForQuestion } from "../app/wait-for-question.ts";
import { type ApiKey, askedByOf, maySee } from "../auth/api-keys.ts";
import { ToolInputError } from "../questions/index.ts";
import { type QuestionRecord, RECORD_ID_PATTERN } from "../questions/question-record.ts";
import { ASK_USER_TOOL_NAME } from "../questions/schema.ts";
import { ASK_USER_TOOL_DESCRIPTION, askUserToolDefinitions } from "../questions/tool-definitions.ts";
import { toolResultSummary } from "../questions/tool-result.ts";
import type { Telemetry } from "../telemetry/telemetry.ts";
import { issuesOf, summarize } from "../validation-messages.ts";
import * as z from "../zod.ts";
import type { Asker } from "./asker.ts";
import outputSchemas from "./tool-output-schemas.json" with { type: "json" };

/** The most a tool call waits for the answer, whatever it asks for: under API Gateway's 30 s. */
export const MAX_MCP_WAIT_SECONDS = 25;

export interface McpToolDeps {
  askQuestion: AskQuestion;
  resolve: ResolveQuestion;
  waitForQuestion: WaitForQuestion;
  /** The default wait of a call (HANDRAISE_MCP_WAIT_SECONDS). */
  waitSeconds: number;
  /** Where an unexpected error goes (logged and counted): the client is told only that one happened. */
  telemetry: Pick<Telemetry, "internalError">;
}

/**
 * What the client is told of an unexpected error (DynamoDB refusing, a bug): that it happened, never its
 * message, which may name roles, tables or accounts.
 */
export const INTERNAL_ERROR_MESSAGE =
  "Handraise could not complete this call because of an internal error. It has been logged; try again later.";

/** An MCP `tools/call` result. */
export interface ToolCallResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const questionIdProperty = {
  type: "string",
  pattern: RECORD_ID_PATTERN.source,
  description: "The questionId ask_user returned with status pending.",
};
const waitSecondsProperty = {
  type: "integer",
  minimum: 0,
  maximum: MAX_MCP_WAIT_SECONDS,
  description: `How long to wait for the answer before returning pending again (at most ${MAX_MCP_WAIT_SECONDS}).`,
};

/**
 * The schemas of what each tool returns (tool errors included), generated from lib/mcp/tool-results.ts by
 * `npm run generate:schemas`.
 */
const questionOutputSchema = outputSchemas.questionResult;
const cancelOutputSchema = outputSchemas.cancelResult;

/**
 * The tools as `tools/list` returns them, each with its `outputSchema` and MCP's behaviour hints: ask_user
 * reaches people outside (open world) and asks anew each call; get_answer only reads; cancel_question
 * withdraws a question from the person's chats for good (destructive), and a second call changes nothing.
 */
export function mcpToolList(waitSeconds: number) {
  return [
    {
      name: ASK_USER_TOOL_NAME,
      description: `${ASK_USER_TOOL_DESCRIPTION} If no answer comes within ${waitSeconds} seconds, the result is {"status":"pending","questionId":…}: then call get_answer with that questionId.`,
      inputSchema: askUserToolDefinitions.anthropic.input_schema,
      outputSchema: questionOutputSchema,
      annotations: {
        title: "Ask the user",
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    {
      name: "get_answer",
      description:
        "Wait for the answer to a question ask_user returned as pending. Returns the ask_user result, or pending again.",
      inputSchema: {
        type: "object",
        properties: { questionId: questionIdProperty, waitSeconds: waitSecondsProperty },
        required: ["questionId"],
        additionalProperties: false,
      },
      outputSchema: questionOutputSchema,
      annotations: {
        title: "Get the user's answer",
        readOnlyHint: true,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    {
      name: "cancel_question",
      description: "Withdraw a question that is still waiting for the user (when it is no longer needed).",
      inputSchema: {
        type: "object",
        properties: { questionId: questionIdProperty },
        required: ["questionId"],
        additionalProperties: false,
      },
      outputSchema: cancelOutputSchema,
      annotations: {
        title: "Withdraw a question",
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: true,
      },
    },
  ];
}

/**
 * A tool result: the sentence for the model, then on its last line the JSON of `structured` — exactly the
 * result's `structuredContent`, so a client that reads only the text gets the same data.
 */
function result(sentence: string, structured: Record<string, unknown>, isError = false): ToolCallResult {
  return {
    content: [{ type: "text", text: `${sentence}\n${JSON.stringify(structured)}` }],
    structuredContent: structured,
    ...(isError && { isError: true }),
  };
}

/** A tool error the model can read: the sentence, then the machine-readable body. */
function toolError(code: string, message: string, extra: Record<string, unknown> = {}): ToolCallResult {
  return result(message, { error: { code, message, ...extra } }, true);
}

/** The result of a question, with its id: final, or pending with the sentence that says what to do next. */
function outcome(record: QuestionRecord): ToolCallResult {
  if (record.status === "pending") {
    return result(
      `The user has not answered yet. Call get_answer with questionId "${record.id}" to keep waiting.`,
      { status: "pending", questionId: record.id },
    );
  }
  const ended = resultOf(record);
  return result(toolResultSummary(ended, record.questions), { ...ended, questionId: record.id });
}

/** get_answer's and cancel_question's arguments, as their `inputSchema` above declares them. */
const questionIdArg = z
  .string()
  .check(z.regex(RECORD_ID_PATTERN, "questionId must be the id ask_user returned"));
const getAnswerArgsSchema = z.strictObject({
  questionId: questionIdArg,
  waitSeconds: z.optional(z.int().check(z.gte(0), z.lte(MAX_MCP_WAIT_SECONDS))),
});
const cancelArgsSchema = z.strictObject({ questionId: questionIdArg });

/** The arguments of get_answer / cancel_question; a tool error naming each bad one otherwise. */
function questionArgs<T extends z.ZodMiniType>(schema: T, args: unknown): z.output<T> | ToolCallResult {
  const parsed = schema.safeParse(args);
  if (parsed.success) return parsed.data;
  const issues = issuesOf(parsed.error.issues);
  return toolError("INVALID_ARGUMENT", summarize("Invalid arguments", issues), { issues });
}

/**
 * Runs one tool call for `asker`, with the API key the request presented: the questions it asks are
 * `api:<key name>`'s, and an `ask` key reads and cancels only those (another's is NOT_FOUND, as the question
 * API's 404). Expected failures become tool errors with their codes (`isError`); an unexpected one becomes
 * the opaque `INTERNAL` tool error, and is reported.
 */
export function createMcpTools(deps: McpToolDeps) {
  const waitMs = (seconds = deps.waitSeconds) => Math.min(seconds, MAX_MCP_WAIT_SECONDS) * 1000;

  async function call(
    name: string,
    args: unknown,
    asker: Asker | { problem: string },
    key: ApiKey,
  ): Promise<ToolCallResult> {
    const visible = (record: QuestionRecord) => maySee(key, record);
    try {
      switch (name) {
        case ASK_USER_TOOL_NAME: {
          if ("problem" in asker) return toolError("NO_ASKER", asker.problem);
          const record = await deps.askQuestion({
            args,
            owner: asker.owner,
            deliverTo: asker.deliverTo,
            context: asker.context,
            askedBy: askedByOf(key),
            listUnderAsker: key.scope === "ask",
            mayName: visible,
          });
          if (record.status !== "pending") return outcome(record);
          return outcome(await deps.waitForQuestion(record.id, waitMs()));
        }
        case "get_answer": {
          const parsed = questionArgs(getAnswerArgsSchema, args);
          if ("content" in parsed) return parsed;
          return outcome(await deps.waitForQuestion(parsed.questionId, waitMs(parsed.waitSeconds), visible));
        }
        case "cancel_question": {
          const parsed = questionArgs(cancelArgsSchema, args);
          if ("content" in parsed) return parsed;
          const { record } = await deps.resolve.cancel(parsed.questionId, "cancelled", {
            resolvedBy: "mcp",
            resolvedByKey: key.name,
            visible,
          });
          return outcome(record);
        }
        default:
          return toolError("UNKNOWN_TOOL", `There is no tool named "${name}".`);
      }
    } catch (error) {
      if (error instanceof ToolInputError) {
        // Its text is the sentence every ask_user caller gets, ending in the JSON of its error body.
        return {
          content: [{ type: "text", text: error.toToolErrorText() }],
          structuredContent: error.toErrorBody() as unknown as Record<string, unknown>,
          isError: true,
        };
      }
      if (error instanceof InvalidArgumentError)
        return toolError(error.code, error.message, { issues: error.issues });
      if (error instanceof AlreadyResolvedError)
        return toolError(error.code, error.message, { status: error.status });
      if (error instanceof SessionBusyError) {
        const pending = error.pendingId;
        return toolError(
          error.code,
          error.message,
          pending === undefined ? {} : { pendingQuestionId: pending },
        );
      }
      if (error instanceof NotFoundError) return toolError(error.code, error.message);
      deps.telemetry.internalError("unexpected error in an MCP tool call", error, { tool: name });
      return toolError("INTERNAL", INTERNAL_ERROR_MESSAGE);
    }
  }

  return { list: () => mcpToolList(deps.waitSeconds), call };
}

export type McpTools = ReturnType<typeof createMcpTools>;
