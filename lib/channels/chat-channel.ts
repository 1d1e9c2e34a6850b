import type { Delivery, DeliveryTarget, QuestionRecord } from "../questions/question-record.ts";

/**
 * A chat platform Handraise delivers questions to. Adapters render the question in the platform's own
 * controls, post it, and later edit every posted copy to show the outcome without controls.
 *
 * @example
 * const delivery = await channel.deliver(record, { channel: "telegram", chatId: "42" }, "telegram:42");
 * // … while it waits (posts "Still waiting for your answer — 5 min left"):
 * await channel.remind(record, delivery, { leftMs: 300_000 });
 * // … once the question has ended:
 * await channel.retire(closedRecord, delivery);
 */
export interface ChatChannel {
  readonly name: string;
  /**
   * Posts the question for `answerer` (the owner, or an escalation owner, or the person who asked for it
   * again); throws when the platform refuses it. Only when the target is a one-to-one conversation between
   * the bot and that answerer does the copy carry their answer link (and `privateTo` say so); anywhere else
   * it carries an "Answer in browser" control that hands each tapper their own link privately.
   */
  deliver(question: QuestionRecord, target: DeliveryTarget, answerer: string): Promise<Delivery>;
  /**
   * Edits a posted copy to show the outcome (answered, skipped, cancelled, expired) and drop every control
   * (option buttons, "Answer in browser" and all).
   */
  retire(question: QuestionRecord, delivery: Delivery): Promise<void>;
  /**
   * Posts the reminder (its sentence from the reply catalog, `reminderText`) as a new message in the copy's
   * chat — a reply to the copy where the platform has replies — so the question's own message and its
   * controls stay as they are.
   */
  remind(question: QuestionRecord, delivery: Delivery, reminder: Reminder): Promise<void>;
}

/** A reminder as the application layer decides it: data, which the reply catalog puts into words. */
export interface Reminder {
  /** How long is left until the question's deadline, in milliseconds (never below 0). */
  readonly leftMs: number;
}

/** The channels a deployment has configured, by name (`Delivery.channel`). */
export type ChannelRegistry = ReadonlyMap<string, ChatChannel>;
