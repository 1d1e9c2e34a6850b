/**
 * A WhatsApp Cloud API webhook notification → the one inbound type, and the status updates Handraise acts on
 * (a message that failed because the 24-hour window was closed). Only the fields Handraise reads are parsed;
 * other status updates (sent, delivered, read), errors and message kinds it does not take (media,
 * reactions, locations) are not errors: Meta must get its 200 for them, or it sends them again for days.
 */
import * as z from "../../zod.ts";
import { eventClaimSeconds } from "../channel-specs.ts";
import { controlAction, decodeControl } from "../control-codec.ts";
import type { Inbound } from "../inbound.ts";
import { OUTSIDE_SERVICE_WINDOW } from "./whatsapp-api.ts";

const reply = z.object({ id: z.string().check(z.maxLength(256)) });
const messageSchema = z.object({
  /** The sender's wa_id. Absent for a person known only by a business-scoped user id: not served. */
  from: z.optional(z.string()),
  id: z.string().check(z.minLength(1), z.maxLength(256)),
  /**
   * When the person sent it: Unix seconds, as a string. Any shape is taken here and judged by isStale, so an
   * unexpected one ignores that message instead of refusing the whole notification (which Meta would resend).
   */
  timestamp: z.optional(z.unknown()),
  type: z.string(),
  // No length of its own here: a body is at most the prelude's limit, and the pipeline names the answer's.
  text: z.optional(z.object({ body: z.string() })),
  interactive: z.optional(
    z.object({
      type: z.string(),
      list_reply: z.optional(reply),
      button_reply: z.optional(reply),
    }),
  ),
  /** The message this one replies to (a swipe-reply, or the message whose row or button was tapped). */
  context: z.optional(z.object({ id: z.optional(z.string()) })),
});

export const notificationSchema = z.object({
  object: z.optional(z.string()),
  entry: z.array(
    z.object({
      changes: z.array(
        z.object({
          field: z.optional(z.string()),
          value: z.optional(
            z.object({
              metadata: z.optional(z.object({ phone_number_id: z.optional(z.string()) })),
              // Meta batches at most a few; a body is at most the prelude's limit anyway.
              messages: z.optional(z.array(messageSchema).check(z.maxLength(100))),
              // Each read on its own (statusSchema): a status of a shape Handraise does not read is no 400.
              statuses: z.optional(z.array(z.unknown()).check(z.maxLength(100))),
            }),
          ),
        }),
      ),
    }),
  ),
});
export type WhatsappNotification = z.infer<typeof notificationSchema>;

/** A status update of a message the business number sent: only what Handraise reads. */
const statusSchema = z.object({
  /** The sent message's id (a wamid). */
  id: z.string().check(z.minLength(1), z.maxLength(256)),
  status: z.string(),
  /** The wa_id it was sent to: the chat of the copy. */
  recipient_id: z.string(),
  /** What the message was sent with (`biz_opaque_callback_data`), given back in each of its statuses. */
  biz_opaque_callback_data: z.optional(z.string()),
  errors: z.optional(z.array(z.object({ code: z.optional(z.number()) }))),
});
type WhatsappMessage = z.infer<typeof messageSchema>;

/**
 * A message of the notification, as inbound: what the pipeline takes, a control no longer valid, or a message
 * too old to be a delivery.
 */
export type ParsedMessage =
  | { kind: "inbound"; inbound: Inbound; messageId: string }
  /** A row or button whose id is no control of Handraise's (a reply to someone else's message). */
  | { kind: "unknown_control"; chatId: string; messageId: string }
  /** Sent longer ago than MAX_MESSAGE_AGE_MS, or with no time: ignored. */
  | { kind: "stale" };

/**
 * How old a message may be. Meta signs the body but no time, so a captured notification verifies for ever; the
 * only other guard against its replay is the message's dedupe claim, which lives as long as Meta sends a
 * notification again (`redeliversForDays`). A day short of that, a message is refused by its age before its
 * claim can have gone, whatever the skew between Meta's clock and ours; a genuine delivery that late has been
 * failing for most of a week, and an answer that old is better asked again.
 */
export const MAX_MESSAGE_AGE_MS = eventClaimSeconds("whatsapp") * 1000 - 86_400_000;

const WA_ID = /^\d{1,20}$/;
/** `/question`: post the waiting question again here (after a template, say). */
const SHOW = /^\/question\s*$/i;

/**
 * The messages sent to the business number `phoneNumberId`, in order: typed text and taps on a list row or
 * reply button, each from one person in their own chat with the business (groups are not served). A
 * notification for another number of the same app, and any other kind of message, gives nothing; a message
 * of any kind sent more than MAX_MESSAGE_AGE_MS before `nowMs` (or with no time) is `stale`.
 */
export function messagesOf(
  notification: WhatsappNotification,
  phoneNumberId: string,
  nowMs: number,
): ParsedMessage[] {
  const out: ParsedMessage[] = [];
  for (const entry of notification.entry) {
    for (const change of entry.changes) {
      if (change.field !== "messages" || change.value?.metadata?.phone_number_id !== phoneNumberId) continue;
      for (const message of change.value.messages ?? []) {
        const parsed = isStale(message.timestamp, nowMs) ? { kind: "stale" as const } : parse(message);
        if (parsed) out.push(parsed);
      }
    }
  }
  return out;
}

/** Whether a message sent at `timestamp` (Unix seconds) is too old to act on; no readable time fails closed. */
function isStale(timestamp: unknown, nowMs: number): boolean {
  const seconds =
    typeof timestamp === "string" && /^\d{1,15}$/.test(timestamp)
      ? Number(timestamp)
      : typeof timestamp === "number" && Number.isSafeInteger(timestamp) && timestamp >= 0
        ? timestamp
        : undefined;
  if (seconds === undefined) return true;
  return nowMs - seconds * 1000 > MAX_MESSAGE_AGE_MS;
}

function parse(message: WhatsappMessage): ParsedMessage | undefined {
  const from = message.from;
  if (from === undefined || !WA_ID.test(from)) return undefined;
  const base = {
    platform: "whatsapp" as const,
    actor: `whatsapp:${from}`,
    chatId: from,
    // Meta's message ids are unique; a notification sent again carries the same one.
    dedupeKey: message.id,
  };
  const replyTo = message.context?.id;
  if (message.type === "text" && message.text) {
    if (SHOW.test(message.text.body.trim())) {
      return {
        kind: "inbound",
        messageId: message.id,
        inbound: { ...base, kind: "command", command: "question" },
      };
    }
    // Every chat with the business number is one person's: whatever they type is addressed to it.
    const inbound: Inbound = {
      ...base,
      kind: "text",
      text: message.text.body,
      addressed: true,
      replyToMessageId: replyTo,
    };
    return { kind: "inbound", messageId: message.id, inbound };
  }
  if (message.type === "interactive" && message.interactive) {
    const tapped = message.interactive.list_reply ?? message.interactive.button_reply;
    if (!tapped) return undefined;
    const control = decodeControl(tapped.id);
    if (!control) return { kind: "unknown_control", chatId: from, messageId: message.id };
    return {
      kind: "inbound",
      messageId: message.id,
      inbound: { ...base, kind: "control", questionId: control.questionId, action: controlAction(control) },
    };
  }
  return undefined;
}

/** A message the business number sent that WhatsApp failed later because the 24-hour window was closed. */
export interface ClosedWindowFailure {
  /** The sent message's id. */
  messageId: string;
  /** The wa_id it was sent to. */
  chatId: string;
  /** What it was sent with (`biz_opaque_callback_data`), if anything. */
  callbackData: string | undefined;
}

/**
 * The messages of the business number `phoneNumberId` that failed with error 131047: the Cloud API takes a
 * free-form message outside the 24-hour window (200, a message id) and says so only later, in a `failed`
 * status. Other statuses, other errors and another number's statuses give nothing.
 */
export function closedWindowFailuresOf(
  notification: WhatsappNotification,
  phoneNumberId: string,
): ClosedWindowFailure[] {
  const out: ClosedWindowFailure[] = [];
  for (const entry of notification.entry) {
    for (const change of entry.changes) {
      if (change.field !== "messages" || change.value?.metadata?.phone_number_id !== phoneNumberId) continue;
      for (const raw of change.value.statuses ?? []) {
        const parsed = statusSchema.safeParse(raw);
        if (!parsed.success) continue;
        const status = parsed.data;
        if (status.status !== "failed" || !WA_ID.test(status.recipient_id)) continue;
        if (!status.errors?.some((error) => error.code === OUTSIDE_SERVICE_WINDOW)) continue;
        out.push({
          messageId: status.id,
          chatId: status.recipient_id,
          callbackData: status.biz_opaque_callback_data,
        });
      }
    }
  }
  return out;
}
