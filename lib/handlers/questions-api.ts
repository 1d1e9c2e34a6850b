/** The question API's handler (functions/questions-api.ts): every /questions route (docs/api.md). */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { Config } from "../config.ts";
import { apiKeyAuth, httpErrors } from "../http/middlewares.ts";
import { createQuestionApi } from "../http/question-api.ts";
import { createAsker, createServices } from "../wiring.ts";
import type { DeliveringHandlerDeps } from "./handler-deps.ts";

export async function createQuestionsApiHandler(
  config: Config,
  { observability, channels, aws, ports }: DeliveringHandlerDeps,
) {
  const services = createServices(config, "questionsApi", observability, channels, aws, ports);
  await services.ready();
  const askQuestion = createAsker(services);
  const { keyring, store, resolve, waitForQuestion, links, now } = services;
  const questionApi = createQuestionApi({
    store,
    askQuestion,
    resolve,
    waitForQuestion,
    links,
    notifyPolicy: { allowLoopback: config.notify.allowLoopback },
    now,
  });
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use(observability.middlewares)
    .use(httpErrors(observability.telemetry))
    .use(apiKeyAuth(keyring))
    .handler(questionApi);
}
