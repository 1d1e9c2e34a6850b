/** The question timer's handler (functions/question-timer.ts): expiry, reminders and escalation. */
import middy from "@middy/core";
import { createFireQuestionTimer } from "../app/fire-question-timer.ts";
import type { Config } from "../config.ts";
import { timerEventSchema } from "../timers/timers.ts";
import { createServices } from "../wiring.ts";
import type { DeliveringHandlerDeps } from "./handler-deps.ts";

export async function createQuestionTimerHandler(
  config: Config,
  { observability, channels, aws, ports }: DeliveringHandlerDeps,
) {
  const services = createServices(config, "questionTimer", observability, channels, aws, ports);
  // Expiry needs no channel secret: a bad one is reported, and only its platform's reminders are not posted.
  await services.ready({ tolerate: true });
  const { store, channels: posted, telemetry, now, sleep } = services;
  const fireQuestionTimer = createFireQuestionTimer({ store, channels: posted, telemetry, now, sleep });
  return middy()
    .use(observability.middlewares)
    .handler(async (event: unknown) => ({ outcome: await fireQuestionTimer(timerEventSchema.parse(event)) }));
}
