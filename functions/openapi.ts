/**
 * `GET /openapi.json`: the OpenAPI description of the question API and `/mcp`, for anyone (no key). A
 * function of its own: a public route never starts, or takes the concurrency of, a function that holds keys,
 * and its bundle holds no AWS SDK client.
 */
import { loadConfig } from "#lib/config.ts";
import { createOpenApiHandler } from "#lib/handlers/openapi.ts";
import { createUntracedObservability } from "#lib/telemetry/untraced-observability.ts";

const observability = createUntracedObservability("openApi");
export const handler = createOpenApiHandler(loadConfig(), { observability });
