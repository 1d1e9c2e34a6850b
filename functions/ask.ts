/**
 * The AskUser task (`lambda:invoke.waitForTaskToken`): registers the question with the run's task token and
 * delivers it, then returns; the run stays suspended until an answer, a cancel or its timeout. Expected
 * failures are thrown by name for the state machine's Catch: ToolInputError, SessionBusyError,
 * DeliveryFailedError (no target took the question; it is closed as delivery_failed), and
 * Handraise.InvalidInput for a task input that does not fit (the workflow's, not the model's: its message
 * names each problem's path). A reminder or an escalation at or past the deadline, or a `requestedBy` who
 * would be the only one to answer (InvalidArgumentError), ends the task like a failed delivery.
 */
import { CHANNELS } from "#lib/channels/channel-list.ts";
import { loadConfig } from "#lib/config.ts";
import { createAskHandler } from "#lib/handlers/ask.ts";
import { createObservability } from "#lib/telemetry/observability.ts";

const observability = await createObservability("ask");
export const handler = await createAskHandler(loadConfig(), { observability, channels: CHANNELS });
