import { randomUUID } from "node:crypto";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { InjectedFault } from "../faults.ts";
import { createServer } from "../local-server.ts";
import { SfnApiError, type SfnErrorType } from "./api-error.ts";
import type { LocalStepFunctionsEngine } from "./engine.ts";
import { operations } from "./operations.ts";

const CONTENT_TYPE = "application/x-amz-json-1.0";
const TARGET_PREFIX = "AWSStepFunctions.";
/** Room for a 256 KiB payload even when every character of it is JSON-escaped inside the request. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

function send(response: ServerResponse, status: number, body: object, errorType?: string): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "Content-Type": CONTENT_TYPE,
    "Content-Length": Buffer.byteLength(text),
    "x-amzn-RequestId": randomUUID(),
    ...(errorType === undefined ? {} : { "x-amzn-ErrorType": errorType }),
  });
  response.end(text);
}

function sendError(response: ServerResponse, type: SfnErrorType, message: string): void {
  send(response, 400, { __type: type, message }, type);
}

/** The whole body, or undefined when it is larger than any valid request (read to the end either way). */
async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size <= MAX_BODY_BYTES) chunks.push(buffer);
  }
  return size <= MAX_BODY_BYTES ? Buffer.concat(chunks).toString("utf8") : undefined;
}

function parseBody(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new SfnApiError("SerializationException", "The request body is not valid JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new SfnApiError("SerializationException", "The request body must be a JSON object");
  }
  return body as Record<string, unknown>;
}

/** Asked once per request: an injected fault to answer with instead (fault injection for tests). */
export type FaultSource = (operation: string) => InjectedFault | undefined;

async function handle(
  engine: LocalStepFunctionsEngine,
  request: IncomingMessage,
  response: ServerResponse,
  faults: FaultSource | undefined,
) {
  try {
    const text = await readBody(request);
    const target = request.headers["x-amz-target"];
    const name =
      typeof target === "string" && target.startsWith(TARGET_PREFIX)
        ? target.slice(TARGET_PREFIX.length)
        : "";
    // Requests are SigV4-signed; any credentials are accepted, so the signature is not checked.
    const operation =
      request.method === "POST" && Object.hasOwn(operations, name) ? operations[name] : undefined;
    if (!operation)
      throw new SfnApiError("UnknownOperationException", `Unknown operation: '${String(target)}'`);
    if (text === undefined) throw new SfnApiError("ValidationException", "The request body is too large");
    const fault = faults?.(name);
    if (fault) {
      // AWS's own error shape. Before the operation runs the call changes nothing, as on AWS; `applied`
      // runs it first (its own outcome, success or error, is dropped) and answers with the fault instead.
      if (fault.applied) {
        try {
          await operation(engine, parseBody(text));
        } catch {
          // the call's own answer is the one lost
        }
      }
      send(response, fault.status, { __type: fault.code, message: fault.message }, fault.code);
      return;
    }
    send(response, 200, await operation(engine, parseBody(text)));
  } catch (error) {
    if (error instanceof SfnApiError) {
      sendError(response, error.type, error.message);
      return;
    }
    if (response.destroyed) return; // the client went away mid-request
    // A bug, not a bad request: say so without details, and keep serving.
    console.error("local-stepfunctions: internal error", error);
    if (!response.headersSent) send(response, 500, { __type: "InternalFailure", message: "Internal error" });
  }
}

/** An HTTP server speaking the AWS JSON 1.0 protocol of Step Functions (`POST /`, X-Amz-Target). */
export function createStepFunctionsServer(engine: LocalStepFunctionsEngine, faults?: FaultSource): Server {
  return createServer((request, response) => {
    void handle(engine, request, response, faults);
  });
}
