import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { AskQuestion } from "../app/ask-question.ts";
import type { ResolveQuestion } from "../app/resolve-question.ts";
import { MAX_WAIT_MS } from "../app/wait-for-question.ts";
import { deliveryTargetSchema, ownerSchema, type QuestionRecord } from "../store/question-record.ts";
import type { QuestionStore } from "../store/question-store.ts";
import * as z from "../zod.ts";
import { HttpError } from "./http-errors.ts";
import { parseJsonBody } from "./middlewares.ts";
import { json } from "./responses.ts";

const shortText = z.string().check(z.minLength(1), z.maxLength(256));

const createBodySchema = z.strictObject({
  // The ask_user arguments are checked by normalizeAskUserArgs, which reports every problem by path.
  questions: z.unknown(),
  timeoutSeconds: z.optional(z.unknown()),
  id: z.optional(
    z.string().check(
      // Short enough to ride in every platform's button payload (Telegram: 64 bytes).
      z.regex(/^[A-Za-z0-9_-]{1,48}$/, { error: "id must be 1-48 characters of A-Z, a-z, 0-9, _ or -" }),
    ),
  ),
  owner: ownerSchema,
  sessionKey: z.optional(shortText),
  agentId: z.optional(shortText),
  runId: z.optional(shortText),
  deliverTo: z._default(z.array(deliveryTargetSchema).check(z.maxLength(10)), []),
});

const answerBodySchema = z.strictObject({ answers: z.unknown(), resolvedBy: z.optional(shortText) });
const cancelBodySchema = z.strictObject({
  reason: z._default(z.enum(["cancelled", "skipped"]), "cancelled"),
  resolvedBy: z.optional(shortText),
});
const listQuerySchema = z
  .strictObject({
    owner: z.optional(shortText),
    sessionKey: z.optional(shortText),
    agentId: z.optional(shortText),
  })
  .check(
    z.refine((q) => [q.owner, q.sessionKey, q.agentId].filter((v) => v !== undefined).length === 1, {
      error: "give exactly one of owner, sessionKey or agentId (listing everything would be a table scan)",
    }),
  );
const waitQuerySchema = z.strictObject({
  timeoutMs: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(MAX_WAIT_MS)), MAX_WAIT_MS),
});

export interface QuestionApiDeps {
  store: QuestionStore;
  askQuestion: AskQuestion;
  resolve: ResolveQuestion;
  waitForQuestion: (id: string, timeoutMs: number) => Promise<QuestionRecord>;
  now: () => number;
}

type Route = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * The question API of DESIGN.md §4, dispatched on API Gateway's `routeKey` (routes in serverless.yml).
 * Input is parsed with zod here; errors go to the one mapper in `http-errors.ts`.
 */
export function createQuestionApi(deps: QuestionApiDeps): Route {
  const idOf = (event: APIGatewayProxyEventV2): string => {
    const id = event.pathParameters?.id;
    if (!id) throw new HttpError(400, "INVALID_ARGUMENT", "The question id is missing from the path.");
    return id;
  };

  const routes: Record<string, Route> = {
    "POST /questions": async (event) => {
      const { questions, timeoutSeconds, ...meta } = createBodySchema.parse(parseJsonBody(event));
      const record = await deps.askQuestion({ args: argsOf(questions, timeoutSeconds), ...meta });
      return json(201, { id: record.id, status: "pending", expiresAtMs: record.expiresAtMs });
    },
    "GET /questions": async (event) => {
      const query = listQuerySchema.parse(event.queryStringParameters ?? {});
      const filter =
        query.owner !== undefined
          ? { owner: query.owner }
          : query.sessionKey !== undefined
            ? { sessionKey: query.sessionKey }
            : { agentId: query.agentId ?? "" };
      return json(200, { questions: await deps.store.listPending(filter, deps.now()) });
    },
    "GET /questions/{id}": async (event) => {
      const id = idOf(event);
      const record = await deps.store.get(id, deps.now());
      if (!record) throw new HttpError(404, "NOT_FOUND", `No question with id "${id}".`);
      return json(200, { question: record });
    },
    "POST /questions/{id}/answer": async (event) => {
      const body = answerBodySchema.parse(parseJsonBody(event));
      const { record } = await deps.resolve.answer(idOf(event), body.answers, {
        resolvedBy: apiResolvedBy(body.resolvedBy),
      });
      return json(200, { status: "answered", answers: record.answers });
    },
    "POST /questions/{id}/cancel": async (event) => {
      const body = cancelBodySchema.parse(parseJsonBody(event));
      const { record } = await deps.resolve.cancel(idOf(event), body.reason, {
        resolvedBy: apiResolvedBy(body.resolvedBy),
      });
      return json(200, { status: "cancelled", reason: record.reason });
    },
    "GET /questions/{id}/wait": async (event) => {
      const { timeoutMs } = waitQuerySchema.parse(event.queryStringParameters ?? {});
      const record = await deps.waitForQuestion(idOf(event), timeoutMs);
      return json(200, {
        status: record.status,
        ...(record.answers && { answers: record.answers }),
        ...(record.reason && { reason: record.reason }),
      });
    },
  };

  return async (event) => {
    const route = routes[event.routeKey];
    if (!route) throw new HttpError(404, "NOT_FOUND", `No route ${event.routeKey}.`);
    return route(event);
  };
}

/**
 * The audit value recorded for a question closed over the API. The caller's own `resolvedBy` is kept, but
 * under `api:`: chat webhooks record the platform-qualified user who answered (`telegram:42`), and an API
 * caller must not be able to write a value that reads like one.
 */
function apiResolvedBy(given: string | undefined): string {
  return given === undefined ? "api" : `api:${given}`;
}

/** The ask_user arguments from the body, with `timeoutSeconds` left out when absent. */
function argsOf(questions: unknown, timeoutSeconds: unknown): Record<string, unknown> {
  return timeoutSeconds === undefined ? { questions } : { questions, timeoutSeconds };
}
