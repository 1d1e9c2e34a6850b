import type { NotificationMessage } from "./notification.ts";

/** Holds notification attempts until they are due (deployed: SQS with a delay). */
export interface NotificationQueue {
  send(message: NotificationMessage, delaySeconds: number): Promise<void>;
}

/** Which questions' notifications have been accepted by their receiver, so a repeat is not sent again. */
export interface NotificationLog {
  wasDelivered(questionId: string): Promise<boolean>;
  markDelivered(questionId: string, nowMs: number): Promise<void>;
}

/** POSTs a signed body; resolves with the receiver's HTTP status, rejects when it could not be reached. */
export interface WebhookSender {
  post(url: string, body: string, headers: Record<string, string>): Promise<number>;
}
