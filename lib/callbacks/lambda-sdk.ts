/**
 * The part of the Lambda client SDK Handraise uses: the client and the three durable-execution callback
 * commands. Loaded with `await import()` of this module (lib/wiring.ts, durable-callbacks.ts), never of
 * `@aws-sdk/client-lambda` itself: a dynamic import of the package hands over its whole namespace, so the
 * bundler keeps every command, paginator and waiter of Lambda's API (≈ 120 KB that each function would parse at
 * cold start); named re-exports let it keep these four and what they need.
 */
export {
  LambdaClient,
  SendDurableExecutionCallbackFailureCommand,
  SendDurableExecutionCallbackHeartbeatCommand,
  SendDurableExecutionCallbackSuccessCommand,
} from "@aws-sdk/client-lambda";
