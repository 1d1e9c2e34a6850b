/**
 * A question's timer has fired (an EventBridge Scheduler one-time schedule set by the stream consumer, with
 * the timer's event as input): at the deadline the question is closed as expired — the table's stream then
 * announces it and retires every chat copy — at a reminder time a reminder is posted in each of its chats,
 * at the escalation time it is posted to the escalation owner. On a question that has ended, nothing happens.
 */
import middy from "@middy/core";
import { CHANNELS } from "#lib/channels/channel-list.ts";
import { loadConfig } from "#lib/config.ts";
import { createObservability } from "#lib/telemetry/observability.ts";
import { timerEventSchema } from "#lib/timers/timers.ts";
import { createServices } from "#lib/wiring.ts";

const observability = await createObservability("questionTimer");
const services = createServices(loadConfig(), "questionTimer", observability, CHANNELS);
// Expiry needs no channel secret: a bad one is reported, and only its platform's reminders are not posted.
await services.ready({ tolerate: true });
const { fireQuestionTimer } = services;

export const handler = middy()
  .use(observability.middlewares)
  .handler(async (event: unknown) => ({ outcome: await fireQuestionTimer(timerEventSchema.parse(event)) }));
