/**
 * Reads the functions and HTTP API routes from serverless.yml, so the local stack serves exactly what
 * deploys: the same handler modules at the same routes.
 */
import { readFileSync } from "node:fs";
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
  /** The CloudFormation logical id serverless gives it, which state machines reference with Fn::GetAtt. */
  logicalId: string;
}

/** CloudFormation short-form tags (`!Ref X`) become plain objects: the local stack does not evaluate them. */
const cloudFormationTags = ["!Ref", "!GetAtt", "!Sub", "!Join", "!If", "!Select"].map((tag) => ({
  tag,
  resolve: (value: unknown) => ({ [`Fn::${tag.slice(1)}`]: value }),
}));

export function readServerlessFunctions(projectRoot: string): ServerlessFunction[] {
  const text = readFileSync(join(projectRoot, "serverless.yml"), "utf8");
  const doc = parse(text, { customTags: cloudFormationTags }) as {
    functions: Record<
      string,
      {
        handler: string;
        events?: { httpApi?: HttpRoute; eventBridge?: { pattern?: Record<string, unknown> } }[];
      }
    >;
  };
  return Object.entries(doc.functions).map(([key, fn]) => {
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
      logicalId: `${key.charAt(0).toUpperCase()}${key.slice(1).replaceAll("-", "Dash").replaceAll("_", "Underscore")}LambdaFunction`,
    };
  });
}
