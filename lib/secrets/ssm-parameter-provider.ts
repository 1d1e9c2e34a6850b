/**
 * Powertools Parameters' provider for SSM Parameter Store, speaking SSM's AWS JSON 1.1 API itself (`POST /`,
 * `X-Amz-Target: AmazonSSM.GetParameter` / `AmazonSSM.GetParametersByPath`) instead of through the SSM client.
 * The client registers every error class and schema of SSM's API when it is imported, which tree shaking
 * cannot drop; a function pays to load and evaluate all of it at every cold start for two read calls. This
 * provider is built only of what every bundle already carries for the DynamoDB client: the SDK's SigV4
 * signer and SHA-256, its default credential chain and Region lookup, its HTTP request and Node.js handler
 * (node:https, which the tracer captures like the SDK's own requests), and its standard retry strategy.
 * Powertools keeps the cache and the `get` / `getMultiple` API (BaseProvider).
 */
import { BaseProvider } from "@aws-lambda-powertools/parameters/base";
import { partition } from "@aws-sdk/core/client";
import { defaultProvider } from "@aws-sdk/credential-provider-node";
import { Sha256 } from "@smithy/core/checksum";
import { loadConfig, NODE_REGION_CONFIG_FILE_OPTIONS, NODE_REGION_CONFIG_OPTIONS } from "@smithy/core/config";
import { HttpRequest } from "@smithy/core/protocols";
import {
  isServerError,
  isThrottlingError,
  isTransientError,
  StandardRetryStrategy,
} from "@smithy/core/retry";
import { NodeHttpHandler, streamCollector } from "@smithy/node-http-handler";
import { SignatureV4 } from "@smithy/signature-v4";

export interface SsmParameterProviderOptions {
  /** The Region; absent, the SDK's own lookup (AWS_REGION, then the shared config file). */
  region?: string | undefined;
  /** Fixed credentials; absent, the SDK's default credential chain (a Lambda function's role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | undefined;
  /**
   * SSM's endpoint; absent, the environment's `AWS_ENDPOINT_URL_SSM` or `AWS_ENDPOINT_URL` (unless
   * `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` is true), as the SDK reads them, else the Region's own.
   */
  endpoint?: string | undefined;
  /** Retries of throttling, 5xx and network errors; absent, the SDK's standard strategy (3 attempts). */
  retryStrategy?: StandardRetryStrategy | undefined;
  /** The environment the endpoint settings are read from (process.env). */
  env?: Readonly<Record<string, string | undefined>> | undefined;
}

/** The options Handraise reads with: SSM's own, beyond Powertools' cache options. */
export interface SsmGetOptions {
  decrypt?: boolean;
  maxAge?: number;
  forceFetch?: boolean;
  throwOnMissing?: boolean;
}

export interface SsmGetMultipleOptions extends SsmGetOptions {
  recursive?: boolean;
}

/**
 * An error SSM answered (its `__type`, e.g. `ThrottlingException`, `AccessDeniedException`, as `name`), with
 * the HTTP status the SDK's retry classification reads. Its message is SSM's, which names no value.
 */
export class SsmServiceError extends Error {
  readonly $metadata: { httpStatusCode: number };
  readonly $fault: "client" | "server";
  constructor(name: string, message: string, status: number) {
    super(message);
    this.name = name;
    this.$metadata = { httpStatusCode: status };
    this.$fault = status >= 500 ? "server" : "client";
  }
}

const CONTENT_TYPE = "application/x-amz-json-1.1";

type Operation = "GetParameter" | "GetParametersByPath";
type RetryErrorType = Parameters<StandardRetryStrategy["refreshRetryTokenForRetry"]>[1]["errorType"];

export class SsmParameterProvider extends BaseProvider {
  readonly #options: SsmParameterProviderOptions;
  readonly #retry: StandardRetryStrategy;
  #region: Promise<string> | undefined;
  #signer: SignatureV4 | undefined;
  #handler: NodeHttpHandler | undefined;

  constructor(options: SsmParameterProviderOptions = {}) {
    super({});
    this.#options = options;
    this.#retry = options.retryStrategy ?? new StandardRetryStrategy(3);
  }

  override get(name: string, options?: SsmGetOptions): Promise<unknown> {
    return super.get(name, options);
  }

  override getMultiple(path: string, options?: SsmGetMultipleOptions): Promise<unknown> {
    return super.getMultiple(path, options);
  }

  /** The parameter's value; undefined when SSM has no such parameter (ParameterNotFound). */
  protected async _get(name: string, options?: SsmGetOptions): Promise<string | undefined> {
    let result: Record<string, unknown>;
    try {
      result = await this.#call("GetParameter", { Name: name, WithDecryption: options?.decrypt ?? false });
    } catch (error) {
      if (error instanceof SsmServiceError && error.name === "ParameterNotFound") return undefined;
      throw error;
    }
    const parameter = result.Parameter as { Value?: unknown } | undefined;
    if (typeof parameter?.Value !== "string") {
      throw malformed("GetParameter", `has no Parameter.Value for ${name}`);
    }
    return parameter.Value;
  }

  /** Every parameter under `path`, by its name relative to it, reading every page (NextToken). */
  protected async _getMultiple(
    path: string,
    options?: SsmGetMultipleOptions,
  ): Promise<Record<string, string>> {
    const values: Record<string, string> = {};
    let nextToken: string | undefined;
    do {
      const page = await this.#call("GetParametersByPath", {
        Path: path,
        WithDecryption: options?.decrypt ?? false,
        Recursive: options?.recursive ?? false,
        ...(nextToken !== undefined && { NextToken: nextToken }),
      });
      const parameters = page.Parameters ?? [];
      if (!Array.isArray(parameters)) throw malformed("GetParametersByPath", "has no Parameters list");
      for (const parameter of parameters as { Name?: unknown; Value?: unknown }[]) {
        if (typeof parameter?.Name !== "string" || typeof parameter.Value !== "string") {
          throw malformed("GetParametersByPath", `has a parameter without Name or Value under ${path}`);
        }
        // As Powertools' own SSM provider names them: the path and the slash after it taken off.
        values[parameter.Name.replace(path, "").replace(/^\//, "")] = parameter.Value;
      }
      if (page.NextToken !== undefined && typeof page.NextToken !== "string") {
        throw malformed("GetParametersByPath", "has a NextToken that is not a string");
      }
      nextToken = page.NextToken ? page.NextToken : undefined;
    } while (nextToken !== undefined);
    return values;
  }

  /** One call, retried as the SDK's standard strategy retries (throttling, 5xx, network errors). */
  async #call(operation: Operation, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    let token = await this.#retry.acquireInitialRetryToken("ssm");
    for (;;) {
      try {
        const result = await this.#send(operation, body);
        this.#retry.recordSuccess(token);
        return result;
      } catch (error) {
        try {
          token = await this.#retry.refreshRetryTokenForRetry(token, { errorType: retryErrorType(error) });
        } catch {
          throw error;
        }
      }
    }
  }

  async #send(operation: Operation, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const region = await this.#resolveRegion();
    const endpoint = new URL(this.#endpoint(region));
    const payload = JSON.stringify(body);
    const request = new HttpRequest({
      protocol: endpoint.protocol,
      hostname: endpoint.hostname,
      ...(endpoint.port !== "" && { port: Number(endpoint.port) }),
      method: "POST",
      path: endpoint.pathname === "" ? "/" : endpoint.pathname,
      headers: {
        host: endpoint.host,
        "content-type": CONTENT_TYPE,
        "content-length": String(Buffer.byteLength(payload)),
        "x-amz-target": `AmazonSSM.${operation}`,
      },
      body: payload,
    });
    this.#signer ??= new SignatureV4({
      service: "ssm",
      region,
      credentials: this.#options.credentials ?? defaultProvider(),
      sha256: Sha256,
      uriEscapePath: true,
    });
    const signed = await this.#signer.sign(request);
    this.#handler ??= new NodeHttpHandler();
    const { response } = await this.#handler.handle(signed as HttpRequest);
    const text = new TextDecoder().decode(await streamCollector(response.body));
    const status = response.statusCode;
    const parsed = parseJson(text);
    if (status >= 200 && status < 300) {
      if (parsed === undefined) throw malformed(operation, "is not a JSON object");
      return parsed;
    }
    const type = response.headers["x-amzn-errortype"] ?? parsed?.__type ?? parsed?.code;
    const name = errorName(type) ?? (status >= 500 ? "InternalServerError" : "UnknownError");
    const message = parsed?.message ?? parsed?.Message;
    throw new SsmServiceError(
      name,
      typeof message === "string" ? message : `SSM refused ${operation} with HTTP ${status}.`,
      status,
    );
  }

  #resolveRegion(): Promise<string> {
    const given = this.#options.region;
    this.#region ??=
      given !== undefined
        ? Promise.resolve(given)
        : loadConfig(NODE_REGION_CONFIG_OPTIONS, NODE_REGION_CONFIG_FILE_OPTIONS)();
    return this.#region;
  }

  #endpoint(region: string): string {
    if (this.#options.endpoint !== undefined) return this.#options.endpoint;
    const env = this.#options.env ?? process.env;
    if (env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS?.toLowerCase() !== "true") {
      const configured = env.AWS_ENDPOINT_URL_SSM ?? env.AWS_ENDPOINT_URL;
      if (configured !== undefined && configured !== "") return configured;
    }
    return `https://ssm.${region}.${partition(region).dnsSuffix}`;
  }
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

/** `com.amazonaws.ssm#ParameterNotFound` or `ParameterNotFound:http://…` → `ParameterNotFound`. */
function errorName(type: unknown): string | undefined {
  if (typeof type !== "string") return undefined;
  const name = type.split(":")[0]?.split("#").pop()?.trim();
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

/** A response SSM's API does not give: named by operation and what is wrong, never by what it held. */
function malformed(operation: Operation, what: string): Error {
  const error = new Error(`SSM's ${operation} response ${what}.`);
  error.name = "SsmMalformedResponse";
  return error;
}
