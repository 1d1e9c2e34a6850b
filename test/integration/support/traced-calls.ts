/**
 * Run in a Node process of its own by trace-secrets.test.ts, since the X-Ray SDK patches the process it is
 * loaded in: builds a function's observability as Lambda does (tracing on), opens an X-Ray segment as the
 * handler's would be, makes one outbound call of each kind against the fakes the test started (the URLs and
 * secrets come in the environment), runs a handler that throws under the function's middlewares, and prints the segment as X-Ray would receive it. The segment is never
 * closed, so nothing is sent to a daemon.
 */
import { SendTaskSuccessCommand, SFNClient } from "@aws-sdk/client-sfn";
import middy from "@middy/core";
import type { Context } from "aws-lambda";
import xray from "aws-xray-sdk-core";
import { postJson } from "#lib/agent/provider-http.ts";
import { createAwsRequests } from "#lib/aws/signed-request.ts";
import { createDurableCallbacks } from "#lib/callbacks/durable-callbacks.ts";
import { createTelegramApi } from "#lib/channels/telegram/telegram-api.ts";
import { createObservability } from "#lib/telemetry/observability.ts";

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

const observability = await createObservability("telegramWebhook");
const credentials = { accessKeyId: "AKIDTRACE", secretAccessKey: "trace-secret-key" };
const telegram = createTelegramApi({
  apiBase: env("TRACE_TELEGRAM_URL"),
  botToken: async () => env("TRACE_BOT_TOKEN"),
  now: Date.now,
});
const aws = env("TRACE_AWS_URL");
const sfn = observability.tracer.captureAWSv3Client(
  new SFNClient({ endpoint: aws, region: "us-east-1", credentials, maxAttempts: 1 }),
);
const durable = createDurableCallbacks(
  createAwsRequests(
    { signingName: "lambda", label: "Lambda", protocol: "restJson1" },
    { endpoint: aws, region: "us-east-1", credentials },
  ),
);

const segment = new xray.Segment("telegramWebhook");
const outcomes: Record<string, string> = {};
/** Runs `call`, noting whether it succeeded: a failing call is part of what is traced. */
const attempt = async (label: string, call: () => Promise<unknown>) => {
  try {
    await call();
    outcomes[label] = "ok";
  } catch (error) {
    outcomes[label] = error instanceof Error ? error.name : "error";
  }
};

await xray.getNamespace().runPromise(async () => {
  xray.setSegment(segment);
  const answer = env("TRACE_ANSWER");
  await attempt("sendMessage", () => telegram.call("sendMessage", { chat_id: 7, text: answer }));
  // Over Telegram's 4096 characters: the fake refuses it with a 400, as Telegram does.
  await attempt("too long", () => telegram.call("sendMessage", { chat_id: 7, text: "x".repeat(5000) }));
  // The fake answers this one 500 (sendPhoto is not idempotent: not retried).
  await attempt("sendPhoto", () => telegram.call("sendPhoto", { chat_id: 7, photo: "p" }));
  // The fake answers this one 429 with a minute's wait: more than the call may take, so not retried.
  await attempt("getMe", () => telegram.call("getMe", {}));
  // The fake answers the first attempt 500: an edit may be sent twice, so it is retried and succeeds.
  await attempt("editMessageText", () =>
    telegram.call("editMessageText", { chat_id: 7, message_id: 1, text: answer }),
  );
  await attempt("durable", () =>
    durable.succeed(env("TRACE_CALLBACK_ID"), { status: "answered", answers: { q1: [answer] } }),
  );
  await attempt("sfn", () =>
    sfn.send(
      new SendTaskSuccessCommand({ taskToken: env("TRACE_TASK_TOKEN"), output: JSON.stringify({ answer }) }),
    ),
  );
  const headers = { authorization: `Bearer ${env("TRACE_API_KEY")}` };
  const completions = { url: `${aws}/v1/chat/completions`, name: "chat completions" };
  await attempt("model", () => postJson(fetch, completions, headers, { messages: [answer] }, 5_000));
  const nowhere = { url: `${env("TRACE_CLOSED_URL")}/v1/chat/completions`, name: "chat completions" };
  await attempt("unreachable", () => postJson(fetch, nowhere, headers, { messages: [answer] }, 5_000));
  // A handler that throws what a provider said (its message and stack could carry anything): the trace may
  // say that it failed and by what kind of error, never the message.
  const failing = middy()
    .use(observability.middlewares)
    .handler(async () => {
      throw new RangeError(`the provider said: ${answer} (key ${env("TRACE_API_KEY")})`);
    });
  const context = { functionName: "telegramWebhook", awsRequestId: "trace-request" } as Context;
  await attempt("handler", () => failing({}, context));
  // A rejection with no reason at all: traced by its type, never turned into an error of the tracer's own.
  const reasonless = middy()
    .use(observability.middlewares)
    .handler(() => Promise.reject(undefined));
  await reasonless({}, context).then(
    () => {
      outcomes.reasonless = "ok";
    },
    (reason: unknown) => {
      outcomes.reasonless = reason === undefined ? "undefined" : String(reason);
    },
  );
});

console.log(JSON.stringify({ outcomes, segment: JSON.parse(segment.format()) }));
// Keep-alive sockets to the fakes would hold the process open.
process.exit(0);
