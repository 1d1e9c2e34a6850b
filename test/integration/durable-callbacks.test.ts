/**
 * The durable callbacks the answering functions complete (lib/callbacks/durable-callbacks.ts), sent without
 * the Lambda client, against the local stack's stand-in of Lambda's durable-execution callback API
 * (infra/local/durable-callbacks.ts): the documented request of each call (its method, its path with the
 * callback id, its body and content type, a SigV4 signature for `lambda` that verifies with the credentials
 * given) and what each answer of the service becomes — an ended callback not waiting, a refusal no retry
 * cures final, throttling retried then thrown by the service's error name.
 */
import { Agent } from "node:http";
import { Socket } from "node:net";
import {
  LambdaClient,
  SendDurableExecutionCallbackFailureCommand,
  SendDurableExecutionCallbackHeartbeatCommand,
  SendDurableExecutionCallbackSuccessCommand,
} from "@aws-sdk/client-lambda";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type DurableCallbackRequest,
  type LocalDurableCallbacks,
  startLocalDurableCallbacks,
} from "#infra/local/durable-callbacks.ts";
import {
  AWS_CALLBACK_TIMEOUTS,
  AWS_TIMEOUTS,
  type AwsRequestOptions,
  AwsServiceError,
  attemptHandlerOptions,
  createAwsRequests,
} from "#lib/aws/signed-request.ts";
import { createDurableCallbacks } from "#lib/callbacks/durable-callbacks.ts";
import { FinalCallbackError, UnconfirmedCallbackError } from "#lib/callbacks/task-callbacks.ts";
import { noWaitRetries } from "#test/support/retries.ts";
import { resignedAuthorization } from "#test/support/sigv4.ts";
import { settledOnFakeClock } from "./support/fake-timers.ts";

const REGION = "eu-west-1";
const CREDENTIALS = { accessKeyId: "AKIDTESTDURABLECB", secretAccessKey: "test-secret-access-key" };
/** A callback id as Lambda issues them: base64, with the characters a path must encode. */
const CALLBACK_ID = "eyJ4Ijo/MX0+/ab+cd==";
const ENCODED_ID = "eyJ4Ijo%2FMX0%2B%2Fab%2Bcd%3D%3D";

let lambda: LocalDurableCallbacks;

beforeAll(async () => {
  lambda = await startLocalDurableCallbacks({ host: "127.0.0.1" });
});
afterAll(async () => {
  await lambda?.stop();
});
beforeEach(() => {
  lambda.interject = undefined;
  lambda.requests.length = 0;
  lambda.calls.length = 0;
});

const durable = (
  options: { endpoint?: string; env?: Record<string, string> } & Pick<
    AwsRequestOptions,
    "timeouts" | "httpHandler"
  > = {},
) =>
  createDurableCallbacks(
    createAwsRequests(
      { signingName: "lambda", label: "Lambda", protocol: "restJson1" },
      {
        region: REGION,
        credentials: CREDENTIALS,
        ...(options.env === undefined && { endpoint: options.endpoint ?? lambda.url }),
        ...(options.env !== undefined && { env: options.env }),
        retryStrategy: noWaitRetries(),
        timeouts: options.timeouts,
        httpHandler: options.httpHandler,
      },
    ),
  );

/** A target that records what the stand-in forwards to it, as the durable SDK's test runner would take it. */
function attachRecorder(callbackId: string) {
  const received: unknown[] = [];
  lambda.attach(callbackId, {
    sendCallbackSuccess: async (result) => received.push({ success: result }),
    sendCallbackFailure: async (error) => received.push({ failure: error }),
    sendCallbackHeartbeat: async () => received.push("heartbeat"),
  });
  return received;
}

const header = (request: DurableCallbackRequest, name: string) => String(request.headers[name] ?? "");

/** The Authorization header the SDK's signer gives the same request at the same time with `credentials`. */
const expectedAuthorization = (request: DurableCallbackRequest, credentials: typeof CREDENTIALS) =>
  resignedAuthorization(request, { url: lambda.url, service: "lambda", region: REGION, credentials });

/** The error a call fails with. */
const failure = (call: Promise<unknown>) =>
  call.then(
    () => {
      throw new Error("the call succeeded");
    },
    (error: unknown) => error as Error,
  );

describe("durable callbacks on Lambda's callback API, without the Lambda client", () => {
  it("succeed: POST …/durable-execution-callbacks/{CallbackId}/succeed, the result's JSON bytes, signed for lambda", async () => {
    const received = attachRecorder(CALLBACK_ID);
    await expect(durable().succeed(CALLBACK_ID, { status: "answered", answers: { q: ["A"] } })).resolves.toBe(
      "resumed",
    );
    expect(lambda.requests).toHaveLength(1);
    const [request] = lambda.requests as [DurableCallbackRequest];
    expect(request.method).toBe("POST");
    expect(request.path).toBe(`/2025-12-01/durable-execution-callbacks/${ENCODED_ID}/succeed`);
    expect(header(request, "content-type")).toBe("application/octet-stream");
    expect(request.body.toString("utf8")).toBe('{"status":"answered","answers":{"q":["A"]}}');
    expect(received).toEqual([{ success: '{"status":"answered","answers":{"q":["A"]}}' }]);
    const authorization = header(request, "authorization");
    expect(authorization).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=${CREDENTIALS.accessKeyId}/\\d{8}/${REGION}/lambda/aws4_request, `,
      ),
    );
    expect(/SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(";")).toEqual(
      expect.arrayContaining(["content-type", "host", "x-amz-content-sha256", "x-amz-date"]),
    );
    // The signature verifies with the credentials given, and only with them.
    expect(await expectedAuthorization(request, CREDENTIALS)).toBe(authorization);
    expect(
      await expectedAuthorization(request, { ...CREDENTIALS, secretAccessKey: "another-secret" }),
    ).not.toBe(authorization);
  });

  it("fail: the error object as JSON, its name as type and data; heartbeat: no body", async () => {
    const received = attachRecorder(CALLBACK_ID);
    const callbacks = durable();
    await expect(callbacks.heartbeat(CALLBACK_ID)).resolves.toBe("resumed");
    await expect(
      callbacks.fail(CALLBACK_ID, "Handraise.Cancelled", "The question was cancelled."),
    ).resolves.toBe("resumed");
    const [heartbeat, failed] = lambda.requests as [DurableCallbackRequest, DurableCallbackRequest];
    expect(heartbeat.path).toBe(`/2025-12-01/durable-execution-callbacks/${ENCODED_ID}/heartbeat`);
    expect(heartbeat.body.length).toBe(0);
    expect(failed.path).toBe(`/2025-12-01/durable-execution-callbacks/${ENCODED_ID}/fail`);
    expect(header(failed, "content-type")).toBe("application/json");
    const error = {
      ErrorMessage: "The question was cancelled.",
      ErrorType: "Handraise.Cancelled",
      ErrorData: "Handraise.Cancelled",
    };
    expect(JSON.parse(failed.body.toString("utf8"))).toEqual(error);
    expect(received).toEqual(["heartbeat", { failure: error }]);
    for (const request of lambda.requests) {
      expect(await expectedAuthorization(request, CREDENTIALS)).toBe(header(request, "authorization"));
    }
  });

  it.each([
    ["a base64 id", CALLBACK_ID],
    ["an id with !'()*", "ab!cd'ef(gh)ij*kl"],
    ["an id with spaces, slashes and unicode", "a b/c+d=é~_.-"],
  ])("send what the Lambda client sends for the same call: %s", async (_, callbackId) => {
    const client = new LambdaClient({
      region: REGION,
      credentials: CREDENTIALS,
      endpoint: lambda.url,
      maxAttempts: 1,
    });
    const result = { status: "answered" as const, answers: { q: ["A"] } };
    const error = {
      ErrorMessage: "Cancelled.",
      ErrorType: "Handraise.Cancelled",
      ErrorData: "Handraise.Cancelled",
    };
    const ours = durable();
    const pairs: [() => Promise<unknown>, () => Promise<unknown>][] = [
      [
        () => ours.succeed(callbackId, result),
        () =>
          client.send(
            new SendDurableExecutionCallbackSuccessCommand({
              CallbackId: callbackId,
              Result: new TextEncoder().encode(JSON.stringify(result)),
            }),
          ),
      ],
      [
        () => ours.fail(callbackId, "Handraise.Cancelled", error.ErrorMessage),
        () =>
          client.send(
            new SendDurableExecutionCallbackFailureCommand({ CallbackId: callbackId, Error: error }),
          ),
      ],
      [
        () => ours.heartbeat(callbackId),
        () => client.send(new SendDurableExecutionCallbackHeartbeatCommand({ CallbackId: callbackId })),
      ],
    ];
    /** What must match: the method, the path (the callback id as encoded and signed), the body and the headers
     * the service reads (the SDK's own user-agent and invocation headers aside). */
    const shape = (request: DurableCallbackRequest) => ({
      method: request.method,
      path: request.path,
      body: request.body.toString("utf8"),
      contentType: header(request, "content-type"),
      contentSha256: header(request, "x-amz-content-sha256"),
      host: header(request, "host"),
      scope: /Credential=[^/]+\/\d{8}\/([^,]+),/.exec(header(request, "authorization"))?.[1],
    });
    for (const [send, sendWithClient] of pairs) {
      attachRecorder(callbackId);
      await send();
      attachRecorder(callbackId);
      await sendWithClient();
      const [sent, expected] = lambda.requests.splice(0) as [DurableCallbackRequest, DurableCallbackRequest];
      expect(shape(sent)).toEqual(shape(expected));
      // Signed over that path: the signature verifies with the credentials given.
      expect(await expectedAuthorization(sent, CREDENTIALS)).toBe(header(sent, "authorization"));
    }
    client.destroy();
  });

  it("take an ended callback as not waiting: CallbackTimeoutException, ResourceNotFoundException", async () => {
    // Nobody attached this id: the stand-in answers as Lambda answers a closed callback.
    await expect(durable().succeed("ended-callback", { status: "delivery_failed" })).resolves.toBe(
      "not_waiting",
    );
    expect(lambda.calls).toEqual([
      { action: "succeed", callbackId: "ended-callback", outcome: "CallbackTimeoutException" },
    ]);
    lambda.interject = () => ({
      status: 404,
      errorType: "ResourceNotFoundException:http://internal.amazon.com/coral/com.amazonaws.lambda/",
      message: "The execution is gone.",
    });
    await expect(durable().heartbeat(CALLBACK_ID)).resolves.toBe("not_waiting");
    expect(lambda.requests).toHaveLength(2);
  });

  it("take a refusal no retry cures as final, sent once, by the service's error name", async () => {
    lambda.interject = () => ({ status: 403, errorType: "AccessDeniedException", message: "not allowed" });
    const error = await failure(durable().succeed(CALLBACK_ID, { status: "answered", answers: {} }));
    expect(error).toBeInstanceOf(FinalCallbackError);
    expect((error as FinalCallbackError).code).toBe("AccessDeniedException");
    expect(error.message).toBe("AccessDeniedException: not allowed");
    expect(lambda.requests).toHaveLength(1);
  });

  it("refuse an id no path can carry (a lone surrogate) as final, sending nothing", async () => {
    for (const call of [
      () => durable().succeed("eyJ4\ud800", { status: "answered", answers: {} }),
      () => durable().fail("\udc00", "Handraise.Cancelled", "cancelled"),
      () => durable().heartbeat("ab\ud800cd"),
    ]) {
      const error = await failure(call());
      expect(error).toBeInstanceOf(FinalCallbackError);
      expect((error as FinalCallbackError).code).toBe("InvalidParameterValueException");
    }
    expect(lambda.requests).toEqual([]);
  });

  it("retry throttling as the SDK's standard strategy does, then throw it by the service's error name", async () => {
    const received = attachRecorder(CALLBACK_ID);
    const throttled = { status: 429, errorType: "TooManyRequestsException", message: "Rate exceeded" };
    let failures = 2;
    lambda.interject = () => (failures-- > 0 ? throttled : undefined);
    await expect(durable().heartbeat(CALLBACK_ID)).resolves.toBe("resumed");
    expect(lambda.requests).toHaveLength(3);
    expect(received).toEqual(["heartbeat"]);

    lambda.requests.length = 0;
    lambda.interject = () => throttled;
    const error = await failure(durable().heartbeat(CALLBACK_ID));
    expect(error).toBeInstanceOf(AwsServiceError);
    expect(error.name).toBe("TooManyRequestsException");
    expect(error.message).toBe("Rate exceeded");
    expect(lambda.requests).toHaveLength(3);
  });

  it("reach the endpoint the environment names for Lambda (AWS_ENDPOINT_URL_LAMBDA), as the SDK does", async () => {
    const received = attachRecorder(CALLBACK_ID);
    const fromEnv = durable({
      env: { AWS_ENDPOINT_URL_LAMBDA: lambda.url, AWS_ENDPOINT_URL: "http://127.0.0.1:9" },
    });
    await expect(fromEnv.heartbeat(CALLBACK_ID)).resolves.toBe("resumed");
    expect(received).toEqual(["heartbeat"]);
  });

  describe("how long a callback waits for Lambda (AWS_CALLBACK_TIMEOUTS), on a fake clock", () => {
    beforeEach(() => {
      // Sockets stay real; the timers of the handler, the retries and the slow Lambda below are fake.
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    const settled = (done: () => boolean) => settledOnFakeClock(done, 10_000);

    /** A callback Lambda completes at once but answers for only after `answerAfterMs` (fake time). */
    function slowToAnswer(answerAfterMs: number) {
      const received: unknown[] = [];
      lambda.attach(CALLBACK_ID, {
        sendCallbackSuccess: async (result) => {
          received.push({ success: result });
          await new Promise((resolve) => setTimeout(resolve, answerAfterMs));
        },
        sendCallbackFailure: async (error) => {
          received.push({ failure: error });
          await new Promise((resolve) => setTimeout(resolve, answerAfterMs));
        },
        sendCallbackHeartbeat: async () => received.push("heartbeat"),
      });
      return received;
    }

    const ANSWERED = { status: "answered" as const, answers: { q: ["A"] } };
    const outcome = (call: Promise<unknown>) =>
      call.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );

    /** How `call` ends, the clock moved on as `settled` moves it. */
    async function finished(call: Promise<unknown>) {
      let ended = false;
      const ending = outcome(call).finally(() => {
        ended = true;
      });
      await settled(() => ended);
      return ending;
    }

    it("a success Lambda answers after 3 s is resumed, sent once", async () => {
      const received = slowToAnswer(3_000);
      const sending = outcome(durable({ timeouts: AWS_CALLBACK_TIMEOUTS }).succeed(CALLBACK_ID, ANSWERED));
      await settled(() => received.length === 1);
      await vi.advanceTimersByTimeAsync(3_000);
      expect(await sending).toEqual({ value: "resumed" });
      expect(lambda.requests).toHaveLength(1);
      expect(lambda.calls).toEqual([{ action: "succeed", callbackId: CALLBACK_ID, outcome: "completed" }]);
    });

    it("a success cut off after it was sent, then found ended, is not taken as not waiting", async () => {
      // The common limits cut the attempt off at 2.5 s; its retry finds the callback it completed ended.
      const received = slowToAnswer(3_000);
      const callbacks = durable({ timeouts: AWS_TIMEOUTS });
      const sending = outcome(callbacks.succeed(CALLBACK_ID, ANSWERED));
      await settled(() => received.length === 1);
      await vi.advanceTimersByTimeAsync(2_500);
      await settled(() => lambda.requests.length === 2);
      const { error } = (await sending) as { error: Error };
      expect(error).toBeInstanceOf(UnconfirmedCallbackError);
      expect(error.message).toContain("SendDurableExecutionCallbackSuccess");
      expect(lambda.calls.map((call) => call.outcome)).toEqual(["CallbackTimeoutException"]);
      expect(received).toHaveLength(1);
      // The same answer to a first attempt is the callback's own end; so is it to a heartbeat, which ends nothing.
      await expect(callbacks.succeed(CALLBACK_ID, ANSWERED)).resolves.toBe("not_waiting");
      lambda.requests.length = 0;
      let cutOff = true;
      lambda.interject = () => {
        if (!cutOff) return undefined;
        cutOff = false;
        return { status: 500, errorType: "ServiceException", message: "Internal failure" };
      };
      expect(await finished(callbacks.heartbeat(CALLBACK_ID))).toEqual({ value: "not_waiting" });
      expect(lambda.requests).toHaveLength(2);
    });

    it("a callback never answered is cut off within 7 s, thrown and not taken as not waiting", async () => {
      const received = slowToAnswer(60_000);
      const startedAt = Date.now();
      let endedAt: number | undefined;
      const sending = outcome(
        durable({ timeouts: AWS_CALLBACK_TIMEOUTS })
          .succeed(CALLBACK_ID, ANSWERED)
          .finally(() => {
            endedAt = Date.now();
          }),
      );
      await settled(() => received.length === 1);
      await vi.advanceTimersByTimeAsync(6_000);
      expect(endedAt).toBeUndefined();
      await settled(() => endedAt !== undefined);
      expect(endedAt).toBe(startedAt + AWS_CALLBACK_TIMEOUTS.callMs);
      const { error } = (await sending) as { error: Error & { code?: string } };
      expect(error.name).toBe("TimeoutError");
      expect(error.code).toBe("ETIMEDOUT");
      // The call's 7 s are spent: no second attempt is sent.
      expect(lambda.requests).toHaveLength(1);
    });

    it("a connection that never opens is cut off after 2 s and retried, inside the call's 7 s", async () => {
      /** Every socket it opens stays connecting for ever (a VPC endpoint dropping SYN); when each opened. */
      class NeverConnecting extends Agent {
        openedAt: number[] = [];
        override createConnection() {
          this.openedAt.push(Date.now());
          // Writes are queued while a socket connects; this one never stops.
          return Object.defineProperty(new Socket(), "connecting", { value: true });
        }
      }
      const agent = new NeverConnecting();
      const httpHandler = new NodeHttpHandler({
        ...attemptHandlerOptions(AWS_CALLBACK_TIMEOUTS),
        httpAgent: agent,
      });
      const startedAt = Date.now();
      let endedAt: number | undefined;
      const sending = outcome(
        durable({ timeouts: AWS_CALLBACK_TIMEOUTS, httpHandler })
          .succeed(CALLBACK_ID, ANSWERED)
          .finally(() => {
            endedAt = Date.now();
          }),
      );
      await settled(() => agent.openedAt.length === 1);
      await vi.advanceTimersByTimeAsync(1_999);
      expect(agent.openedAt).toHaveLength(1);
      await settled(() => endedAt !== undefined);
      const { error } = (await sending) as { error: Error };
      expect(error.name).toBe("TimeoutError");
      expect(error.message).toContain("did not establish a connection");
      expect(error.message).toContain("2000 ms");
      // Three attempts, each cut off at its connection timeout (and a retry's backoff of 1 fake ms).
      const [first, second, third] = agent.openedAt as [number, number, number];
      expect(second - first).toBeGreaterThanOrEqual(2_000);
      expect(second - first).toBeLessThan(2_050);
      expect(third - second).toBeGreaterThanOrEqual(2_000);
      expect(third - second).toBeLessThan(2_050);
      expect(agent.openedAt).toHaveLength(3);
      expect((endedAt ?? 0) - startedAt).toBeLessThanOrEqual(AWS_CALLBACK_TIMEOUTS.callMs);
      expect(lambda.requests).toEqual([]);
    });
  });
});
