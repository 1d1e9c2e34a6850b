import type { ChannelRegistry } from "../channels/chat-channel.ts";
import type { Delivery, QuestionRecord } from "../questions/question-record.ts";

/**
 * Edits every posted copy of an ended question to show its outcome and drop its controls. Each copy is
 * tried independently; failures are reported, not thrown: the outcome already stands.
 */
export async function retireDeliveries(
  channels: ChannelRegistry,
  record: QuestionRecord,
  onError: (error: unknown, channel: string) => void,
): Promise<void> {
  await Promise.all(
    record.deliveries.map(async (delivery) => {
      const channel = channels.get(delivery.channel);
      if (!channel)
        return onError(new Error(`channel "${delivery.channel}" is not configured`), delivery.channel);
      try {
        await channel.retire(record, delivery);
      } catch (error) {
        onError(error, delivery.channel);
      }
    }),
  );
}

/**
 * The copies a vote retires: those posted to one of `voters` in their one-to-one conversation with the bot,
 * and already posted. A group's shared copy is never among them: it stays for the other members.
 */
export function votersCopies(record: QuestionRecord, voters: readonly string[]): Delivery[] {
  return record.deliveries.filter(
    (d) => d.privateTo !== undefined && voters.includes(d.privateTo) && d.messageId !== undefined,
  );
}
