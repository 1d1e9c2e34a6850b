import type { Delivery, DeliveryTarget, QuestionRecord } from "../store/question-record.ts";

/**
 * A chat platform Handraise delivers questions to. Adapters render the question in the platform's own
 * controls, post it, and later edit every posted copy to show the outcome without controls.
 *
 * @example
 * const delivery = await channel.deliver(record, { channel: "telegram", chatId: "42" });
 * // … once the question has ended:
 * await channel.retire(closedRecord, delivery);
 */
export interface ChatChannel {
  readonly name: string;
  /** Posts the question; throws when the platform refuses it. */
  deliver(question: QuestionRecord, target: DeliveryTarget): Promise<Delivery>;
  /** Edits a posted copy to show the outcome (answered, skipped, cancelled, expired) and drop its controls. */
  retire(question: QuestionRecord, delivery: Delivery): Promise<void>;
}

/** The channels a deployment has configured, by name (`Delivery.channel`). */
export type ChannelRegistry = ReadonlyMap<string, ChatChannel>;
