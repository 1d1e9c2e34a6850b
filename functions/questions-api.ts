/** The question API (DESIGN.md §4) behind API Gateway HTTP API: every /questions route. */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { loadConfig } from "#lib/config.ts";
import { apiKeyAuth, httpErrors } from "#lib/http/middlewares.ts";
import { logError } from "#lib/log.ts";
import { createServices } from "#lib/wiring.ts";

const config = loadConfig();
const { questionApi } = createServices(config);

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(httpErrors((error) => logError("questions-api", error)))
  .use(apiKeyAuth(config.apiKey))
  .handler(questionApi);
