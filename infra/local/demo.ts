/**
 * `npm start`: the local stack plus a demo agent run. The run asks three questions (printed below by the
 * console channel); type the answers here — or answer with the HTTP API — and the run resumes and prints
 * its reply. Ctrl-C stops everything.
 */
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from "@aws-sdk/client-sfn";
import type { QuestionRecord } from "#lib/questions/question-record.ts";
import { startFromCommandLine, stopOnSignals } from "./cli-options.ts";
import { demoAgentInput } from "./demo-agent.ts";
import { awsCredentialSettings, demoModelFromEnv, restoreAwsCredentials } from "./demo-model.ts";
import { startTelegramPoller } from "./telegram-poller.ts";
import { createTerminalAnswers } from "./terminal-answers.ts";

const print = (text: string): void => {
  process.stdout.write(`${text}\n`);
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// With a bot token and a chat id, the question also goes to that real Telegram chat (README, "Answer from a
// chat"; docs/channels.md, "On the local stack").
const telegramChat = process.env.HANDRAISE_DEMO_TELEGRAM_CHAT_ID;
const telegramToken = process.env.TELEGRAM_BOT_TOKEN;
const useTelegram = Boolean(telegramChat && telegramToken);
const telegramSecret = process.env.TELEGRAM_WEBHOOK_SECRET ?? randomBytes(24).toString("hex");

// HANDRAISE_DEMO_MODEL=bedrock:<modelId> | openai:<model> | anthropic:<model>: a real model (see README).
const demoModel = demoModelFromEnv(process.env);
if (demoModel && "problem" in demoModel) {
  process.stderr.write(`Handraise could not start: ${demoModel.problem}\n`);
  process.exit(1);
}
const awsCredentials = awsCredentialSettings(process.env);

// A bot token turns the Telegram channel on, which needs its webhook secret too (made up when unset).
if (telegramToken) process.env.TELEGRAM_WEBHOOK_SECRET = telegramSecret;
// The terminal is the demo's conversation: the handlers log warnings and errors only, without metric blobs,
// and question events are not printed (`npm run local` shows all of them; so do these variables when set).
process.env.POWERTOOLS_LOG_LEVEL ??= "WARN";
process.env.POWERTOOLS_METRICS_DISABLED ??= "true";
const stack = await startFromCommandLine(process.env, { printEvents: false });
if (demoModel?.usesAws) restoreAwsCredentials(process.env, awsCredentials);
const poller =
  useTelegram && telegramToken
    ? startTelegramPoller({
        apiBase: process.env.TELEGRAM_API_BASE ?? "https://api.telegram.org",
        botToken: telegramToken,
        webhookUrl: `${stack.httpUrl}/webhooks/telegram`,
        secret: telegramSecret,
        onError: (message) => print(message),
      })
    : undefined;
stopOnSignals(async () => {
  poller?.stop();
  await stack.stop();
});
const api = async (
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> => {
  const response = await fetch(`${stack.httpUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${stack.apiKey}`, "content-type": "application/json" },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
};

print(`Handraise local stack
  HTTP API:           ${stack.httpUrl}  (Authorization: Bearer ${stack.apiKey})
  Step Functions API: ${stack.sfnUrl}
  DynamoDB:           ${stack.dynamodbUrl}
  State machine:      ${stack.stateMachineArns.agent}`);

const sfn = new SFNClient({
  endpoint: stack.sfnUrl,
  region: "us-east-1",
  credentials: { accessKeyId: "local", secretAccessKey: "local" },
});
const sessionKey = `demo-${Date.now()}`;
const { executionArn } = await sfn.send(
  new StartExecutionCommand({
    stateMachineArn: stack.stateMachineArns.agent,
    input: JSON.stringify({
      ...demoAgentInput({
        sessionKey,
        // In a private Telegram chat the chat id is the user's id.
        owner: useTelegram
          ? `telegram:${process.env.HANDRAISE_DEMO_TELEGRAM_USER_ID ?? telegramChat}`
          : "console:you",
        deliverTo: [
          { channel: "console", chatId: "terminal" },
          ...(useTelegram && telegramChat ? [{ channel: "telegram", chatId: telegramChat }] : []),
        ],
        timeoutSeconds: 600,
      }),
      ...(demoModel && { model: demoModel.model }),
    }),
  }),
);
print(
  `\nStarted the demo agent run ${executionArn}${demoModel ? ` (model: ${process.env.HANDRAISE_DEMO_MODEL})` : ""}`,
);

async function pendingQuestion(): Promise<QuestionRecord | undefined> {
  const { json } = await api("GET", `/questions?sessionKey=${encodeURIComponent(sessionKey)}`);
  return (json as { questions: QuestionRecord[] }).questions[0];
}

const answers = createTerminalAnswers({ pendingQuestion, api, print, resolvedBy: "console:you" });
const input = createInterface({ input: process.stdin, terminal: false });
let queue = Promise.resolve();
input.on("line", (line) => {
  queue = queue.then(() => answers.onLine(line)).catch((error: unknown) => print(`Error: ${String(error)}`));
});

for (;;) {
  const execution = await sfn.send(new DescribeExecutionCommand({ executionArn }));
  if (execution.status !== "RUNNING") {
    answers.runEnded(execution.status?.toLowerCase() ?? "ended");
    print(
      `\nThe run ${execution.status?.toLowerCase()}. Its reply:\n${execution.output ?? execution.cause ?? ""}`,
    );
    break;
  }
  await sleep(200);
}
print("\nThe local stack is still running (answer more with the HTTP API). Ctrl-C to stop.");
