import { type EventBridgeClient, PutEventsCommand } from "@aws-sdk/client-eventbridge";
import type { EventPublisher } from "./event-publisher.ts";

/** PutEvents takes at most 10 entries a call. */
const ENTRIES_PER_CALL = 10;

/**
 * Question events on an EventBridge bus (`HANDRAISE_EVENT_BUS`: its name or ARN). An entry EventBridge
 * refuses (a partial failure: `FailedEntryCount`) fails the whole publish, so the stream retries the
 * record and sends them again: at least once, never silently dropped.
 */
export function createEventBridgePublisher(client: EventBridgeClient, busName: string): EventPublisher {
  return {
    async publish(events) {
      for (let i = 0; i < events.length; i += ENTRIES_PER_CALL) {
        const batch = events.slice(i, i + ENTRIES_PER_CALL);
        const out = await client.send(
          new PutEventsCommand({
            Entries: batch.map((event) => ({
              EventBusName: busName,
              Source: event.source,
              DetailType: event.detailType,
              Detail: JSON.stringify(event.detail),
              Resources: [],
            })),
          }),
        );
        if ((out.FailedEntryCount ?? 0) > 0) {
          const codes = (out.Entries ?? []).flatMap((entry) => (entry.ErrorCode ? [entry.ErrorCode] : []));
          throw new Error(
            `EventBridge refused ${out.FailedEntryCount} question event(s): ${codes.join(", ")}`,
          );
        }
      }
    },
  };
}
