/**
 * How a function builds its AWS SDK clients when it is not left to the SDK's own defaults. Deployed, nothing
 * is given: each client reads the Region, the role's credentials and any `AWS_ENDPOINT_URL_<SERVICE>` from
 * Lambda's environment itself. A process that runs several sets of handlers at once (the local stack,
 * infra/local/stack.ts) gives each set its own services explicitly, so no set reaches another's.
 */
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";

/**
 * The services the wiring builds clients or signed requests for (lib/wiring.ts, lib/handlers/notifier.ts,
 * channels' clients; SSM and Lambda through lib/aws/signed-request.ts).
 */
export type AwsService =
  | "dynamodb"
  | "sfn"
  | "lambda"
  | "ssm"
  | "eventbridge"
  | "scheduler"
  | "sqs"
  | "sesv2";

export interface AwsClientSettings {
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** A service's endpoint; a service not listed gets the SDK's own (AWS, or its environment's override). */
  endpoints: Partial<Record<AwsService, string>>;
  /**
   * Called with each DynamoDB client built, before its first request (the benchmark counts DynamoDB units
   * with it; the local stack may route its requests in process). Nothing sets it when deployed.
   */
  observeDynamoDbClient?: ((client: DynamoDBClient) => void) | undefined;
}

/** The client configuration of `service` from the settings (empty without them: the SDK's defaults). */
export function awsClientConfig(aws: AwsClientSettings | undefined, service: AwsService) {
  if (aws === undefined) return {};
  const endpoint = aws.endpoints[service];
  return { region: aws.region, credentials: aws.credentials, ...(endpoint !== undefined && { endpoint }) };
}

/**
 * The settings of every client Handraise builds. `cacheMiddleware`: the client resolves its middleware stack
 * once per command class instead of on every request (a measurable share of each request's CPU on the answer
 * path). It ignores middleware added after the first request — every middleware here (the tracer's,
 * Powertools' user agent, the local stack's observer) is added when the client is built — and shares one
 * handler context across concurrent calls of a command, harmless for clients whose endpoint and
 * credentials do not depend on the request (not S3-style ones).
 */
export const SDK_CLIENT_CONFIG = { cacheMiddleware: true } as const;

/** A client's configuration: the settings above, and the process's own AWS settings when it gives them. */
export const sdkConfig = (aws: AwsClientSettings | undefined, service: AwsService) => ({
  ...SDK_CLIENT_CONFIG,
  ...awsClientConfig(aws, service),
});

/** What `sdkConfig` gives: a client's configuration. */
export type SdkClientConfig = ReturnType<typeof sdkConfig>;
