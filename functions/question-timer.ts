/**
 * A question's timer has fired (an EventBridge Scheduler one-time schedule set by the stream consumer, with
 * the timer's event as input): at the deadline the question is closed as expired — the table's stream then
 * announces it and retires every chat copy — at a reminder time a reminder is posted in each of its chats,
 * at the escalation time it is posted to the escalation owner. On a question that has ended, nothing happens.
 */
import { CHANNELS } from "#lib/channels/channel-list.ts";
import { loadConfig } from "#lib/config.ts";
import { createQuestionTimerHandler } from "#lib/handlers/question-timer.ts";
import { createObservability } from "#lib/telemetry/observability.ts";

const observability = await createObservability("questionTimer");
export const handler = await createQuestionTimerHandler(loadConfig(), { observability, channels: CHANNELS });
