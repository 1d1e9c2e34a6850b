/**
 * `npm run local`: the local stack, headless. Logs one line per HTTP request and per run status change
 * (Powertools Logger: JSON lines, or readable ones in a terminal). Prints where each part listens, the API key
 * and how to point an MCP client at it, then — last, so a script can wait for it — a line with `ready` and the
 * HTTP URL once everything answers. A question with a `console` target is printed here, and lines typed here
 * answer it, as in the `npm start` demo (infra/local/terminal-answers.ts).
 */
import { createInterface } from "node:readline";
import { Logger } from "@aws-lambda-powertools/logger";
import type { QuestionRecord } from "#lib/questions/question-record.ts";
import { startFromCommandLine, stopOnSignals } from "./cli-options.ts";
import { createConsoleQuestions, createTerminalAnswers } from "./terminal-answers.ts";

// A terminal gets readable log lines (and no metric blobs); a pipe or a file gets one JSON object a line.
if (process.stdout.isTTY) process.env.POWERTOOLS_DEV ??= "true";
const log = new Logger({ serviceName: "handraise-local" });
const print = (text: string): void => {
  process.stdout.write(`${text}\n`);
};

// Set once the stack is up; no question can be shown before that.
let api: (method: string, path: string, body?: unknown) => Promise<{ status: number; json: unknown }> =
  async () => {
    throw new Error("the local stack is not ready yet");
  };
// The prompt is printed while the question is delivered, its event a moment later (from the table's stream):
// a line typed in between waits for the stream, so it finds the question it was typed for.
let streamsDrained = async (): Promise<void> => {};
const shown = createConsoleQuestions(
  async (id) => {
    const { status, json } = await api("GET", `/questions/${encodeURIComponent(id)}`);
    return status === 200 ? (json as { question: QuestionRecord }).question : undefined;
  },
  () => streamsDrained(),
);

const stack = await startFromCommandLine(process.env, {
  onRequest: (request) => log.info("request", { ...request }),
  onExecutionStatusChange: (change) =>
    log.info("run status", { executionArn: change.executionArn, status: change.status }),
  onEvent: shown.observe,
});
stopOnSignals(stack.stop);
streamsDrained = () => stack.streamsDrained();
api = async (method, path, body) => {
  const response = await fetch(`${stack.httpUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${stack.apiKey}`, "content-type": "application/json" },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
};

const answers = createTerminalAnswers({
  pendingQuestion: shown.oldestPending,
  api,
  print,
  resolvedBy: "console",
});
let queue = Promise.resolve();
createInterface({ input: process.stdin, terminal: false }).on("line", (line) => {
  queue = queue.then(() => answers.onLine(line)).catch((error: unknown) => print(`Error: ${String(error)}`));
});

print(
  [
    `HTTP API:           ${stack.httpUrl}`,
    `API key:            ${stack.apiKey}  (Authorization: Bearer <key>; HANDRAISE_API_KEY sets it)`,
    `Step Functions API: ${stack.sfnUrl}`,
    `DynamoDB:           ${stack.dynamodbUrl} (table ${stack.tableName})`,
    `MCP server:         ${stack.httpUrl}/mcp  (same key). Questions to this terminal, answered by typing here:`,
    `  claude mcp add --transport http handraise ${stack.httpUrl}/mcp --header "Authorization: Bearer ${stack.apiKey}" \\`,
    `    --header "X-Handraise-Owner: console:you" --header "X-Handraise-Deliver-To: console:terminal"`,
    ...Object.entries(stack.stateMachineArns).map(([name, arn]) => `State machine ${name}: ${arn}`),
    // Runs are kept by the local Step Functions engine in memory only.
    "Runs do not survive a restart of the local stack; questions and answers do when HANDRAISE_DATA_DIR is set.",
    `ready: ${stack.httpUrl}`,
  ].join("\n"),
);
