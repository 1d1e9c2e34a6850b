/**
 * One AWS API call sent without the service's SDK client: built, SigV4-signed and sent with what every
 * bundle already carries for the DynamoDB client — the SDK's signer and SHA-256, its default credential
 * chain and Region lookup, its HTTP request and Node.js handler (node:https; each attempt is traced by
 * ../telemetry/outbound-trace.ts under the operation's name, never its path), and its standard retry strategy. A client registers every error class and schema
 * of its service's API when it is imported, which tree shaking cannot drop; a function that makes two or
 * three kinds of call to a service pays less to send them itself (lib/secrets/ssm-parameter-provider.ts,
 * lib/callbacks/durable-callbacks.ts).
 */
import { partition } from "@aws-sdk/core/client";
import { defaultProvider } from "@aws-sdk/credential-provider-node";
import { Sha256 } from "@smithy/core/checksum";
import { loadConfig, NODE_REGION_CONFIG_FILE_OPTIONS, NODE_REGION_CONFIG_OPTIONS } from "@smithy/core/config";
import { HttpRequest } from "@smithy/core/protocols";
import {
  AdaptiveRetryStrategy,
  DEFAULT_MAX_ATTEMPTS,
  getRetryAfterHint,
  isServerError,
  isThrottlingError,
  isTransientError,
  NODE_MAX_ATTEMPT_CONFIG_OPTIONS,
  StandardRetryStrategy,
} from "@smithy/core/retry";
import { NodeHttpHandler, streamCollector } from "@smithy/node-http-handler";
import { SignatureV4 } from "@smithy/signature-v4";
import { ConfigError } from "../config-error.ts";
import { traceOutbound } from "../telemetry/outbound-trace.ts";

export interface AwsRequestOptions {
  /** The Region; absent, the SDK's own lookup (AWS_REGION, then the shared config file). */
  region?: string | undefined;
  /** Fixed credentials; absent, the SDK's default credential chain (a Lambda function's role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | undefined;
  /**
   * The service's endpoint; absent, the environment's `AWS_ENDPOINT_URL_<SERVICE>` or `AWS_ENDPOINT_URL`
   * (unless `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` is true), as the SDK reads them, else the Region's own —
   * its FIPS or dual-stack host when `AWS_USE_FIPS_ENDPOINT` / `AWS_USE_DUALSTACK_ENDPOINT` is true.
   */
  endpoint?: string | undefined;
  /**
   * Retries of throttling, 5xx and network errors; absent, the SDK's standard strategy, or its adaptive one
   * with `AWS_RETRY_MODE=adaptive`, of `AWS_MAX_ATTEMPTS` attempts (3 without it).
   */
  retryStrategy?: AwsRetryStrategy | undefined;
  /** The environment the endpoint and retry settings are read from (process.env). */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** How long one attempt may wait for a connection, then for the response; absent, AWS_TIMEOUTS. */
  timeouts?: AwsTimeouts | undefined;
  /**
   * What sends each signed request; absent, Node's (NodeHttpHandler with `timeouts`). Tests record with it.
   * Each attempt passes it its own `requestTimeout` (less than `timeouts.requestMs` near `callMs`'s end).
   */
  httpHandler?: Pick<NodeHttpHandler, "handle"> | undefined;
}

/**
 * One attempt's limits. Without them Node waits on a connection that is never accepted (a VPC endpoint
 * dropping SYN) as long as the OS does, and a function's secret preload would use its whole timeout; the
 * SDK's clients get a connection timeout only under AWS_DEFAULTS_MODE=in-region. An attempt cut off is
 * a TimeoutError the retry strategy retries, so three attempts stay well inside a function's timeout.
 */
export const AWS_TIMEOUTS = { connectionMs: 2_000, requestMs: 2_500 } as const;

/**
 * A durable callback's: a connection not opened in 2 s is retried (nothing was sent), but a sent callback
 * waits up to 7 s for Lambda's answer, as one cut off after Lambda applied it finds the callback ended when
 * resent. A fixed 7 s for the whole call, retries included, since the use cases send it where the
 * invocation's remaining time is not at hand. The chat webhooks send with AWS_WEBHOOK_CALLBACK_TIMEOUTS.
 */
export const AWS_CALLBACK_TIMEOUTS = { connectionMs: 2_000, requestMs: 7_000, callMs: 7_000 } as const;

/**
 * A durable callback's inside a chat webhook, which resumes the run before it replies and must reply within
 * the platform's 3 s: waiting longer buys nothing there, as a callback cut off is left to the table's stream
 * (its answer is kept, the run `pending_retry`), which sends it again with AWS_CALLBACK_TIMEOUTS.
 */
export const AWS_WEBHOOK_CALLBACK_TIMEOUTS = {
  connectionMs: 1_000,
  requestMs: 1_500,
  callMs: 1_500,
} as const;

/**
 * One attempt's limits: for a connection, then for the response (from the attempt's start). The socket may
 * also stay idle no longer than the response may take, so that a response whose body stalls after its
 * headers is cut off too. With `callMs`, every attempt of one call, the waits between them included, ends
 * within it: an attempt gets only what is left of it, and none is started with less than MIN_ATTEMPT_MS.
 */
export interface AwsTimeouts {
  connectionMs: number;
  requestMs: number;
  callMs?: number | undefined;
}

/** An attempt with less of its call's time left than this is not started: it could not be answered. */
const MIN_ATTEMPT_MS = 250;

/** What Node's handler is built with for `timeouts`. Exported for tests that build one with their own agent. */
export function attemptHandlerOptions(timeouts: AwsTimeouts) {
  // requestTimeout alone only logs a warning in this handler; throwOnRequestTimeout makes it an error. It
  // ends at the response's headers: the socket timeout cuts off a body that stalls after them.
  return {
    connectionTimeout: timeouts.connectionMs,
    requestTimeout: timeouts.requestMs,
    socketTimeout: timeouts.requestMs,
    throwOnRequestTimeout: true,
  };
}

type RetryToken = Awaited<ReturnType<AdaptiveRetryStrategy["acquireInitialRetryToken"]>>;
type RetryErrorInfo = Parameters<AdaptiveRetryStrategy["refreshRetryTokenForRetry"]>[1];

/** A retry strategy of the SDK (its standard or adaptive one). */
export interface AwsRetryStrategy {
  acquireInitialRetryToken(scope: string): Promise<RetryToken>;
  refreshRetryTokenForRetry(token: RetryToken, errorInfo: RetryErrorInfo): Promise<RetryToken>;
  recordSuccess(token: RetryToken): void;
}

/** The service: its signing name (the endpoint's first label too) and how its errors are worded. */
export interface AwsServiceId {
  /** `ssm`, `lambda`: the SigV4 signing name, `AWS_ENDPOINT_URL_<SIGNING NAME>` and the Region's host. */
  signingName: string;
  /** How an error message names it when the service gave none: `SSM`, `Lambda`. */
  label: string;
  /**
   * The service's protocol, which decides where an error's type is read first, as the SDK reads it: the
   * body's `__type`, then `code`, then the `x-amzn-errortype` header (`awsJson1_1`, SSM); the header first
   * (`restJson1`, Lambda).
   */
  protocol: "awsJson1_1" | "restJson1";
  /**
   * The partitions whose FIPS endpoint is the service's regular host (SSM's in `aws-us-gov`, which is
   * FIPS-validated already), as the service's endpoint rules in its SDK client say; elsewhere `<name>-fips`.
   */
  fipsIsRegularHostIn?: readonly string[] | undefined;
}

/** One call: the operation's name (for messages), its HTTP binding and its body. */
export interface AwsCall {
  operation: string;
  method: "POST" | "GET" | "PUT" | "DELETE";
  /** The path under the endpoint's, its labels already URI-encoded. */
  path: string;
  headers?: Record<string, string> | undefined;
  body?: string | Uint8Array | undefined;
}

/**
 * An error the service answered (its error type, e.g. `ThrottlingException`, `CallbackTimeoutException`, as
 * `name`), with the HTTP status the SDK's retry classification reads. Its message is the service's.
 */
export class AwsServiceError extends Error {
  /** `clockSkewCorrected`: the clock offset changed with this error, so a retry is signed right (transient). */
  readonly $metadata: { httpStatusCode: number; clockSkewCorrected?: boolean };
  readonly $fault: "client" | "server";
  /** When the service asked to be called again (`x-amz-retry-after`, `retry-after`), if it did. */
  readonly retryAfterHint: Date | undefined;
  /**
   * An earlier attempt of the same call may have reached the service without an answer that says what it
   * did (cut off after its request was sent, its connection lost, a 5xx): this answer may follow from it.
   */
  afterUnansweredAttempt = false;
  constructor(name: string, message: string, status: number, retryAfterHint?: Date) {
    super(message);
    this.name = name;
    this.$metadata = { httpStatusCode: status };
    this.$fault = status >= 500 ? "server" : "client";
    this.retryAfterHint = retryAfterHint;
  }
}

/** Sends signed calls to one service; the Region, signer and handler are built at the first call. */
export interface AwsRequests {
  /**
   * Sends `call`, retried as the SDK's standard strategy retries (throttling, 5xx, network errors), and
   * resolves with a 2xx response's JSON object — `{}` for an empty body, undefined for a body that is not a
   * JSON object; rejects with an AwsServiceError for any other status.
   */
  send(call: AwsCall): Promise<Record<string, unknown> | undefined>;
}

type RetryErrorType = RetryErrorInfo["errorType"];

export function createAwsRequests(service: AwsServiceId, options: AwsRequestOptions = {}): AwsRequests {
  const retry = options.retryStrategy ?? defaultRetryStrategy(options.env ?? process.env);
  const timeouts: AwsTimeouts = options.timeouts ?? AWS_TIMEOUTS;
  let region: Promise<string> | undefined;
  let signer: SignatureV4 | undefined;
  let handler: Pick<NodeHttpHandler, "handle"> | undefined = options.httpHandler;
  /** The service's clock minus this one, from the Date of the last error that showed this one 5 minutes off. */
  let clockOffset = 0;

  function resolveRegion(): Promise<string> {
    const given = options.region;
    // A lookup that failed is not kept: the next call looks again, as an SDK client's does.
    region ??= (
      given !== undefined
        ? Promise.resolve(given)
        : loadConfig(NODE_REGION_CONFIG_OPTIONS, NODE_REGION_CONFIG_FILE_OPTIONS)()
    ).catch((error: unknown) => {
      region = undefined;
      throw error;
    });
    return region;
  }

  /** One attempt; `attempt.handed` once its request is given to the handler (before that, nothing is sent). */
  async function sendOnce(
    call: AwsCall,
    attemptMs: number,
    attempt: { handed: boolean },
  ): Promise<Record<string, unknown> | undefined> {
    const regionName = await resolveRegion();
    const endpoint = new URL(awsEndpoint(service, regionName, options));
    const base = endpoint.pathname.replace(/\/$/, "");
    const body = call.body;
    const request = new HttpRequest({
      protocol: endpoint.protocol,
      hostname: endpoint.hostname,
      ...(endpoint.port !== "" && { port: Number(endpoint.port) }),
      method: call.method,
      path: `${base}${call.path}`,
      headers: {
        ...call.headers,
        host: endpoint.host,
        "content-length": String(body === undefined ? 0 : Buffer.byteLength(body)),
      },
      ...(body !== undefined && { body }),
    });
    signer ??= new SignatureV4({
      service: service.signingName,
      region: regionName,
      credentials: options.credentials ?? defaultProvider(),
      sha256: Sha256,
      uriEscapePath: true,
    });
    const offsetBefore = clockOffset;
    const sentAt = Date.now();
    const signed = await signer.sign(request, { signingDate: new Date(sentAt + clockOffset) });
    handler ??= new NodeHttpHandler(attemptHandlerOptions(timeouts));
    attempt.handed = true;
    const { response } = await traceOutbound(
      { url: endpoint.origin, method: call.method, name: call.operation },
      handler.handle(signed as HttpRequest, { requestTimeout: attemptMs }),
      (reply) => reply.response.statusCode,
    );
    const text = new TextDecoder().decode(await streamCollector(response.body));
    const status = response.statusCode;
    const parsed = parseJson(text);
    if (status >= 200 && status < 300) return parsed;
    const name =
      errorType(service.protocol, response.headers, parsed) ??
      (status >= 500 ? "InternalServerError" : "UnknownError");
    const message = parsed?.message ?? parsed?.Message;
    const error = new AwsServiceError(
      name,
      typeof message === "string"
        ? message
        : `${service.label} refused ${call.operation} with HTTP ${status}.`,
      status,
      getRetryAfterHint(response),
    );
    // An error's Date corrects the offset only when the clock is 5 minutes or more off the service's, as the
    // SDK's signer judged a skew before it re-sampled every Date: a Date has whole seconds, so re-sampling
    // would change the offset at nearly every error and have every 4xx retried as a corrected skew.
    const serverTime = Date.parse(response.headers.date ?? "");
    const receivedAt = Date.now();
    const skewedBy = (offset: number) => Math.abs(receivedAt + offset - serverTime) >= 300_000;
    if (
      !Number.isNaN(serverTime) &&
      response.headers.age === undefined &&
      receivedAt - sentAt <= 900_000 &&
      skewedBy(offsetBefore)
    ) {
      // A call that corrected the offset meanwhile is kept; this attempt, signed with the old one, is retried.
      if (skewedBy(clockOffset)) clockOffset = serverTime - receivedAt;
      error.$metadata.clockSkewCorrected = true;
    }
    throw error;
  }

  return {
    async send(call) {
      const endsAt = timeouts.callMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + timeouts.callMs;
      const timeLeft = () => endsAt - Date.now() >= MIN_ATTEMPT_MS;
      let token = await retry.acquireInitialRetryToken(service.signingName);
      /** Whether an attempt of this call may have reached the service without an answer saying what it did. */
      let unanswered = false;
      for (;;) {
        const attempt = { handed: false };
        try {
          const result = await sendOnce(call, Math.min(timeouts.requestMs, endsAt - Date.now()), attempt);
          retry.recordSuccess(token);
          return result;
        } catch (error) {
          if (error instanceof AwsServiceError) error.afterUnansweredAttempt = unanswered;
          unanswered ||= attempt.handed && mayHaveReachedService(error);
          if (!timeLeft()) throw error;
          try {
            const retryAfterHint = error instanceof AwsServiceError ? error.retryAfterHint : undefined;
            token = await retry.refreshRetryTokenForRetry(token, {
              errorType: retryErrorType(error),
              ...(retryAfterHint !== undefined && { retryAfterHint }),
            });
          } catch {
            throw error;
          }
          if (!timeLeft()) throw error;
        }
      }
    },
  };
}

/** Network failures before a request is sent (no connection): the service cannot have read it. */
const NOT_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH"]);

/**
 * Whether an attempt that failed once its request was handed to the handler may have been read and acted
 * on: a 5xx, or any failure without a response but one before a connection was made (refused, unresolved,
 * not opened within its timeout: NodeHttpHandler's TimeoutError for it says so).
 */
function mayHaveReachedService(error: unknown): boolean {
  if (error instanceof AwsServiceError) {
    return error.$fault === "server" && retryErrorType(error) !== "THROTTLING";
  }
  if (!(error instanceof Error)) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && NOT_SENT_CODES.has(code)) return false;
  return !(error.name === "TimeoutError" && error.message.includes("did not establish a connection"));
}

/**
 * The strategy an SDK client builds from the environment: adaptive when AWS_RETRY_MODE says so, else
 * standard, with AWS_MAX_ATTEMPTS attempts read as the SDK's config loader reads it (a value that is not a
 * number leaves the default, with the strategy's warning). The shared config file's max_attempts and
 * retry_mode are not read (a Lambda function has none).
 */
function defaultRetryStrategy(env: Readonly<Record<string, string | undefined>>): AwsRetryStrategy {
  const maxAttempts = async () =>
    NODE_MAX_ATTEMPT_CONFIG_OPTIONS.environmentVariableSelector({ ...env }) ?? DEFAULT_MAX_ATTEMPTS;
  return env.AWS_RETRY_MODE === "adaptive"
    ? new AdaptiveRetryStrategy(maxAttempts)
    : new StandardRetryStrategy(maxAttempts);
}

/** A boolean setting as the SDK reads it from the environment: absent false, else "true" or "false". */
function flag(env: Readonly<Record<string, string | undefined>>, name: string): boolean {
  const value = env[name];
  if (value === undefined || value === "false") return false;
  if (value === "true") return true;
  throw new ConfigError(`Invalid configuration: ${name} must be "true" or "false".`);
}

/**
 * The service's endpoint in the Region, as the endpoint rules of its SDK client resolve it: one configured
 * as it is, refused with FIPS or dual-stack on (no rule can make a custom host FIPS); else the Region's
 * partition's host, its FIPS and dual-stack variants as that service names them.
 */
export function awsEndpoint(
  service: AwsServiceId,
  regionName: string,
  options: Pick<AwsRequestOptions, "endpoint" | "env"> = {},
): string {
  const env = options.env ?? process.env;
  const fips = flag(env, "AWS_USE_FIPS_ENDPOINT");
  const dualStack = flag(env, "AWS_USE_DUALSTACK_ENDPOINT");
  let custom = options.endpoint;
  if (custom === undefined && env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS?.toLowerCase() !== "true") {
    const configured = env[`AWS_ENDPOINT_URL_${service.signingName.toUpperCase()}`] ?? env.AWS_ENDPOINT_URL;
    if (configured !== undefined && configured !== "") custom = configured;
  }
  if (custom !== undefined) {
    if (fips || dualStack) {
      throw new ConfigError(
        `Invalid configuration: ${fips ? "AWS_USE_FIPS_ENDPOINT" : "AWS_USE_DUALSTACK_ENDPOINT"} is true with a custom ${service.label} endpoint; the SDK does not support both.`,
      );
    }
    return custom;
  }
  const region = partition(regionName);
  if ((fips && !region.supportsFIPS) || (dualStack && !region.supportsDualStack)) {
    throw new ConfigError(
      `Invalid configuration: the ${region.name} partition of ${regionName} has no ${fips && !region.supportsFIPS ? "FIPS" : "dual-stack"} endpoints.`,
    );
  }
  const regularHost = !dualStack && service.fipsIsRegularHostIn?.includes(region.name) === true;
  const name = fips && !regularHost ? `${service.signingName}-fips` : service.signingName;
  return `https://${name}.${regionName}.${dualStack ? region.dualStackDnsSuffix : region.dnsSuffix}`;
}

/** The retry class of an error, as the SDK's retry middleware classifies it. */
function retryErrorType(error: unknown): RetryErrorType {
  if (!(error instanceof Error)) return "CLIENT_ERROR";
  const sdkError = error as Parameters<typeof isThrottlingError>[0];
  if (isThrottlingError(sdkError)) return "THROTTLING";
  if (isTransientError(sdkError)) return "TRANSIENT";
  if (isServerError(sdkError)) return "SERVER_ERROR";
  return "CLIENT_ERROR";
}

/** Where each protocol's error type is read, in order, as the SDK's JSON protocols read it. */
const ERROR_TYPE_ORDER = {
  awsJson1_1: ["type", "code", "header"],
  restJson1: ["header", "code", "type"],
} as const;

/** The error's type from the first place that names one; an empty value names none. */
function errorType(
  protocol: AwsServiceId["protocol"],
  headers: Record<string, string | undefined>,
  body: Record<string, unknown> | undefined,
): string | undefined {
  const codeKey = Object.keys(body ?? {}).find((key) => key.toLowerCase() === "code");
  const places = {
    header: headers["x-amzn-errortype"],
    code: codeKey === undefined ? undefined : body?.[codeKey],
    type: body?.__type,
  };
  for (const place of ERROR_TYPE_ORDER[protocol]) {
    const name = errorName(places[place]);
    if (name !== undefined) return name;
  }
  return undefined;
}

/**
 * `com.amazonaws.ssm#ParameterNotFound`, `CallbackTimeoutException:http://…` or `ThrottlingException,foo`
 * → the error's bare name; undefined for an empty one.
 */
function errorName(type: unknown): string | undefined {
  if (typeof type !== "string" && typeof type !== "number") return undefined;
  const name = String(type).split(",")[0]?.split(":")[0]?.split("#").pop()?.trim();
  return name === undefined || name === "" ? undefined : name;
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text === "" ? "{}" : text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
