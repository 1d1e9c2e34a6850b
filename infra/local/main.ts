/**
 * `npm run local`: the local stack, headless. Logs one line per HTTP request and per run status change
 * (Powertools Logger: JSON lines, or readable ones in a terminal). Prints where each part listens and the
 * API key, then — last, so a script can wait for it — a line with `ready` and the HTTP URL once everything
 * answers.
 */
import { Logger } from "@aws-lambda-powertools/logger";
import { startFromCommandLine, stopOnSignals } from "./cli-options.ts";

// A terminal gets readable log lines (and no metric blobs); a pipe or a file gets one JSON object a line.
if (process.stdout.isTTY) process.env.POWERTOOLS_DEV ??= "true";
const log = new Logger({ serviceName: "handraise-local" });

const stack = await startFromCommandLine(process.env, {
  onRequest: (request) => log.info("request", { ...request }),
  onExecutionStatusChange: (change) =>
    log.info("run status", { executionArn: change.executionArn, status: change.status }),
});
stopOnSignals(stack.stop);
process.stdout.write(
  [
    `API key:            ${stack.apiKey}  (Authorization: Bearer <key>; HANDRAISE_API_KEY sets it)`,
    `Step Functions API: ${stack.sfnUrl}`,
    `DynamoDB:           ${stack.dynamodbUrl} (table ${stack.tableName})`,
    `MCP server:         ${stack.httpUrl}/mcp  (same key; X-Handraise-Owner: web:you)`,
    ...Object.entries(stack.stateMachineArns).map(([name, arn]) => `State machine ${name}: ${arn}`),
    // Runs are kept by the local Step Functions engine in memory only.
    "Runs do not survive a restart of the local stack; questions and answers do when HANDRAISE_DATA_DIR is set.",
    `ready: ${stack.httpUrl}`,
    "",
  ].join("\n"),
);
