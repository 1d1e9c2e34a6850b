/** The answer page's handler (functions/answer-page.ts; lib/http/answer-page.ts). */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { Config } from "../config.ts";
import { answerPageErrors, createAnswerPage } from "../http/answer-page.ts";
import { createCoreServices } from "../wiring.ts";
import type { HandlerDeps } from "./handler-deps.ts";

export async function createAnswerPageHandler(config: Config, { observability, aws, ports }: HandlerDeps) {
  // The core services only: the page posts nothing to any chat (the table's stream retires the copies).
  const { store, resolve, secrets, now, ready } = createCoreServices(
    config,
    "answerPage",
    observability,
    aws,
    ports,
  );
  await ready();
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use(observability.middlewares)
    .use(
      answerPageErrors((error) =>
        observability.telemetry.internalError("unexpected error on the answer page", error),
      ),
    )
    .handler(createAnswerPage({ store, resolve, linkKey: () => secrets.get("link-secret"), now }));
}
