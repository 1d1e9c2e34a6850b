/**
 * What EventBridge does for the local stack: Step Functions execution status changes become the events
 * AWS sends, delivered to the functions whose `eventBridge` pattern in serverless.yml matches.
 */
import { randomUUID } from "node:crypto";
import type { EventBridgeEvent } from "aws-lambda";
import type { ExecutionStatusChange } from "./stepfunctions/index.ts";

export function executionStatusEvent(
  change: ExecutionStatusChange,
  region: string,
  account: string,
): EventBridgeEvent<"Step Functions Execution Status Change", ExecutionStatusChange> {
  return {
    version: "0",
    id: randomUUID(),
    "detail-type": "Step Functions Execution Status Change",
    source: "aws.states",
    account,
    time: new Date().toISOString(),
    region,
    resources: [change.executionArn],
    detail: change,
  };
}

/**
 * EventBridge content matching (also Lambda event filtering) for the forms serverless.yml uses: a list of
 * allowed values (or `{"exists": bool}`), or a nested object of such lists. `resolve` turns CloudFormation refs (`{"Fn::Ref": id}`) into local values.
 * As on AWS, `exists` matches only a leaf: an object there (a DynamoDB attribute's `{"N": …}`, say) matches
 * neither `true` nor `false`, so a pattern that would never match on AWS never matches here either.
 */
/** An intermediate node of an event (an object), where `exists` matches nothing. */
const isNode = (value: unknown) => typeof value === "object" && value !== null && !Array.isArray(value);

export function matchesPattern(
  event: unknown,
  pattern: unknown,
  resolve: (value: unknown) => unknown,
): boolean {
  if (Array.isArray(pattern)) {
    return pattern.some((allowed) => {
      // `{"exists": true|false}`: whether the field is there at all (EventBridge and Lambda event filtering).
      const exists = (allowed as { exists?: unknown } | null)?.exists;
      if (typeof exists === "boolean") return !isNode(event) && exists === (event !== undefined);
      return resolve(allowed) === event;
    });
  }
  if (typeof pattern !== "object" || pattern === null) return resolve(pattern) === event;
  if (typeof event !== "object" || event === null) return false;
  return Object.entries(pattern).every(([key, sub]) =>
    matchesPattern((event as Record<string, unknown>)[key], sub, resolve),
  );
}
