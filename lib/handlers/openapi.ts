/** `GET /openapi.json`'s handler (functions/openapi.ts): no key, no AWS SDK client. */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { Config } from "../config.ts";
import { httpErrors } from "../http/middlewares.ts";
import { openApiDocument } from "../http/openapi.ts";
import { createOpenApiRoute } from "../http/openapi-route.ts";
import type { HandlerDeps } from "./handler-deps.ts";

export function createOpenApiHandler(config: Config, { observability }: HandlerDeps) {
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use(observability.middlewares)
    .use(httpErrors(observability.telemetry))
    .handler(createOpenApiRoute(openApiDocument({ serverUrl: config.publicUrl })));
}
