/**
 * Lambda's durable-execution callback API for the local stack (AWS_ENDPOINT_URL_LAMBDA):
 * `POST /2025-12-01/durable-execution-callbacks/{CallbackId}/succeed | fail | heartbeat`, the routes the
 * handlers' SendDurableExecutionCallback* calls reach. There is no durable execution service here: a durable
 * function runs in the test's own process under the durable SDK's test runner, and the test attaches each
 * callback it waits on (`attach(callbackId, operation)`); a call for that id is forwarded to the runner's
 * operation, which resumes the execution.
 *
 * Differences from AWS: nothing persists (the execution lives as long as the test runner); a callback nobody
 * attached, one already completed, one detached (its execution ended or timed out), or one whose operation
 * is no longer waiting answers CallbackTimeoutException, as AWS answers an expired or closed callback — AWS
 * would say ResourceNotFoundException or InvalidParameterValueException for an id it never issued; no IAM
 * (the signature is recorded, not checked). `interject` answers a call in the service's place (throttling,
 * a refusal) when it returns a reply.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer, replyRestJson } from "./local-server.ts";

/** What a test hands over for a callback: the durable SDK test runner's operation fits it. */
export interface DurableCallbackTarget {
  sendCallbackSuccess(result?: string): Promise<unknown>;
  sendCallbackFailure(error?: {
    ErrorType?: string;
    ErrorMessage?: string;
    ErrorData?: string;
  }): Promise<unknown>;
  sendCallbackHeartbeat(): Promise<unknown>;
  /** Whether the operation still waits (`STARTED`); omitted: it waits until completed or detached. */
  getStatus?(): string | undefined;
}

export interface DurableCallbackRequest {
  method: string;
  /** The path as sent, its callback id still URI-encoded. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A reply in the service's place: its status, error type (`X-Amzn-ErrorType`) and message. */
export interface DurableCallbackReply {
  status: number;
  errorType: string;
  message: string;
}

export interface LocalDurableCallbacks {
  url: string;
  attach(callbackId: string, target: DurableCallbackTarget): void;
  detach(callbackId: string): void;
  /** Every call served, in order: `succeed` / `fail` / `heartbeat` with its callback id and outcome. */
  calls: { action: string; callbackId: string; outcome: "completed" | "CallbackTimeoutException" }[];
  /** Every request received, in order, as sent: what a test of the request's shape reads. */
  requests: DurableCallbackRequest[];
  interject: ((request: DurableCallbackRequest) => DurableCallbackReply | undefined) | undefined;
  stop(): Promise<void>;
}

const ROUTE = /^\/2025-12-01\/durable-execution-callbacks\/([^/]+)\/(succeed|fail|heartbeat)$/;

export async function startLocalDurableCallbacks(options: {
  host: string;
  port?: number;
}): Promise<LocalDurableCallbacks> {
  const targets = new Map<string, DurableCallbackTarget>();
  const calls: LocalDurableCallbacks["calls"] = [];
  const requests: DurableCallbackRequest[] = [];
  const fake = { interject: undefined as LocalDurableCallbacks["interject"] };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const request = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body };
    requests.push(request);
    const reply = fake.interject?.(request);
    if (reply !== undefined) {
      return replyRestJson(res, reply.status, { message: reply.message }, reply.errorType);
    }
    const match = ROUTE.exec(new URL(req.url ?? "/", "http://local").pathname);
    if (req.method !== "POST" || !match?.[1] || !match[2]) {
      return replyRestJson(res, 404, { message: "Not Found" }, "ResourceNotFoundException");
    }
    const callbackId = decodeURIComponent(match[1]);
    const action = match[2];
    const target = targets.get(callbackId);
    const status = target?.getStatus?.();
    if (!target || (status !== undefined && status !== "STARTED")) {
      calls.push({ action, callbackId, outcome: "CallbackTimeoutException" });
      return replyRestJson(
        res,
        400,
        { message: "The callback has timed out or has already been completed." },
        "CallbackTimeoutException",
      );
    }
    if (action === "succeed") {
      targets.delete(callbackId);
      await target.sendCallbackSuccess(body.toString("utf8"));
    } else if (action === "fail") {
      targets.delete(callbackId);
      await target.sendCallbackFailure(body.length > 0 ? JSON.parse(body.toString("utf8")) : {});
    } else {
      await target.sendCallbackHeartbeat();
    }
    calls.push({ action, callbackId, outcome: "completed" });
    replyRestJson(res, 200, {});
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      replyRestJson(
        res,
        500,
        { message: error instanceof Error ? error.message : String(error) },
        "ServiceException",
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const local: Omit<LocalDurableCallbacks, "interject"> = {
    url: `http://${address}:${port}`,
    attach: (callbackId, target) => targets.set(callbackId, target),
    detach: (callbackId) => targets.delete(callbackId),
    calls,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return Object.assign(fake, local);
}
