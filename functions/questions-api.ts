/** The question API behind API Gateway HTTP API: every /questions route (docs/api.md). */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { CHANNELS } from "#lib/channels/channel-list.ts";
import { loadConfig } from "#lib/config.ts";
import { apiKeyAuth, httpErrors } from "#lib/http/middlewares.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { createServices } from "#lib/wiring.ts";

const observability = await createObservability("questionsApi");
const services = createServices(loadConfig(), "questionsApi", observability, CHANNELS);
await services.ready();
const { keyring, questionApi } = services;

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(observability.middlewares)
  .use(httpErrors(observability.telemetry))
  .use(apiKeyAuth(keyring))
  .handler(questionApi);
