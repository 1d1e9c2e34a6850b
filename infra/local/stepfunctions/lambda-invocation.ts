import { randomBytes, randomUUID } from "node:crypto";
import type { Context } from "aws-lambda";
import {
  type AwsLocation,
  type LambdaFunctionRef,
  lambdaFunctionArn,
  parseLambdaFunctionRef,
} from "./arns.ts";
import { describeThrown, lambdaErrorCause, TaskFailureError } from "./task-errors.ts";
import type { JsonValue, LocalLambdaHandler } from "./types.ts";

/**
 * Lambda's maximum timeout. The local engine does not cut handlers off; the number only feeds
 * `getRemainingTimeInMillis`, for handlers that budget their work by it.
 */
const FUNCTION_TIMEOUT_MS = 900_000;

function unsupportedCallbackApi(): never {
  throw new Error("context.done/fail/succeed are not supported locally; return a promise from the handler");
}

function logStreamName(now: Date): string {
  const day = now.toISOString().slice(0, 10).replaceAll("-", "/");
  return `${day}/[$LATEST]${randomBytes(16).toString("hex")}`;
}

/** A Context with the fields the Node.js runtime sets, for a function invoked as `ref`. */
export function createLambdaContext(location: AwsLocation, ref: LambdaFunctionRef): Context {
  const deadline = Date.now() + FUNCTION_TIMEOUT_MS;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: ref.name,
    functionVersion: "$LATEST",
    invokedFunctionArn: lambdaFunctionArn(location, ref.name, ref.qualifier),
    memoryLimitInMB: "1024",
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${ref.name}`,
    logStreamName: logStreamName(new Date()),
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupportedCallbackApi,
    fail: unsupportedCallbackApi,
    succeed: unsupportedCallbackApi,
  };
}

/** Lambda's JSON round trip: the handler gets its own copy, and `undefined` comes back as null. */
function viaJson(value: unknown): JsonValue {
  const text = JSON.stringify(value);
  return text === undefined ? null : (JSON.parse(text) as JsonValue);
}

/**
 * Invokes a local handler as Lambda would for Step Functions. A handler that throws becomes a
 * `TaskFailureError` whose name is the thrown error's name and whose Cause is the runtime's error JSON, so
 * `ErrorEquals` on that name matches; a function with no local handler fails like a missing function.
 */
export async function invokeLocalLambda(
  lambdas: Record<string, LocalLambdaHandler>,
  location: AwsLocation,
  functionName: string,
  payload: JsonValue,
): Promise<JsonValue> {
  const ref = parseLambdaFunctionRef(functionName);
  const handler = ref && Object.hasOwn(lambdas, ref.name) ? lambdas[ref.name] : undefined;
  if (!ref || !handler) {
    throw new TaskFailureError(
      "Lambda.ResourceNotFoundException",
      `Function not found: ${functionName} (Service: Lambda, Status Code: 404, Request ID: ${randomUUID()})`,
    );
  }
  try {
    return viaJson(await handler(viaJson(payload), createLambdaContext(location, ref)));
  } catch (thrown) {
    const { errorType, errorMessage } = describeThrown(thrown);
    throw new TaskFailureError(errorType, lambdaErrorCause(errorType, errorMessage));
  }
}
