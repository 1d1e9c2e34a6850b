/**
 * `GET` / `POST /answer/{id}?sig=…`: the answer page, a question answered in a browser through its signed
 * link (lib/http/answer-page.ts). Off — every request a 404 page — when the deployment has no link secret.
 */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { loadConfig } from "#lib/config.ts";
import { answerPageErrors, createAnswerPage } from "#lib/http/answer-page.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { createCoreServices } from "#lib/wiring.ts";

const observability = await createObservability("answerPage");
// The core services only: the page posts nothing to any chat (the table's stream retires the copies).
const { store, resolve, secrets, now, ready } = createCoreServices(loadConfig(), "answerPage", observability);
await ready();

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(observability.middlewares)
  .use(
    answerPageErrors((error) =>
      observability.telemetry.internalError("unexpected error on the answer page", error),
    ),
  )
  .handler(createAnswerPage({ store, resolve, linkKey: () => secrets.get("link-secret"), now }));
