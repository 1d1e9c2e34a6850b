/**
 * The question record: what the store keeps and the API shows. The task token is stored
 * beside it but is never part of a record: only `close` hands it to the caller that must resume the run.
 */
import type { answersSchema, noAnswerReasonSchema, questionSchema } from "../questions/schema.ts";
import * as z from "../zod.ts";

export const deliveryTargetSchema = z.strictObject({
  channel: z.string().check(z.minLength(1), z.maxLength(32)),
  chatId: z.string().check(z.minLength(1), z.maxLength(256)),
  threadId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  /**
   * Teams: the Bot Connector service URL the conversation is reached through (a conversation lives in one
   * region); without it, the deployment's TEAMS_API_BASE. Kept on the posted copy, which is edited there.
   */
  serviceUrl: z.optional(
    z.url({ protocol: /^https?$/, error: "serviceUrl must be an http(s) URL" }).check(z.maxLength(512)),
  ),
});
export type DeliveryTarget = z.infer<typeof deliveryTargetSchema>;

/** Where a copy of the prompt was posted, so it can be edited when the question ends. */
export const deliverySchema = z.extend(deliveryTargetSchema, {
  messageId: z.optional(z.string().check(z.minLength(1))),
});
export type Delivery = z.infer<typeof deliverySchema>;

/** Stored statuses; `expired` is never stored, it is derived on read from the deadline. */
export type StoredStatus = "pending" | "answered" | "cancelled" | "delivery_failed";
export type QuestionStatus = StoredStatus | "expired";

/** Why a question ended without an answer, when it was cancelled (`cancelled` or `skipped`). */
export type CancelReason = Exclude<z.infer<typeof noAnswerReasonSchema>, "expired">;

/**
 * Every id a question record can have: `ask_` + 32 hex when Handraise derives it, or the explicit id given to
 * POST /questions. Short enough to ride in every platform's button payload (Telegram: 64 bytes).
 */
export const RECORD_ID_PATTERN = /^[A-Za-z0-9_-]{1,48}$/;

export const ownerSchema = z.string().check(
  z.regex(/^(telegram|slack|discord|mattermost|teams|web|console):\S+$/, {
    error: 'owner must be platform-qualified, e.g. "telegram:12345", "slack:T1:U1" or "web:alice"',
  }),
  z.maxLength(256),
);

export interface QuestionRecord {
  id: string;
  status: QuestionStatus;
  questions: z.infer<typeof questionSchema>[];
  owner: string;
  sessionKey?: string;
  agentId?: string;
  runId?: string;
  deliveries: Delivery[];
  createdAtMs: number;
  expiresAtMs: number;
  answers?: z.infer<typeof answersSchema>;
  /** Set when cancelled: `cancelled` or `skipped`. */
  reason?: CancelReason;
  resolvedBy?: string;
  resolvedAtMs?: number;
  /** Where its result is POSTed, signed, when it ends (lib/notify). */
  notify?: { url: string };
}

/** Reports a pending record past its deadline as expired: TTL deletion is lazy, reads must not be. */
export function statusAt(stored: StoredStatus, expiresAtMs: number, nowMs: number): QuestionStatus {
  return stored === "pending" && nowMs >= expiresAtMs ? "expired" : stored;
}
