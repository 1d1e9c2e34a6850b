/**
 * The OpenAPI 3.1 description of the question API and `/mcp` (served as `GET /openapi.json`, docs/api.md),
 * generated from the zod schemas the routes parse their input with (lib/http/question-api.ts, the ask_user
 * arguments of lib/questions/schema.ts) and those their bodies are built to (lib/http/response-schemas.ts, the
 * record of lib/questions/question-record.ts): a rule changed there is changed here.
 *
 * zod writes JSON Schema draft 2020-12, the dialect of OpenAPI 3.1's schemas, so its output goes in as it is.
 */
import packageJson from "../../package.json" with { type: "json" };
import {
  jsonRpcBodySchema,
  jsonRpcResponseBodySchema,
  jsonRpcTransportErrorSchema,
} from "../mcp/json-rpc.ts";
import { MAX_MCP_WAIT_SECONDS } from "../mcp/mcp-tools.ts";
import { ownerSchema, RECORD_ID_PATTERN } from "../questions/question-record.ts";
import { answersSchema, askUserArgsSchema } from "../questions/schema.ts";
import * as z from "../zod.ts";
import { MAX_BODY_BYTES } from "./middlewares.ts";
import { questionApiInput } from "./question-api.ts";
import {
  answeredSchema,
  cancelledSchema,
  errorBodySchema,
  noQuorumSchema,
  questionCreatedSchema,
  questionPageSchema,
  questionReadSchema,
  voteRecordedSchema,
  waitResultSchema,
} from "./response-schemas.ts";

type Json = Record<string, unknown>;

export interface OpenApiOptions {
  /** The API's base URL (the deployment's public URL); without it the document names its own host ("/"). */
  serverUrl?: string | undefined;
}

/** The security scheme's name; each operation lists the least scope it needs (OpenAPI 3.1 "role names"). */
const BEARER = "apiKey";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * zod's JSON Schema, as an OpenAPI schema object: without the dialect and id of a standalone schema (the
 * document sets the dialect).
 */
function strip(schema: Json): Json {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}
/**
 * The conversion: of what a route takes (`input`: defaults optional) or gives (`output`), without the ±2^53
 * bounds zod gives every integer (true of any JSON number, and noise in a generated client).
 */
const params = (io: "input" | "output") => ({
  io,
  override: ({ jsonSchema }: { jsonSchema: { minimum?: unknown; maximum?: unknown } }) => {
    if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
    if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
  },
});
const jsonSchemaOf = (schema: z.ZodMiniType, io: "input" | "output"): Json =>
  strip(z.toJSONSchema(schema, params(io)) as Json);

/** Named schemas, each converted once and referenced from the operations (`#/components/schemas/<name>`). */
function componentSchemas(): Record<string, Json> {
  const requests = z.registry<{ id: string }>();
  // The body POST /questions parses, with the ask_user arguments it hands to normalizeAskUserArgs (which
  // checks them with askUserArgsSchema) in place of the `unknown` it takes them as.
  requests.add(z.extend(questionApiInput.createBody, askUserArgsSchema.shape), {
    id: "CreateQuestionRequest",
  });
  // `answers` is checked against the question's own questions (validateAnswers): its shape is answersSchema.
  requests.add(z.extend(questionApiInput.answerBody, { answers: answersSchema }), { id: "AnswerRequest" });
  requests.add(questionApiInput.cancelBody, { id: "CancelRequest" });
  requests.add(jsonRpcBodySchema, { id: "JsonRpcRequest" });

  const responses = z.registry<{ id: string }>();
  responses.add(questionCreatedSchema, { id: "QuestionCreated" });
  responses.add(questionReadSchema.shape.question, { id: "QuestionRecord" });
  responses.add(questionReadSchema, { id: "QuestionRead" });
  responses.add(questionPageSchema, { id: "QuestionPage" });
  responses.add(answeredSchema, { id: "Answered" });
  responses.add(noQuorumSchema, { id: "NoQuorum" });
  responses.add(voteRecordedSchema, { id: "VoteRecorded" });
  responses.add(cancelledSchema, { id: "Cancelled" });
  responses.add(waitResultSchema, { id: "WaitResult" });
  responses.add(jsonRpcResponseBodySchema, { id: "JsonRpcResponse" });

  const uri = (id: string) => `#/components/schemas/${id}`;
  const converted = {
    ...z.toJSONSchema(requests, { ...params("input"), uri }).schemas,
    ...z.toJSONSchema(responses, { ...params("output"), uri }).schemas,
  };
  return Object.fromEntries(Object.entries(converted).map(([id, schema]) => [id, strip(schema as Json)]));
}

/** A JSON response whose body is an error of one of `codes` (docs/api.md, "Errors"). */
function documentedError(description: string, codes: readonly [string, ...string[]], headers?: Json): Json {
  return {
    description,
    ...(headers && { headers }),
    content: { "application/json": { schema: jsonSchemaOf(errorBodySchema(codes), "output") } },
  };
}

const jsonContent = (schema: Json, examples?: Json) => ({
  "application/json": { schema, ...(examples && { examples }) },
});

/** Query parameters from the schema a route parses its query string with. */
function queryParameters(schema: z.ZodMiniType, descriptions: Record<string, string>): Json[] {
  const object = jsonSchemaOf(schema, "input") as { properties: Record<string, Json>; required?: string[] };
  return Object.entries(object.properties).map(([name, property]) => ({
    name,
    in: "query",
    required: object.required?.includes(name) ?? false,
    ...(descriptions[name] && { description: descriptions[name] }),
    schema: property,
  }));
}

const SCOPES = `Every key has a name and one scope:
- \`ask\`: ask (\`POST /questions\`, \`/mcp\`); read, list, wait for and cancel the questions this key asked.
  Another key's question does not exist for it (404).
- \`answer\`: all of \`ask\`, and answer or cancel any question, except answer one it asked itself.
- \`admin\`: every route, every question.

Each operation lists the least scope it needs; a wider one will do. A missing or wrong key is a 401 with
\`WWW-Authenticate: Bearer realm="handraise"\`; a key whose scope may not answer, a 403 with
\`WWW-Authenticate: Bearer error="insufficient_scope"\`.`;

/**
 * The document. Pure: the same input gives the same document, so its ETag is stable across cold starts.
 *
 * @example
 * const document = openApiDocument({ serverUrl: "https://abc123.execute-api.eu-west-1.amazonaws.com" });
 */
export function openApiDocument(options: OpenApiOptions = {}): Json {
  const unauthorized = { $ref: "#/components/responses/Unauthorized" };
  const notFound = { $ref: "#/components/responses/NotFound" };
  const tooLarge = { $ref: "#/components/responses/PayloadTooLarge" };
  const throttled = { $ref: "#/components/responses/TooManyRequests" };
  const internal = { $ref: "#/components/responses/Internal" };
  const idParameter = { $ref: "#/components/parameters/QuestionId" };
  const scope = (name: "ask" | "answer") => [{ [BEARER]: [name] }];
  const bodyOf = (name: string, examples?: Json) => ({
    required: true,
    content: jsonContent(ref(name), examples),
  });

  return {
    openapi: "3.1.0",
    info: {
      title: "Handraise API",
      version: packageJson.version,
      summary: "Ask a person 1-3 structured questions in the chat they use, and get the answer back.",
      description: `The question API (for programs) and the MCP server (for MCP clients) of a Handraise deployment.
Bodies are JSON objects of at most ${MAX_BODY_BYTES / 1024} KiB; a field a route does not know is refused
(400 \`INVALID_ARGUMENT\` at its path). Every JSON response carries \`Cache-Control: no-store\`, and no
response ever contains a task token. The answer page (\`/answer/{id}\`, HTML for browsers) and the chat
webhooks (\`/webhooks/…\`, for the platforms) are not described here: see docs/api.md.`,
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: options.serverUrl ?? "/", description: "This deployment" }],
    tags: [
      { name: "questions", description: "Ask, read, list, answer, cancel and wait for questions." },
      { name: "mcp", description: "The MCP server: Streamable HTTP, stateless, JSON responses." },
      { name: "description", description: "This document." },
    ],
    paths: {
      "/questions": {
        post: {
          operationId: "createQuestion",
          tags: ["questions"],
          summary: "Ask a question",
          description: `Stores the question, delivers it to every target, and answers once at least one target has it.
A question asked here has no task token: read its answer with getQuestion or waitForQuestion. A target on a
channel the deployment does not enable, a reminder or escalation at or past the deadline, or a
\`requestedBy\` who would be the only one able to answer is a 400 \`INVALID_ARGUMENT\` at its path, and
nothing is stored.`,
          security: scope("ask"),
          requestBody: bodyOf("CreateQuestionRequest", {
            release: {
              summary: "One question, delivered nowhere but the answer page",
              value: {
                owner: "web:alice",
                sessionKey: "release-1.4",
                timeoutSeconds: 600,
                questions: [
                  {
                    id: "deploy_target",
                    header: "Deploy to",
                    question: "Where should release 1.4 go?",
                    options: [{ label: "Staging (Recommended)" }, { label: "Production" }],
                  },
                ],
              },
            },
          }),
          responses: {
            "201": {
              description: "Asked (or stored as delivery_failed).",
              content: jsonContent(ref("QuestionCreated")),
            },
            "400": documentedError("The body does not fit (with `issues`), or is not JSON.", [
              "INVALID_ARGUMENT",
              "INVALID_JSON",
            ]),
            "401": unauthorized,
            "409": documentedError(
              "The id is taken, or the session already has a question waiting (ask again once it has ended).",
              ["ID_IN_USE", "SESSION_BUSY"],
            ),
            "413": tooLarge,
            "429": throttled,
            "500": internal,
          },
        },
        get: {
          operationId: "listQuestions",
          tags: ["questions"],
          summary: "List the pending questions",
          description: `The questions still waiting, oldest first, filtered by at least one of owner, sessionKey and
agentId (several combine with AND). An \`ask\` key's listing holds only the questions it asked. Records in a
listing leave out \`answerers\`, \`askedBy\` and \`requestedBy\`.`,
          security: scope("ask"),
          parameters: queryParameters(questionApiInput.listQuery, {
            limit: "Page size.",
            cursor: "The nextCursor of the page before (opaque).",
          }),
          responses: {
            "200": { description: "A page.", content: jsonContent(ref("QuestionPage")) },
            "400": documentedError("No filter, a bad limit or cursor, or an unknown parameter.", [
              "INVALID_ARGUMENT",
            ]),
            "401": unauthorized,
            "429": throttled,
            "500": internal,
          },
        },
      },
      "/questions/{id}": {
        parameters: [idParameter],
        get: {
          operationId: "getQuestion",
          tags: ["questions"],
          summary: "Read a question",
          description: "The question as stored, and its owner's answer page link.",
          security: scope("ask"),
          responses: {
            "200": { description: "The question.", content: jsonContent(ref("QuestionRead")) },
            "401": unauthorized,
            "404": notFound,
            "429": throttled,
            "500": internal,
          },
        },
      },
      "/questions/{id}/answer": {
        parameters: [idParameter],
        post: {
          operationId: "answerQuestion",
          tags: ["questions"],
          summary: "Answer a question",
          description: `Every answer an array of values, also for a single-select question. A value equal to an option's
label (ignoring case) is recorded as that label; anything else is kept as the person's own answer. First
answer wins. Recorded with \`resolvedBy\` \`api:<resolvedBy>\` (or \`api\`) and the key's name as
\`resolvedByKey\`. With a \`quorum\` above 1 the answer is the key's vote, recorded the same way (one per key,
whatever \`resolvedBy\` names): 202 while the question waits for more agreeing answers; 200 \`answered\` when this vote makes
\`quorum\` agree, or \`no_quorum\` when no answer can reach it any more.`,
          security: scope("answer"),
          requestBody: bodyOf("AnswerRequest", {
            staging: { value: { answers: { deploy_target: ["Staging"] }, resolvedBy: "release-dashboard" } },
          }),
          responses: {
            "200": {
              description: "Answered; with a quorum, the vote that closed it (answered or no_quorum).",
              content: jsonContent({ oneOf: [ref("Answered"), ref("NoQuorum")] }),
            },
            "202": {
              description:
                "With a quorum: the vote is kept, and the question waits for more agreeing answers.",
              content: jsonContent(ref("VoteRecorded")),
            },
            "400": documentedError(
              "The answers do not fit the questions (the question stays pending), the body does not fit, or it is not JSON.",
              ["INVALID_ANSWER", "INVALID_ARGUMENT", "INVALID_JSON"],
            ),
            "401": unauthorized,
            "403": documentedError(
              "The key's scope is ask (INSUFFICIENT_SCOPE), the key asked this question itself (SELF_ANSWER), resolvedBy is the question's requestedBy (REQUESTER_CANNOT_ANSWER). Nothing changes.",
              ["INSUFFICIENT_SCOPE", "SELF_ANSWER", "REQUESTER_CANNOT_ANSWER"],
              {
                "WWW-Authenticate": {
                  description:
                    'With INSUFFICIENT_SCOPE and SELF_ANSWER: `Bearer error="insufficient_scope"`.',
                  schema: { type: "string" },
                },
              },
            ),
            "404": notFound,
            "409": documentedError(
              "The question has already ended: `status` says how (ALREADY_RESOLVED); or, with a quorum, this key has already voted on it (ALREADY_ANSWERED). Nothing changes.",
              ["ALREADY_RESOLVED", "ALREADY_ANSWERED"],
            ),
            "413": documentedError(
              `The body is over ${MAX_BODY_BYTES / 1024} KiB and nothing of it was read (PAYLOAD_TOO_LARGE); or, with a quorum, the question's votes are at their size budget and this one was not counted (VOTES_FULL). Nothing changes.`,
              ["PAYLOAD_TOO_LARGE", "VOTES_FULL"],
            ),
            "429": throttled,
            "500": internal,
            "503": documentedError(
              "With a quorum: other votes kept landing first, so this one was not counted (VOTES_BUSY). Nothing changes; send it again after Retry-After.",
              ["VOTES_BUSY"],
              {
                "Retry-After": {
                  description: "Seconds to wait before sending the vote again.",
                  schema: { type: "string" },
                },
              },
            ),
          },
        },
      },
      "/questions/{id}/cancel": {
        parameters: [idParameter],
        post: {
          operationId: "cancelQuestion",
          tags: ["questions"],
          summary: "Cancel or skip a question",
          description:
            "Ends the question without an answer; `reason` skipped says the person chose not to answer.",
          security: scope("ask"),
          requestBody: bodyOf("CancelRequest", { skip: { value: { reason: "skipped" } } }),
          responses: {
            "200": { description: "Cancelled.", content: jsonContent(ref("Cancelled")) },
            "400": documentedError("The body does not fit, or is not JSON.", [
              "INVALID_ARGUMENT",
              "INVALID_JSON",
            ]),
            "401": unauthorized,
            "403": documentedError(
              "resolvedBy is the question's requestedBy (REQUESTER_CANNOT_ANSWER), or an ask key skipping rather than cancelling (INSUFFICIENT_SCOPE). Nothing changes.",
              ["REQUESTER_CANNOT_ANSWER", "INSUFFICIENT_SCOPE"],
            ),
            "404": notFound,
            "409": documentedError("The question has already ended: `status` says how.", [
              "ALREADY_RESOLVED",
            ]),
            "413": tooLarge,
            "429": throttled,
            "500": internal,
          },
        },
      },
      "/questions/{id}/wait": {
        parameters: [idParameter],
        get: {
          operationId: "waitForQuestion",
          tags: ["questions"],
          summary: "Wait for a question to end",
          description: `Answers as soon as the question has ended, or when timeoutMs has passed (then still pending).
Deployed, this route is throttled on its own (each request may hold a function for 25 s): a 429 means wait
and call again.`,
          security: scope("ask"),
          parameters: queryParameters(questionApiInput.waitQuery, {
            timeoutMs: "The longest to wait, in milliseconds.",
          }),
          responses: {
            "200": { description: "The outcome, or pending.", content: jsonContent(ref("WaitResult")) },
            "400": documentedError("A bad timeoutMs, or an unknown parameter.", ["INVALID_ARGUMENT"]),
            "401": unauthorized,
            "404": notFound,
            "429": throttled,
            "500": internal,
          },
        },
      },
      "/mcp": {
        description: "GET and DELETE answer 405 (Allow: POST): there is no event stream and no session.",
        post: {
          operationId: "mcp",
          tags: ["mcp"],
          summary: "Call the MCP server",
          description: `One JSON-RPC message (or a batch) of the Model Context Protocol over Streamable HTTP, stateless: no
session, no \`initialize\` needed first, and every answer is JSON (\`enableJsonResponse\`). The request's
\`Accept\` must list both \`application/json\` and \`text/event-stream\` (406 otherwise) and its
\`Content-Type\` be \`application/json\` (415 otherwise). Tools: \`ask_user\` (the model tool's own
arguments), \`get_answer\` and \`cancel_question\`; \`tools/list\` gives each one's input and output schema.
A tool call waits for the answer at most ${MAX_MCP_WAIT_SECONDS} s, then returns pending. Tool failures are tool
results with \`isError: true\`, not HTTP errors. Deployed, this route is throttled on its own: a 429 means
wait and call again.`,
          security: scope("ask"),
          parameters: [
            {
              name: "X-Handraise-Owner",
              in: "header",
              required: false,
              description: "Who ask_user asks; default: the deployment's HANDRAISE_MCP_OWNER.",
              schema: jsonSchemaOf(ownerSchema, "input"),
            },
            {
              name: "X-Handraise-Deliver-To",
              in: "header",
              required: false,
              description:
                "Where ask_user posts the question: comma-separated <channel>:<chatId> (split at the first colon), e.g. telegram:42,slack:C123; default: HANDRAISE_MCP_DELIVER_TO.",
              schema: { type: "string" },
            },
          ],
          requestBody: bodyOf("JsonRpcRequest", {
            toolsList: { value: { jsonrpc: "2.0", id: 1, method: "tools/list" } },
            getAnswer: {
              value: {
                jsonrpc: "2.0",
                id: 2,
                method: "tools/call",
                params: { name: "get_answer", arguments: { questionId: "api-1", waitSeconds: 0 } },
              },
            },
          }),
          responses: {
            "200": {
              description: "The JSON-RPC response (or responses).",
              content: jsonContent(ref("JsonRpcResponse")),
            },
            "202": { description: "Notifications only: accepted, no body." },
            "400": {
              description: "Not JSON, not a JSON-RPC message, or an unsupported MCP-Protocol-Version.",
              content: jsonContent(jsonSchemaOf(jsonRpcTransportErrorSchema, "output")),
            },
            "401": unauthorized,
            "406": {
              description: "Accept does not list both application/json and text/event-stream.",
              content: jsonContent(jsonSchemaOf(jsonRpcTransportErrorSchema, "output")),
            },
            "413": tooLarge,
            "415": {
              description: "Content-Type is not application/json.",
              content: jsonContent(jsonSchemaOf(jsonRpcTransportErrorSchema, "output")),
            },
            "429": throttled,
            "500": internal,
          },
        },
      },
      "/openapi.json": {
        get: {
          operationId: "getOpenApiDocument",
          tags: ["description"],
          summary: "This document",
          description:
            "No key needed. Cacheable: it carries an ETag, and a request with that ETag in If-None-Match is a 304.",
          security: [],
          responses: {
            "200": {
              description: "The OpenAPI document.",
              headers: {
                ETag: { $ref: "#/components/headers/ETag" },
                "Cache-Control": { $ref: "#/components/headers/CacheControl" },
              },
              content: jsonContent({ type: "object", description: "An OpenAPI 3.1 document." }),
            },
            "304": {
              description: "Not modified: the ETag given in If-None-Match is current.",
              headers: {
                ETag: { $ref: "#/components/headers/ETag" },
                "Cache-Control": { $ref: "#/components/headers/CacheControl" },
              },
            },
            "429": throttled,
          },
        },
      },
    },
    components: {
      securitySchemes: {
        [BEARER]: { type: "http", scheme: "bearer", description: SCOPES },
      },
      schemas: componentSchemas(),
      parameters: {
        QuestionId: {
          name: "id",
          in: "path",
          required: true,
          description: "The question's id. An id of another shape is a 404, as an unknown one.",
          schema: jsonSchemaOf(z.string().check(z.regex(RECORD_ID_PATTERN)), "input"),
        },
      },
      headers: {
        ETag: { description: "The document's version.", schema: { type: "string" } },
        CacheControl: { description: "How long a cache may keep it.", schema: { type: "string" } },
      },
      responses: {
        Unauthorized: documentedError("No key, or a wrong one.", ["UNAUTHORIZED"], {
          "WWW-Authenticate": {
            description: '`Bearer realm="handraise"`',
            required: true,
            schema: { type: "string" },
          },
        }),
        NotFound: documentedError(
          "No question with that id; for an ask key, none it asked (the same answer).",
          ["NOT_FOUND"],
        ),
        PayloadTooLarge: documentedError(
          `The body is over ${MAX_BODY_BYTES / 1024} KiB; nothing of it was read.`,
          ["PAYLOAD_TOO_LARGE"],
        ),
        Internal: documentedError(
          "Anything unexpected: no detail is given (the function's log has it). Safe to retry.",
          ["INTERNAL"],
        ),
        TooManyRequests: {
          description:
            "Deployed, API Gateway refuses a request over the stage's or the route's throttle before any function runs: retry with backoff.",
          content: jsonContent(jsonSchemaOf(z.object({ message: z.string() }), "output")),
        },
      },
    },
  };
}
