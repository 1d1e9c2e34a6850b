/**
 * The stream consumer's own composition (lib/handlers/question-events.ts): what follows a question's change —
 * its events on the deployment's bus, its timers on EventBridge Scheduler, and the settling of a closed one.
 * Apart from lib/wiring.ts so that only that function's bundle carries the EventBridge and Scheduler clients.
 */

import { EventBridgeClient } from "@aws-sdk/client-eventbridge";
import { SchedulerClient } from "@aws-sdk/client-scheduler";
import { createHandleQuestionChange } from "./app/handle-question-change.ts";
import { createQuestionTimers } from "./app/question-timers.ts";
import { createSettleClosedQuestion } from "./app/settle-closed-question.ts";
import { type AwsClientSettings, sdkConfig } from "./aws-client-settings.ts";
import type { Config } from "./config.ts";
import { type EventPublisher, NO_EVENTS } from "./events/event-publisher.ts";
import { createEventBridgePublisher } from "./events/eventbridge-publisher.ts";
import { createSchedulerTimers } from "./timers/scheduler-timers.ts";
import { NO_TIMERS, type Timers } from "./timers/timers.ts";
import type { CaptureClient, createServices } from "./wiring.ts";

/** Question events on the deployment's bus, when it has one. */
function createEvents(config: Config, capture: CaptureClient, aws?: AwsClientSettings): EventPublisher {
  return config.eventBus === undefined
    ? NO_EVENTS
    : createEventBridgePublisher(
        capture(new EventBridgeClient(sdkConfig(aws, "eventbridge"))),
        config.eventBus,
      );
}

/** Question timers on EventBridge Scheduler, when the deployment has them. */
function createTimers(
  config: Config,
  capture: CaptureClient,
  now: () => number,
  aws?: AwsClientSettings,
): Timers {
  return config.timers === undefined
    ? NO_TIMERS
    : createSchedulerTimers({
        client: capture(new SchedulerClient(sdkConfig(aws, "scheduler"))),
        ...config.timers,
        now,
      });
}

/**
 * @example
 * const services = createServices(config, "questionEvents", observability, CHANNELS);
 * const handleQuestionChange = createHandleQuestionChangeService(services);
 */
export function createHandleQuestionChangeService(services: ReturnType<typeof createServices>) {
  const { config, capture, callbacks, channels, store, telemetry, now, aws, timers } = services;
  return createHandleQuestionChange({
    events: createEvents(config, capture, aws),
    settle: createSettleClosedQuestion({ callbacks, channels, store, telemetry, now }),
    timers: createQuestionTimers({ timers: timers ?? createTimers(config, capture, now, aws), telemetry }),
    channels,
    telemetry,
  });
}
