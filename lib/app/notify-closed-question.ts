import {
  type NotificationMessage,
  nextAttempt,
  notificationFor,
  queueDelaySeconds,
} from "../notify/notification.ts";
import type { NotificationLog, NotificationQueue, WebhookSender } from "../notify/notification-ports.ts";
import { webhookHeaders } from "../notify/standard-webhooks.ts";
import type { QuestionRecord } from "../questions/question-record.ts";
import type { Telemetry } from "../telemetry/telemetry.ts";

export interface NotifyDeps {
  queue: NotificationQueue;
  log: NotificationLog;
  sender: WebhookSender;
  /** The `whsec_…` signing secret; rejects (ConfigError) when the deployment has none. */
  secret: () => Promise<string>;
  /** Seconds before each retry (config.notify.retrySeconds). */
  retrySeconds: readonly number[];
  now: () => number;
  telemetry: Telemetry;
}

export type Attempt = "sent" | "already_sent" | "waiting" | "retrying" | "gave_up";

/**
 * Signed notifications of closed questions. The table's stream hands each question that has just closed
 * with a `notify` URL to `enqueue`; the queue hands each due attempt to `deliver`, which POSTs it signed
 * (Standard Webhooks) and, when the receiver does not take it (no 2xx, unreachable), queues the next
 * attempt with its delay — no Lambda sleeps. At least once: a repeat (a stream record delivered twice, a
 * crash between the POST and the log write) carries the same `webhook-id` and body; once a receiver took
 * one, the log stops the others from being sent.
 *
 * @example
 * const notify = createNotifyClosedQuestion(deps);
 * await notify.enqueue(record); // from the stream
 * await notify.deliver(message); // from the queue → "sent" | "retrying" | …
 */
export function createNotifyClosedQuestion(deps: NotifyDeps) {
  const { queue, now, telemetry } = deps;

  async function requeue(message: NotificationMessage): Promise<void> {
    await queue.send(message, queueDelaySeconds(message, now()));
  }

  return {
    async enqueue(record: QuestionRecord): Promise<boolean> {
      if (record.notify === undefined) return false;
      await requeue(notificationFor(record, record.notify.url, now()));
      return true;
    },

    async deliver(message: NotificationMessage): Promise<Attempt> {
      if (queueDelaySeconds(message, now()) > 0) {
        // Longer waits than the queue's longest delay are taken in hops.
        await requeue(message);
        return "waiting";
      }
      if (await deps.log.wasDelivered(message.questionId)) return "already_sent";
      let failure: string;
      try {
        const timestamp = Math.floor(now() / 1000);
        const headers = webhookHeaders(await deps.secret(), {
          id: message.id,
          timestamp,
          body: message.body,
        });
        const status = await deps.sender.post(message.url, message.body, headers);
        if (status >= 200 && status < 300) {
          await deps.log.markDelivered(message.questionId, now());
          return "sent";
        }
        failure = `the receiver answered ${status}`;
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
      }
      const fields = { questionId: message.questionId, attempt: message.attempt };
      const next = nextAttempt(message, deps.retrySeconds, now());
      if (!next) {
        telemetry.failed(
          `notification not delivered after ${message.attempt} attempts; giving up`,
          failure,
          fields,
        );
        return "gave_up";
      }
      telemetry.failed("notification attempt failed; retrying later", failure, fields);
      await requeue(next);
      return "retrying";
    },
  };
}

export type NotifyClosedQuestion = ReturnType<typeof createNotifyClosedQuestion>;
