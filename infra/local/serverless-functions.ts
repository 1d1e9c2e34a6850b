/**
 * Reads the functions and HTTP API routes from serverless.yml, so the local stack serves exactly what
 * deploys: the same handler modules at the same routes. serverless.yml's `functions` is a list of maps the
 * framework merges; an item `${file(<file>.cjs):<key>}` is that plain-data export of the file (the channels'
 * webhooks, infra/deploy/webhooks.cjs).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { parse } from "yaml";

export interface HttpRoute {
  method: string;
  path: string;
}

export interface ServerlessFunction {
  /** The key under `functions:` (e.g. `questionsApi`). */
  key: string;
  /** Module path relative to the project root, without extension (e.g. `functions/questions-api`). */
  module: string;
  exportName: string;
  routes: HttpRoute[];
  /** EventBridge patterns of its `eventBridge` events (CloudFormation refs left as `{"Fn::Ref": id}`). */
  eventPatterns: Record<string, unknown>[];
  /** Its DynamoDB `stream` events: the table (logical id of `!GetAtt <Table>.StreamArn`) and delivery settings. */
  streams: StreamSubscription[];
  /** The queues of its `sqs` events: the logical id of `!GetAtt <Queue>.Arn`. */
  queues: string[];
  /** The CloudFormation logical id serverless gives it, which state machines reference with Fn::GetAtt. */
  logicalId: string;
}

export interface StreamSubscription {
  /** The logical id of the table whose stream it reads. */
  table: string;
  filterPatterns: Record<string, unknown>[];
  maximumRetryAttempts?: number | undefined;
}

interface StreamEvent {
  type?: string;
  arn?: unknown;
  filterPatterns?: Record<string, unknown>[];
  maximumRetryAttempts?: number;
}

/** `!GetAtt Table.StreamArn` (or the long form) → `Table`. */
function streamTable(arn: unknown): string | undefined {
  return attributeOf(arn, "StreamArn");
}

/** `!GetAtt Resource.<attribute>` (or the long form) → `Resource`. */
function attributeOf(arn: unknown, wanted: string): string | undefined {
  const getAtt = (arn as { "Fn::GetAtt"?: unknown } | null)?.["Fn::GetAtt"];
  const [resource, attribute] =
    typeof getAtt === "string" ? getAtt.split(".") : Array.isArray(getAtt) ? getAtt : [];
  return attribute === wanted && typeof resource === "string" ? resource : undefined;
}

/** CloudFormation short-form tags (`!Ref X`) become plain objects: the local stack does not evaluate them. */
const cloudFormationTags = ["!Ref", "!GetAtt", "!Sub", "!Join", "!If", "!Select"].map((tag) => ({
  tag,
  resolve: (value: unknown) => ({ [`Fn::${tag.slice(1)}`]: value }),
}));

/** One function of serverless.yml, as far as the local stack reads it. */
export interface FunctionConfig {
  handler: string;
  timeout?: number;
  memorySize?: number;
  events?: {
    httpApi?: HttpRoute;
    eventBridge?: { pattern?: Record<string, unknown> };
    stream?: StreamEvent;
    sqs?: { arn?: unknown } | string;
  }[];
}

const FILE_EXPORT = /^\$\{file\(([^)]+\.cjs)\):([A-Za-z0-9_]+)\}$/;

/** serverless.yml's functions by key: its maps merged, each `${file(….cjs):<key>}` item read from the file. */
export function readServerlessFunctionConfigs(projectRoot: string): Record<string, FunctionConfig> {
  const text = readFileSync(join(projectRoot, "serverless.yml"), "utf8");
  const doc = parse(text, { customTags: cloudFormationTags }) as {
    functions: Record<string, FunctionConfig> | (Record<string, FunctionConfig> | string)[];
  };
  const items = Array.isArray(doc.functions) ? doc.functions : [doc.functions];
  const require = createRequire(join(projectRoot, "serverless.yml"));
  return Object.assign(
    {},
    ...items.map((item) => {
      if (typeof item !== "string") return item;
      const [, file, key] = FILE_EXPORT.exec(item) ?? [];
      const value =
        file && key ? (require(join(projectRoot, file)) as Record<string, unknown>)[key] : undefined;
      if (value === null || typeof value !== "object") {
        throw new Error(`serverless.yml functions: ${item} is not a plain-data export of a .cjs file`);
      }
      return value as Record<string, FunctionConfig>;
    }),
  );
}

export function readServerlessFunctions(projectRoot: string): ServerlessFunction[] {
  return Object.entries(readServerlessFunctionConfigs(projectRoot)).map(([key, fn]) => {
    const dot = fn.handler.lastIndexOf(".");
    return {
      key,
      module: fn.handler.slice(0, dot),
      exportName: fn.handler.slice(dot + 1),
      routes: (fn.events ?? []).flatMap((event) =>
        event.httpApi ? [{ method: event.httpApi.method.toUpperCase(), path: event.httpApi.path }] : [],
      ),
      eventPatterns: (fn.events ?? []).flatMap((event) =>
        event.eventBridge?.pattern ? [event.eventBridge.pattern] : [],
      ),
      streams: (fn.events ?? []).flatMap((event) => {
        const table = event.stream?.type === "dynamodb" ? streamTable(event.stream.arn) : undefined;
        return table && event.stream
          ? [
              {
                table,
                filterPatterns: event.stream.filterPatterns ?? [],
                maximumRetryAttempts: event.stream.maximumRetryAttempts,
              },
            ]
          : [];
      }),
      queues: (fn.events ?? []).flatMap((event) => {
        const arn = typeof event.sqs === "object" ? event.sqs.arn : undefined;
        const queue = attributeOf(arn, "Arn");
        return queue ? [queue] : [];
      }),
      logicalId: `${key.charAt(0).toUpperCase()}${key.slice(1).replaceAll("-", "Dash").replaceAll("_", "Underscore")}LambdaFunction`,
    };
  });
}
