/**
 * Signed notifications (lib/app/notify-closed-question.ts), two event sources, one function:
 * - the questions table's stream, filtered to questions that have just closed with a `notify` URL: each
 *   becomes the first attempt on the notify queue;
 * - the notify queue: each due attempt is POSTed; a failed one queues the next attempt with its delay.
 * A record that fails (throttling, 5xx of AWS) is reported back, so Lambda retries it.
 */
import { loadConfig } from "#lib/config.ts";
import { createNotifierHandler } from "#lib/handlers/notifier.ts";
import { createObservability } from "#lib/telemetry/observability.ts";

const observability = await createObservability("notifier");
export const handler = await createNotifierHandler(loadConfig(), { observability });
