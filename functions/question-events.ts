/**
 * The questions table's DynamoDB stream → every question stored is announced on the event bus (`Question
 * Requested`); every question that has just closed is announced (`Question Resolved`), the run that waited
 * on it resumed (again: no lost answers, even when the answering Lambda died or was throttled between its
 * write and SendTaskSuccess) and every posted copy on every platform retired (the one function holding every
 * channel's credentials). A record that fails (throttling, 5xx) is reported back, so Lambda retries it and
 * the records after it (ReportBatchItemFailures).
 */
import { CHANNELS } from "#lib/channels/channel-list.ts";
import { loadConfig } from "#lib/config.ts";
import { createQuestionEventsHandler } from "#lib/handlers/question-events.ts";
import { createObservability } from "#lib/telemetry/observability.ts";

const observability = await createObservability("questionEvents");
export const handler = await createQuestionEventsHandler(loadConfig(), { observability, channels: CHANNELS });
