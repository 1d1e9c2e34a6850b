import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { $ZodError } from "zod/v4/core";
import type { AskQuestion } from "../app/ask-question.ts";
import { InvalidArgumentError, RequesterCannotAnswerError } from "../app/errors.ts";
import type { Resolution, ResolveQuestion } from "../app/resolve-question.ts";
import { MAX_WAIT_MS, type WaitForQuestion } from "../app/wait-for-question.ts";
import { type ApiKey, askedByOf, keyAnswerRefusal, maySee } from "../auth/api-keys.ts";
import { type NotifyUrlPolicy, notifyUrlProblem } from "../notify/notify-url.ts";
import {
  answerersSchema,
  contextSchema,
  deliveryTargetSchema,
  escalationSchema,
  isRequester,
  ownerSchema,
  type QuestionRecord,
  quorumSchema,
  RECORD_ID_PATTERN,
  remindAfterSecondsSchema,
} from "../questions/question-record.ts";
import type { PendingFilters, QuestionStore } from "../store/question-store.ts";
import type { AnswerLinks } from "../web/answer-link.ts";
import * as z from "../zod.ts";
import { HttpError } from "./http-errors.ts";
import { apiKeyOf, insufficientScope, parseJsonBody } from "./middlewares.ts";
import { encodePageCursor, pageCursorSchema } from "./page-cursor.ts";
import type {
  answeredSchema,
  noQuorumSchema,
  questionPageSchema,
  questionReadSchema,
  voteRecordedSchema,
  waitResultSchema,
} from "./response-schemas.ts";
import { json } from "./responses.ts";

const shortText = z.string().check(z.minLength(1), z.maxLength(256));

const createBodySchema = z.strictObject({
  // The ask_user arguments are checked by normalizeAskUserArgs, which reports every problem by path.
  questions: z.unknown(),
  timeoutSeconds: z.optional(z.unknown()),
  id: z.optional(
    z
      .string()
      .check(z.regex(RECORD_ID_PATTERN, { error: "id must be 1-48 characters of A-Z, a-z, 0-9, _ or -" })),
  ),
  owner: ownerSchema,
  sessionKey: z.optional(shortText),
  agentId: z.optional(shortText),
  runId: z.optional(shortText),
  deliverTo: z._default(z.array(deliveryTargetSchema).check(z.maxLength(10)), []),
  // Each before the deadline (checked with the timeout, by the ask): 400 INVALID_ARGUMENT otherwise.
  remindAfterSeconds: z.optional(remindAfterSecondsSchema),
  escalate: z.optional(escalationSchema),
  // Where the result is POSTed, signed, when the question ends; the URL is checked by notifyUrlProblem.
  notify: z.optional(z.strictObject({ url: z.string() })),
  // The person the agent acts for, who may never answer it (checked against the answerers by the ask).
  requestedBy: z.optional(ownerSchema),
  // Who is asking and why, shown to the person above the questions (trimmed, 1-500 characters).
  context: z.optional(contextSchema),
  // Who else may answer (people and groups, owners distinct) and how many agreeing answers close it.
  answerers: z.optional(answerersSchema),
  quorum: z.optional(quorumSchema),
});

const answerBodySchema = z.strictObject({ answers: z.unknown(), resolvedBy: z.optional(shortText) });
const cancelBodySchema = z.strictObject({
  reason: z._default(z.enum(["cancelled", "skipped"]), "cancelled"),
  resolvedBy: z.optional(shortText),
});
const PAGE_SIZE = { default: 50, max: 100 };
const pageSizeError = `limit must be a whole number from 1 to ${PAGE_SIZE.max}`;
const listQuerySchema = z.strictObject({
  owner: z.optional(shortText),
  sessionKey: z.optional(shortText),
  agentId: z.optional(shortText),
  limit: z._default(
    z.coerce
      .number({ error: pageSizeError })
      .check(
        z.int({ error: pageSizeError }),
        z.gte(1, { error: pageSizeError }),
        z.lte(PAGE_SIZE.max, { error: pageSizeError }),
      ),
    PAGE_SIZE.default,
  ),
  cursor: z.optional(pageCursorSchema),
});
const waitQuerySchema = z.strictObject({
  timeoutMs: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(MAX_WAIT_MS)), MAX_WAIT_MS),
});

export interface QuestionApiDeps {
  store: QuestionStore;
  askQuestion: AskQuestion;
  resolve: ResolveQuestion;
  waitForQuestion: WaitForQuestion;
  /** The answer page's link of a question, returned as `answerUrl` (absent when the page is off). */
  links: AnswerLinks;
  /** Which notify URLs are accepted (deployed: public https only). */
  notifyPolicy: NotifyUrlPolicy;
  now: () => number;
}

type Route = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * The question API (docs/api.md), dispatched on API Gateway's `routeKey` (routes in serverless.yml).
 * Input is parsed with zod here; errors go to the one mapper in `http-errors.ts`. Every route runs behind
 * apiKeyAuth, and obeys the presented key's scope (lib/auth/api-keys.ts): to an `ask` key another key's
 * question does not exist (404), and it answers nothing.
 */
export function createQuestionApi(deps: QuestionApiDeps): Route {
  const idOf = (event: APIGatewayProxyEventV2): string => {
    const id = event.pathParameters?.id;
    if (!id) throw new HttpError(400, "INVALID_ARGUMENT", "The question id is missing from the path.");
    // No question has another shape: such an id is not found, and never reaches DynamoDB (whose key limit a
    // long id would break with a 500).
    if (!RECORD_ID_PATTERN.test(id)) throw new HttpError(404, "NOT_FOUND", "No question with that id.");
    return id;
  };

  /**
   * The question, if `key` may see it; otherwise the same 404 as for no question at all, so an `ask` key
   * learns nothing of other keys' questions (not even that they exist).
   */
  const visibleTo = async (key: ApiKey, id: string): Promise<QuestionRecord> => {
    const record = await deps.store.get(id, deps.now());
    if (!record || !maySee(key, record))
      throw new HttpError(404, "NOT_FOUND", `No question with id "${id}".`);
    return record;
  };

  /** The person the question was asked for may not close it over the API either, under any key. */
  const refuseRequester = (record: QuestionRecord, resolvedBy: string | undefined): void => {
    if (resolvedBy !== undefined && isRequester(record, resolvedBy)) {
      throw new RequesterCannotAnswerError(record.id);
    }
  };

  /**
   * The owner's answer link, for a key that could answer the question itself (`admin`; `answer` on another
   * key's question). The link answers as the owner, so handing it to the key that asked — an agent's — would
   * let the agent approve its own question past INSUFFICIENT_SCOPE and SELF_ANSWER, recorded as the owner.
   */
  const answerUrlFor = async (key: ApiKey, record: QuestionRecord) =>
    keyAnswerRefusal(key, record) === undefined ? deps.links.urlFor(record) : undefined;

  const routes: Record<string, Route> = {
    "POST /questions": async (event) => {
      const key = apiKeyOf(event);
      const { questions, timeoutSeconds, ...meta } = createBodySchema.parse(parseJsonBody(event));
      const notifyProblem = meta.notify && notifyUrlProblem(meta.notify.url, deps.notifyPolicy);
      if (notifyProblem) throw new InvalidArgumentError("notify.url", `notify.url ${notifyProblem}.`);
      const record = await deps.askQuestion({
        args: argsOf(questions, timeoutSeconds),
        ...meta,
        askedBy: askedByOf(key),
        // Only an `ask` key's listing is limited to its own questions, so only its questions need its index.
        listUnderAsker: key.scope === "ask",
        mayName: (pending) => maySee(key, pending),
      });
      const answerUrl = await answerUrlFor(key, record);
      // delivery_failed when no target took it: the id is still the caller's, to read the record back.
      return json(201, {
        id: record.id,
        status: record.status,
        expiresAtMs: record.expiresAtMs,
        ...(answerUrl !== undefined && { answerUrl }),
      });
    },
    "GET /questions": async (event) => {
      const key = apiKeyOf(event);
      const { limit, cursor, ...filters } = parseQuery(listQuerySchema, event);
      const own = key.scope === "ask" ? { askedBy: askedByOf(key) } : {};
      const page = await deps.store.listPendingPage(
        { filters: { ...atLeastOneFilter(filters), ...own }, limit, after: cursor },
        deps.now(),
      );
      return json(200, {
        questions: page.questions,
        ...(page.next && { nextCursor: encodePageCursor(page.next) }),
      } satisfies z.output<typeof questionPageSchema>);
    },
    "GET /questions/{id}": async (event) => {
      const key = apiKeyOf(event);
      const record = await visibleTo(key, idOf(event));
      const answerUrl = await answerUrlFor(key, record);
      return json(200, {
        question: record,
        ...(answerUrl !== undefined && { answerUrl }),
      } satisfies z.output<typeof questionReadSchema>);
    },
    "POST /questions/{id}/answer": async (event) => {
      const key = apiKeyOf(event);
      const id = idOf(event);
      // Refused before anything is read: an `ask` key learns nothing of the question by trying.
      if (key.scope === "ask") {
        throw insufficientScope(
          "INSUFFICIENT_SCOPE",
          "This key's scope is ask: it may not answer questions. Answering takes a key with scope answer or admin.",
        );
      }
      const body = answerBodySchema.parse(parseJsonBody(event));
      const question = await visibleTo(key, id);
      if (keyAnswerRefusal(key, question) === "self_answer") {
        throw insufficientScope(
          "SELF_ANSWER",
          "This key asked this question, so it may not answer it: no agent answers its own question. A person answers it, or another key.",
        );
      }
      refuseRequester(question, body.resolvedBy);
      // With a quorum this is the key's vote, one per key, recorded as every API answer is (`api:…`).
      const { record, more, run } = await deps.resolve.answer(id, body.answers, {
        resolvedBy: apiResolvedBy(body.resolvedBy),
        resolvedByKey: key.name,
        loaded: question,
      });
      // With a quorum: a vote that does not close is accepted, and the question goes on waiting.
      if (more !== undefined && record.status === "pending") {
        return json(202, {
          status: "pending",
          waitingFor: more,
          votes: record.votes ?? [],
        } satisfies z.output<typeof voteRecordedSchema>);
      }
      if (record.status === "no_quorum") {
        return json(200, {
          status: "no_quorum",
          votes: record.votes ?? [],
          ...runNotWaiting(run),
        } satisfies z.output<typeof noQuorumSchema>);
      }
      return json(200, {
        status: "answered",
        answers: record.answers ?? {},
        ...(record.votes !== undefined && { votes: record.votes }),
        ...runNotWaiting(run),
      } satisfies z.output<typeof answeredSchema>);
    },
    "POST /questions/{id}/cancel": async (event) => {
      const key = apiKeyOf(event);
      const id = idOf(event);
      const body = cancelBodySchema.parse(parseJsonBody(event));
      // `skipped` says a person chose not to answer: an agent's key withdraws its question, it skips nothing.
      if (key.scope === "ask" && body.reason === "skipped") {
        throw insufficientScope(
          "INSUFFICIENT_SCOPE",
          'This key\'s scope is ask: it may cancel its own questions, not skip them for a person. Leave out reason, or send "cancelled".',
        );
      }
      const question = await visibleTo(key, id);
      refuseRequester(question, body.resolvedBy);
      const { record, run } = await deps.resolve.cancel(id, body.reason, {
        resolvedBy: apiResolvedBy(body.resolvedBy),
        resolvedByKey: key.name,
        loaded: question,
      });
      return json(200, { status: "cancelled", reason: record.reason, ...runNotWaiting(run) });
    },
    "GET /questions/{id}/wait": async (event) => {
      const key = apiKeyOf(event);
      const id = idOf(event);
      const { timeoutMs } = parseQuery(waitQuerySchema, event);
      const record = await deps.waitForQuestion(id, timeoutMs, (question) => maySee(key, question));
      return json(200, {
        status: record.status,
        ...(record.answers && { answers: record.answers }),
        ...(record.reason && { reason: record.reason }),
        ...(record.votes && { votes: record.votes }),
      } satisfies z.output<typeof waitResultSchema>);
    },
  };

  return async (event) => {
    const route = routes[event.routeKey];
    if (!route) throw new HttpError(404, "NOT_FOUND", `No route ${event.routeKey}.`);
    return route(event);
  };
}

/**
 * `run: "not_waiting"` when the run that asked said so; nothing otherwise — a resume that failed for a
 * passing reason is the stream's to retry, and the answer stands either way.
 */
function runNotWaiting(run: Resolution["run"]): { run?: "not_waiting" } {
  return run === "not_waiting" ? { run } : {};
}

/** The listing's filters; without one it would have to read the whole table, which Handraise never does. */
function atLeastOneFilter(filters: {
  owner?: string | undefined;
  sessionKey?: string | undefined;
  agentId?: string | undefined;
}): PendingFilters {
  const { owner, sessionKey, agentId } = filters;
  if (owner !== undefined) return { ...filters, owner };
  if (sessionKey !== undefined) return { ...filters, sessionKey };
  if (agentId !== undefined) return { ...filters, agentId };
  throw new InvalidArgumentError(
    "query",
    "Give at least one of owner, sessionKey or agentId in the query: listing every question would be a table scan.",
  );
}

/**
 * The query string, parsed: its problems are at `query.<name>` (`limit` alone could be a body field), for
 * the one error mapper (http-errors.ts) to word.
 */
function parseQuery<T extends z.ZodMiniType>(schema: T, event: APIGatewayProxyEventV2): z.output<T> {
  const parsed = schema.safeParse(event.queryStringParameters ?? {});
  if (parsed.success) return parsed.data;
  throw new $ZodError(parsed.error.issues.map((issue) => ({ ...issue, path: ["query", ...issue.path] })));
}

/**
 * The audit value recorded for a question closed, or a vote cast, over the API. The caller's own
 * `resolvedBy` is kept, but under `api:`: chat webhooks record the platform-qualified user who answered
 * (`telegram:42`), and an API caller must not be able to write a value that reads like one.
 */
function apiResolvedBy(given: string | undefined): string {
  return given === undefined ? "api" : `api:${given}`;
}

/** The ask_user arguments from the body, with `timeoutSeconds` left out when absent. */
function argsOf(questions: unknown, timeoutSeconds: unknown): Record<string, unknown> {
  return timeoutSeconds === undefined ? { questions } : { questions, timeoutSeconds };
}

/**
 * The schemas the routes parse their input with, for the API's OpenAPI document (lib/http/openapi.ts), so
 * that it describes exactly what is checked here.
 */
export const questionApiInput = {
  createBody: createBodySchema,
  listQuery: listQuerySchema,
  answerBody: answerBodySchema,
  cancelBody: cancelBodySchema,
  waitQuery: waitQuerySchema,
} as const;
