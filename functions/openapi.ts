/**
 * `GET /openapi.json`: the OpenAPI description of the question API and `/mcp`, for anyone (no key). A
 * function of its own: a public route never starts, or takes the concurrency of, a function that holds keys,
 * and its bundle holds no AWS SDK client.
 */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { loadConfig } from "#lib/config.ts";
import { httpErrors } from "#lib/http/middlewares.ts";
import { openApiDocument } from "#lib/http/openapi.ts";
import { createOpenApiRoute } from "#lib/http/openapi-route.ts";
import { createUntracedObservability } from "#lib/telemetry/untraced-observability.ts";

const observability = createUntracedObservability("openApi");
const config = loadConfig();

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(observability.middlewares)
  .use(httpErrors(observability.telemetry))
  .handler(createOpenApiRoute(openApiDocument({ serverUrl: config.publicUrl })));
