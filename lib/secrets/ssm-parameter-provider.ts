/**
 * Powertools Parameters' provider for SSM Parameter Store, speaking SSM's AWS JSON 1.1 API itself (`POST /`,
 * `X-Amz-Target: AmazonSSM.GetParameter` / `AmazonSSM.GetParametersByPath`) instead of through the SSM client.
 * The client registers every error class and schema of SSM's API when it is imported, which tree shaking
 * cannot drop; a function would pay to load and evaluate all of it at every cold start for two read calls.
 * The calls are signed and sent with the SDK pieces the DynamoDB client already brings
 * (../aws/signed-request.ts); Powertools keeps the cache and the `get` / `getMultiple` API (BaseProvider).
 */
import { BaseProvider } from "@aws-lambda-powertools/parameters/base";
import {
  type AwsRequestOptions,
  type AwsRequests,
  AwsServiceError,
  createAwsRequests,
} from "../aws/signed-request.ts";

/** The Region, credentials, endpoint (else `AWS_ENDPOINT_URL_SSM`), retry strategy and environment. */
export type SsmParameterProviderOptions = AwsRequestOptions;

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

const CONTENT_TYPE = "application/x-amz-json-1.1";

type Operation = "GetParameter" | "GetParametersByPath";

export class SsmParameterProvider extends BaseProvider {
  readonly #ssm: AwsRequests;

  constructor(options: SsmParameterProviderOptions = {}) {
    super({});
    this.#ssm = createAwsRequests(
      { signingName: "ssm", label: "SSM", protocol: "awsJson1_1", fipsIsRegularHostIn: ["aws-us-gov"] },
      options,
    );
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
      if (error instanceof AwsServiceError && error.name === "ParameterNotFound") return undefined;
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

  /** One call of SSM's AWS JSON 1.1 API (`POST /`, the operation in `X-Amz-Target`). */
  async #call(operation: Operation, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const result = await this.#ssm.send({
      operation,
      method: "POST",
      path: "/",
      headers: { "content-type": CONTENT_TYPE, "x-amz-target": `AmazonSSM.${operation}` },
      body: JSON.stringify(body),
    });
    if (result === undefined) throw malformed(operation, "is not a JSON object");
    return result;
  }
}

/** A response SSM's API does not give: named by operation and what is wrong, never by what it held. */
function malformed(operation: Operation, what: string): Error {
  const error = new Error(`SSM's ${operation} response ${what}.`);
  error.name = "SsmMalformedResponse";
  return error;
}
