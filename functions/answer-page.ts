/**
 * `GET` / `POST /answer/{id}?sig=…`: the answer page, a question answered in a browser through its signed
 * link (lib/http/answer-page.ts). Off — every request a 404 page — when the deployment has no link secret.
 */
import middy from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { loadConfig } from "#lib/config.ts";
import { answerPageErrors, createAnswerPage } from "#lib/http/answer-page.ts";
import { logError } from "#lib/log.ts";
import { createCoreServices } from "#lib/wiring.ts";

// The core services only: the page posts nothing to any chat (the table's stream retires the copies).
const { store, resolve, secrets, now, ready } = createCoreServices(loadConfig(), "answerPage");
await ready();

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
  .use(answerPageErrors((error) => logError("answer-page", error)))
  .handler(createAnswerPage({ store, resolve, linkKey: () => secrets.get("link-secret"), now }));
