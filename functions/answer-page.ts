/**
 * `GET` / `POST /answer/{id}?sig=…`: the answer page, a question answered in a browser through its signed
 * link (lib/http/answer-page.ts). Off — every request a 404 page — when the deployment has no link secret.
 */
import { loadConfig } from "#lib/config.ts";
import { createAnswerPageHandler } from "#lib/handlers/answer-page.ts";
import { createObservability } from "#lib/telemetry/observability.ts";

const observability = await createObservability("answerPage");
export const handler = await createAnswerPageHandler(loadConfig(), { observability });
