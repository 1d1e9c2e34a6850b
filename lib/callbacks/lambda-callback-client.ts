/**
 * The parts of the Lambda client the durable callbacks use (./durable-callbacks.ts). Loaded with `import()`
 * at a function's first durable callback, never at its start: answers resume Step Functions runs far more
 * often than durable ones, and a function that never meets a durable question never evaluates the Lambda
 * client. The bundler answers this import with these parts alone, each from its own file of the client
 * (scripts/esbuild-plugins.cjs): a lazily evaluated package index would evaluate all of Lambda's API.
 */
import {
  LambdaClient,
  SendDurableExecutionCallbackFailureCommand,
  SendDurableExecutionCallbackHeartbeatCommand,
  SendDurableExecutionCallbackSuccessCommand,
} from "@aws-sdk/client-lambda";

export {
  LambdaClient,
  SendDurableExecutionCallbackFailureCommand,
  SendDurableExecutionCallbackHeartbeatCommand,
  SendDurableExecutionCallbackSuccessCommand,
};
