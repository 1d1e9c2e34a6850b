/**
 * The signed requests SSM secret reads and Lambda's durable callbacks are sent with (lib/aws/signed-request.ts),
 * against local servers: what the SDK's clients would do in their place — each attempt's timeouts, the
 * endpoint of the Region's partition (FIPS, dual-stack), the error a response names, the standard retry
 * strategy and its settings, and a Region lookup that failed tried again.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { type HttpRequest, HttpResponse } from "@smithy/core/protocols";
import { AdaptiveRetryStrategy, StandardRetryStrategy } from "@smithy/core/retry";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type AwsRequestOptions, AwsServiceError, createAwsRequests } from "#lib/aws/signed-request.ts";
import { noWaitRetries } from "#test/support/retries.ts";
import { resignedAuthorization } from "#test/support/sigv4.ts";

const SSM = { signingName: "ssm", label: "SSM", protocol: "awsJson1_1" } as const;
const LAMBDA = { signingName: "lambda", label: "Lambda", protocol: "restJson1" } as const;
const CREDENTIALS = { accessKeyId: "AKIDTESTSIGNEDREQUEST", secretAccessKey: "test-secret-access-key" };
const CALL = {
  operation: "GetParameter",
  method: "POST",
  path: "/",
  headers: { "content-type": "application/x-amz-json-1.1", "x-amz-target": "AmazonSSM.GetParameter" },
  body: JSON.stringify({ Name: "/handraise/x" }),
} as const;

interface Received {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

interface LocalServer {
  url: string;
  received: Received[];
  stop(): Promise<void>;
}

const servers: LocalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

/** A local HTTP server; `answer` replies to each request, or leaves it unanswered when it returns nothing. */
async function startServer(
  answer: (
    request: Received,
    response: ServerResponse,
  ) => { status: number; headers?: Record<string, string>; body?: string } | undefined,
): Promise<LocalServer> {
  const received: Received[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request = {
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
    };
    received.push(request);
    const reply = answer(request, res);
    if (reply === undefined) return;
    res.writeHead(reply.status, { "content-type": "application/x-amz-json-1.1", ...reply.headers });
    res.end(reply.body ?? "{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const local: LocalServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(local);
  return local;
}

const requests = (options: AwsRequestOptions) =>
  createAwsRequests(SSM, { region: "eu-west-1", credentials: CREDENTIALS, env: {}, ...options });

const rejection = (sending: Promise<unknown>) =>
  sending.then(
    () => {
      throw new Error("the call succeeded");
    },
    (error: unknown) => error as Error & { code?: string },
  );

describe("signed AWS requests", () => {
  it("cut off an attempt that gets no response (TimeoutError, ETIMEDOUT) and retry it", async () => {
    const silent = await startServer(() => undefined);
    const error = await rejection(
      requests({
        endpoint: silent.url,
        retryStrategy: noWaitRetries(),
        timeouts: { connectionMs: 50, requestMs: 50 },
      }).send(CALL),
    );
    expect(error.name).toBe("TimeoutError");
    expect(error.code).toBe("ETIMEDOUT");
    expect(silent.received).toHaveLength(3);
  });

  it("cut each attempt off at the limits the requests were given (durable callbacks get their own)", async () => {
    const silent = await startServer(() => undefined);
    const quick = { connectionMs: 50, requestMs: 50 };
    const error = await rejection(
      createAwsRequests(LAMBDA, {
        region: "eu-west-1",
        credentials: CREDENTIALS,
        env: {},
        endpoint: silent.url,
        retryStrategy: noWaitRetries(),
        timeouts: quick,
      }).send(CALL),
    );
    expect(error.name).toBe("TimeoutError");
    expect(error.message).toContain("exceeded the configured 50 ms requestTimeout");
    expect(silent.received).toHaveLength(3);
  });

  it("cut off an attempt whose response stalls after its headers, and retry it", async () => {
    const stalling = await startServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/x-amz-json-1.1", "content-length": "100" });
      response.write("{");
      return undefined;
    });
    const error = await rejection(
      requests({
        endpoint: stalling.url,
        retryStrategy: noWaitRetries(),
        timeouts: { connectionMs: 50, requestMs: 50 },
      }).send(CALL),
    );
    expect(error.name).toBe("TimeoutError");
    expect(error.message).toContain("timed out after 50 ms of inactivity");
    expect(stalling.received).toHaveLength(3);
  });

  it("read the error's type where the SDK reads it: the body first for SSM, the header first for Lambda", async () => {
    const replies: { status: number; headers?: Record<string, string>; body?: string }[] = [];
    const server = await startServer(() => replies.shift() ?? { status: 200, body: "{}" });
    const failing = async (service: typeof SSM | typeof LAMBDA, reply: (typeof replies)[number]) => {
      replies.length = 0;
      replies.push(reply, reply, reply);
      server.received.length = 0;
      const error = await rejection(
        createAwsRequests(service, {
          region: "eu-west-1",
          credentials: CREDENTIALS,
          env: {},
          endpoint: server.url,
          retryStrategy: noWaitRetries(),
        }).send(CALL),
      );
      expect(error).toBeInstanceOf(AwsServiceError);
      return { name: error.name, message: error.message, attempts: server.received.length };
    };
    // A header that lists more than one value names the first, and throttling is retried.
    for (const service of [SSM, LAMBDA]) {
      await expect(
        failing(service, { status: 400, headers: { "x-amzn-errortype": "ThrottlingException,foo" } }),
      ).resolves.toEqual({
        name: "ThrottlingException",
        message: `${service.label} refused GetParameter with HTTP 400.`,
        attempts: 3,
      });
    }
    // An empty header names nothing: the body's type stands.
    await expect(
      failing(LAMBDA, {
        status: 400,
        headers: { "x-amzn-errortype": "" },
        body: JSON.stringify({ __type: "ThrottlingException", message: "Rate exceeded" }),
      }),
    ).resolves.toEqual({ name: "ThrottlingException", message: "Rate exceeded", attempts: 3 });
    // SSM's body is read before its header; Lambda's header before its body.
    const both = {
      status: 400,
      headers: { "x-amzn-errortype": "ResourceNotFoundException:http://internal.amazon.com/" },
      body: JSON.stringify({ __type: "com.amazonaws.ssm#ParameterNotFound", Message: "no such" }),
    };
    await expect(failing(SSM, both)).resolves.toEqual({
      name: "ParameterNotFound",
      message: "no such",
      attempts: 1,
    });
    await expect(failing(LAMBDA, both)).resolves.toEqual({
      name: "ResourceNotFoundException",
      message: "no such",
      attempts: 1,
    });
    // The body's code, in any case, when nothing else names the type.
    await expect(
      failing(LAMBDA, {
        status: 403,
        body: JSON.stringify({ Code: "AccessDeniedException", message: "denied" }),
      }),
    ).resolves.toEqual({ name: "AccessDeniedException", message: "denied", attempts: 1 });
    await expect(failing(SSM, { status: 500, body: "{}" })).resolves.toMatchObject({
      name: "InternalServerError",
      attempts: 3,
    });
  });

  it("pass the service's x-amz-retry-after to the retry strategy as its hint", async () => {
    let throttled = 1;
    const server = await startServer(() =>
      throttled-- > 0
        ? {
            status: 400,
            headers: { "x-amz-retry-after": "1500" },
            body: JSON.stringify({ __type: "ThrottlingException" }),
          }
        : { status: 200, body: "{}" },
    );
    const hints: (Date | undefined)[] = [];
    class RecordingRetries extends StandardRetryStrategy {
      override refreshRetryTokenForRetry(
        ...[token, info]: Parameters<StandardRetryStrategy["refreshRetryTokenForRetry"]>
      ) {
        hints.push(info.retryAfterHint);
        // Recorded, not waited for.
        return super.refreshRetryTokenForRetry(token, { errorType: info.errorType });
      }
    }
    const before = Date.now();
    await requests({
      endpoint: server.url,
      retryStrategy: new RecordingRetries({
        maxAttempts: 3,
        baseDelay: 0,
        backoff: { computeNextBackoffDelay: () => 0, setDelayBase: () => undefined },
      }),
    }).send(CALL);
    const after = Date.now();
    expect(server.received).toHaveLength(2);
    expect(hints).toHaveLength(1);
    expect(hints[0]).toBeInstanceOf(Date);
    expect(hints[0]?.getTime()).toBeGreaterThanOrEqual(before + 1500);
    expect(hints[0]?.getTime()).toBeLessThanOrEqual(after + 1500);
  });

  it("retry as the SDK's standard strategy does by default: 3 attempts, AWS_MAX_ATTEMPTS, AWS_RETRY_MODE", async () => {
    const server = await startServer(() => ({
      status: 503,
      body: JSON.stringify({ __type: "ServiceUnavailable" }),
    }));
    const attempts = async (env: Record<string, string>) => {
      server.received.length = 0;
      const error = await rejection(requests({ endpoint: server.url, env }).send(CALL));
      expect(error.name).toBe("ServiceUnavailable");
      return server.received.length;
    };
    // The SDK's own backoff between attempts (a 100 ms base with jitter for a 5xx), not waited for here.
    expect(await attempts({})).toBe(3);
    expect(await attempts({ AWS_MAX_ATTEMPTS: "2" })).toBe(2);
    expect(await attempts({ AWS_MAX_ATTEMPTS: "1" })).toBe(1);
    const adaptive = vi.spyOn(AdaptiveRetryStrategy.prototype, "acquireInitialRetryToken");
    try {
      expect(await attempts({ AWS_RETRY_MODE: "adaptive", AWS_MAX_ATTEMPTS: "2" })).toBe(2);
      expect(adaptive).toHaveBeenCalledTimes(1);
    } finally {
      adaptive.mockRestore();
    }
  });

  it("look the Region up again after a lookup that failed", async () => {
    const server = await startServer(() => ({ status: 200, body: JSON.stringify({ ok: true }) }));
    vi.stubEnv("AWS_REGION", undefined);
    vi.stubEnv("AWS_DEFAULT_REGION", undefined);
    vi.stubEnv("AWS_PROFILE", undefined);
    vi.stubEnv("AWS_CONFIG_FILE", "/nonexistent/handraise-test/config");
    vi.stubEnv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/handraise-test/credentials");
    try {
      const ssm = createAwsRequests(SSM, { credentials: CREDENTIALS, endpoint: server.url, env: {} });
      await expect(ssm.send(CALL)).rejects.toThrow(/Region is missing/);
      expect(server.received).toHaveLength(0);
      vi.stubEnv("AWS_REGION", "eu-west-1");
      await expect(ssm.send(CALL)).resolves.toEqual({ ok: true });
      expect(server.received[0]?.headers.authorization).toMatch(/\/eu-west-1\/ssm\/aws4_request/);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("send a session token in x-amz-security-token and sign it", async () => {
    const server = await startServer(() => ({ status: 200, body: "{}" }));
    const credentials = { ...CREDENTIALS, sessionToken: "a-session-token-of-the-role" };
    await requests({ endpoint: server.url, credentials }).send(CALL);
    const [request] = server.received as [Received];
    expect(request.headers["x-amz-security-token"]).toBe(credentials.sessionToken);
    const authorization = String(request.headers.authorization);
    const signedHeaders = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(";") ?? [];
    expect(signedHeaders).toContain("x-amz-security-token");
    // The signature covers the token: it verifies with it and not with another.
    const resign = (sessionToken: string) =>
      resignedAuthorization(request, {
        url: server.url,
        service: "ssm",
        region: "eu-west-1",
        credentials: { ...credentials, sessionToken },
      });
    expect(await resign(credentials.sessionToken)).toBe(authorization);
    expect(await resign("another-session-token")).not.toBe(authorization);
  });

  it("go to https://<service>.<region>.<dnsSuffix> without an endpoint, in the aws and aws-cn partitions", async () => {
    const sent: HttpRequest[] = [];
    const httpHandler = {
      handle: async (request: HttpRequest) => {
        sent.push(request);
        return {
          response: new HttpResponse({
            statusCode: 200,
            headers: {},
            body: Readable.from([Buffer.from("{}")]),
          }),
        };
      },
    };
    const cases = [
      [SSM, "eu-west-1", "ssm.eu-west-1.amazonaws.com"],
      [SSM, "cn-north-1", "ssm.cn-north-1.amazonaws.com.cn"],
      [LAMBDA, "us-east-1", "lambda.us-east-1.amazonaws.com"],
      [LAMBDA, "cn-northwest-1", "lambda.cn-northwest-1.amazonaws.com.cn"],
    ] as const;
    for (const [service, region, host] of cases) {
      sent.length = 0;
      await createAwsRequests(service, { region, credentials: CREDENTIALS, env: {}, httpHandler }).send(CALL);
      const [request] = sent as [HttpRequest];
      expect({ protocol: request.protocol, hostname: request.hostname, port: request.port }).toEqual({
        protocol: "https:",
        hostname: host,
        port: undefined,
      });
      expect(request.headers.host).toBe(host);
      expect(request.headers.authorization).toContain(`/${region}/${service.signingName}/aws4_request`);
    }
  });

  it("retry a connection the server drops, counting each attempt, then throw the network error", async () => {
    const dropping = await startServer((_request, response) => {
      response.socket?.destroy();
      return undefined;
    });
    const retries = noWaitRetries();
    const refresh = vi.spyOn(retries, "refreshRetryTokenForRetry");
    const error = await rejection(requests({ endpoint: dropping.url, retryStrategy: retries }).send(CALL));
    expect(error.code).toBe("ECONNRESET");
    expect(dropping.received).toHaveLength(3);
    // Two retries granted, the third refused.
    expect(refresh).toHaveBeenCalledTimes(3);
  });

  it("sign again with the service's clock after a skew error (its Date)", async () => {
    const AHEAD_MS = 60 * 60 * 1000;
    /** The x-amz-date of a request, in milliseconds. */
    const signedAt = (request: Received) => {
      const d = String(request.headers["x-amz-date"]);
      return Date.parse(
        `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}T${d.slice(9, 11)}:${d.slice(11, 13)}:${d.slice(13, 15)}Z`,
      );
    };
    // A service whose clock is an hour ahead of this machine's, refusing a signature 5 minutes off its own.
    const server = await startServer((request) => {
      const serverNow = Date.now() + AHEAD_MS;
      const date = { date: new Date(serverNow).toUTCString() };
      return Math.abs(signedAt(request) - serverNow) > 5 * 60 * 1000
        ? {
            status: 400,
            headers: date,
            body: JSON.stringify({ __type: "RequestTimeTooSkewed", message: "Signature not yet current" }),
          }
        : { status: 200, headers: date, body: "{}" };
    });
    const ssm = requests({ endpoint: server.url, retryStrategy: noWaitRetries() });
    await expect(ssm.send(CALL)).resolves.toEqual({});
    expect(server.received).toHaveLength(2);
    const [first, second] = server.received as [Received, Received];
    expect(signedAt(second) - signedAt(first)).toBeGreaterThan(AHEAD_MS - 5 * 60 * 1000);
    // The offset is kept: the next call is signed with it at once.
    await expect(ssm.send(CALL)).resolves.toEqual({});
    expect(server.received).toHaveLength(3);
  });

  it("make one attempt at a refusal under a skew already corrected: a Date's whole seconds are no new skew", async () => {
    const AHEAD_MS = 10 * 60 * 1000;
    // A service 10 minutes ahead: the first call corrects the offset, later calls name a missing parameter.
    let corrected = false;
    const server = await startServer(() => {
      const date = { date: new Date(Date.now() + AHEAD_MS).toUTCString() };
      if (!corrected) {
        corrected = true;
        return {
          status: 400,
          headers: date,
          body: JSON.stringify({ __type: "RequestTimeTooSkewed", message: "Signature not yet current" }),
        };
      }
      return {
        status: 400,
        headers: date,
        body: JSON.stringify({ __type: "ParameterNotFound", message: "No such parameter" }),
      };
    });
    const ssm = requests({ endpoint: server.url, retryStrategy: noWaitRetries() });
    // The skew error is retried once, signed with the corrected clock.
    expect((await rejection(ssm.send(CALL))).name).toBe("ParameterNotFound");
    expect(server.received).toHaveLength(2);
    for (const call of [1, 2, 3]) {
      expect((await rejection(ssm.send(CALL))).name).toBe("ParameterNotFound");
      expect(server.received).toHaveLength(2 + call);
    }
  });
});
