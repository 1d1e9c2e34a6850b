/** The question API behind API Gateway HTTP API: every /questions route (docs/api.md). */
import { CHANNELS } from "#lib/channels/channel-list.ts";
import { loadConfig } from "#lib/config.ts";
import { createQuestionsApiHandler } from "#lib/handlers/questions-api.ts";
import { createObservability } from "#lib/telemetry/observability.ts";

const observability = await createObservability("questionsApi");
export const handler = await createQuestionsApiHandler(loadConfig(), { observability, channels: CHANNELS });
