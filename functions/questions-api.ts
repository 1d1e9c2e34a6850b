/** The question API behind API Gateway HTTP API: every /questions route (docs in README.md). */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { loadConfig } from "#lib/config.ts";
import { apiKeyAuth, httpErrors } from "#lib/http/middlewares.ts";
import { logError } from "#lib/log.ts";
import { createServices } from "#lib/wiring.ts";

const services = createServices(loadConfig(), "questionsApi");
await services.ready();
const { secrets, questionApi } = services;

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(httpErrors((error) => logError("questions-api", error)))
  .use(apiKeyAuth(() => secrets.get("api-key")))
  .handler(questionApi);
