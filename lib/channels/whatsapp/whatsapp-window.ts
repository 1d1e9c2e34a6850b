/**
 * WhatsApp's 24-hour customer service window: a free-form message (the question, a reminder) goes only
 * within 24 hours of the person's last message to the business (error 131047 otherwise). The Cloud API says
 * so either at once, refusing the send, or — as it usually does — later: the send is taken (200, a message
 * id) and a `failed` status with 131047 follows on the webhook. Both end here, in one fallback: the
 * configured template, carrying the question's header and the answerer's own link, to the answerer's own
 * chat; else the reason, for the operator. A reminder gets no template: it only reports.
 */

import { HttpError } from "../../http/http-errors.ts";
import type { Delivery, QuestionRecord } from "../../questions/question-record.ts";
import { copiesNotRecorded } from "../../questions/record-budget.ts";
import type { QuestionStore } from "../../store/question-store.ts";
import { idsOf, refOf, type Telemetry } from "../../telemetry/telemetry.ts";
import type { AnswerLinks } from "../../web/answer-link.ts";
import { eventClaimSeconds } from "../channel-specs.ts";
import { PlatformApiError } from "../platform-api-error.ts";
import { OUTSIDE_SERVICE_WINDOW, type WhatsappApi, WhatsappApiError } from "./whatsapp-api.ts";
import type { ClosedWindowFailure } from "./whatsapp-notification.ts";
import { renderTemplate, type WhatsappMessage } from "./whatsapp-render.ts";
import type { WhatsappTemplate } from "./whatsapp-spec.ts";

/** Why a message did not reach its reader, naming what did not go in its place: never the number or link. */
function windowClosedError(what: string): WhatsappApiError {
  return new WhatsappApiError(
    "POST /messages",
    undefined,
    `WhatsApp's 24-hour window is closed (code ${OUTSIDE_SERVICE_WINDOW})${what}`,
    OUTSIDE_SERVICE_WINDOW,
  );
}

export const isWindowClosed = (error: unknown): boolean =>
  error instanceof WhatsappApiError && error.code === OUTSIDE_SERVICE_WINDOW;

/** A reminder outside the window: it only reports (a template would post the question again). */
export const reminderNotSent = (): WhatsappApiError =>
  windowClosedError(": a reminder is not sent as a template");

/**
 * What a message the channel sends says of itself (`biz_opaque_callback_data`, given back in its statuses):
 * a question's copy, a reminder or a template, of a question. A copy is still found by the message index;
 * its tag only tells that it is one before the index has it.
 */
type Role = "question" | "reminder" | "template";
const TAG = /^(question|reminder|template):([A-Za-z0-9_-]{1,48})$/;

export const tagged = (role: Role, questionId: string) => ({
  biz_opaque_callback_data: `${role}:${questionId}`,
});

function tagOf(callbackData: string | undefined): { role: Role; questionId: string } | undefined {
  const match = callbackData === undefined ? null : TAG.exec(callbackData);
  return match ? { role: match[1] as Role, questionId: match[2] as string } : undefined;
}

export interface TemplateFallback {
  api: WhatsappApi;
  links: AnswerLinks;
  /** WHATSAPP_TEMPLATE; without it a copy outside the window is not delivered. */
  template: WhatsappTemplate | undefined;
}

/**
 * Sends the template in place of `record`'s copy in `chatId`, which WhatsApp refused or failed for the
 * closed window: its body's parameters the first header and the link of `privateTo` (the copy's answerer,
 * present only when the chat is their own). Resolves to the template's message id; throws a
 * WhatsappApiError naming why none could go — none configured, or no link for this chat's reader (the page
 * off, or someone else's chat).
 */
export async function sendTemplateInstead(
  fallback: TemplateFallback,
  record: QuestionRecord,
  chatId: string,
  privateTo: string | undefined,
): Promise<string> {
  if (!fallback.template) throw windowClosedError(" and WHATSAPP_TEMPLATE is not set");
  const url = privateTo === undefined ? undefined : await fallback.links.urlFor(record, privateTo);
  if (url === undefined) {
    throw windowClosedError(
      ", and the template needs the answerer's own link: the answer page is off or this chat is not theirs",
    );
  }
  const message: WhatsappMessage = {
    ...renderTemplate(record, fallback.template, url),
    ...tagged("template", record.id),
  };
  return fallback.api.send(chatId, message);
}

export interface ClosedWindowDeps extends TemplateFallback {
  store: Pick<QuestionStore, "findByMessage" | "get" | "addDeliveries" | "claimEvent" | "releaseEvent">;
  telemetry: Pick<Telemetry, "failed">;
  now: () => number;
}

/**
 * How long after a question's copies were posted (when it was asked, or escalated) a failed status may still
 * come before its copy is recorded: a copy is recorded once every target of its posting was tried.
 */
const NOT_RECORDED_GRACE_MS = 5 * 60 * 1000;

/** When the question's copies were last posted by its own steps: asked, or escalated. */
function latestPostingMs(record: QuestionRecord): number {
  const escalatedAt =
    record.escalate === undefined ? undefined : record.createdAtMs + record.escalate.afterSeconds * 1000;
  return Math.max(record.createdAtMs, escalatedAt ?? record.createdAtMs);
}

/** A refusal a retry cannot change: the window's own (no template, no link) or a 4xx other than 429. */
function isFinalRefusal(error: unknown): boolean {
  if (isWindowClosed(error)) return true;
  const status = (error as { status?: unknown }).status;
  return (
    error instanceof PlatformApiError &&
    typeof status === "number" &&
    status >= 400 &&
    status < 500 &&
    status !== 429
  );
}

/** Longer than Meta sends a notification again (the manifest's `redeliversForDays`). */
export const CLAIM_TTL_SECONDS = eventClaimSeconds("whatsapp");

/**
 * What the webhook does with a message WhatsApp failed later for the closed window (a `failed` status with
 * 131047):
 * - a copy of a question (found by its message id in the message index) still pending: the template in its
 *   place, as when the send is refused at once, recorded as a copy so a reply to it finds the question; where
 *   none can go (no template, not the answerer's own chat, the page off), an ERROR naming the question and
 *   why. The question stays pending: the person's next message opens the window (`/question` shows it), an
 *   escalation may still post it, and the API may still answer it;
 * - a copy its question (found by the index, or by the copy's tag before the index has it) has not recorded
 *   yet, because the status came before the delivery was written: a 503, so that Meta sends it again later;
 * - a reminder (its tag): an ERROR, no template;
 * - a template, an unknown message, an ended question: nothing.
 * Meta may send a status twice: each failure is claimed once (the inbound dedupe's claims), so one template
 * goes. A store that fails before anything was sent gives the claim back and throws, so Meta's retry acts.
 */
export function createClosedWindowHandler(deps: ClosedWindowDeps) {
  const { store, telemetry, now } = deps;

  /** Runs `act` once per failed message; a failure of Handraise's own before it gives the claim back. */
  async function once(failure: ClosedWindowFailure, act: () => Promise<void>) {
    const key = `whatsapp:failed:${failure.messageId}`;
    if (!(await store.claimEvent(key, CLAIM_TTL_SECONDS, now()))) return;
    try {
      await act();
    } catch (error) {
      await store.releaseEvent(key);
      throw error;
    }
  }

  async function copyFailed(record: QuestionRecord, copy: Delivery) {
    const ids = idsOf(refOf(record));
    let messageId: string;
    try {
      messageId = await sendTemplateInstead(deps, record, copy.chatId, copy.privateTo);
    } catch (error) {
      // A refusal a retry cannot change (no template, no link for this chat, a 4xx of the Graph API) is
      // reported; anything passing (a 429, a 5xx, no answer) is thrown, so the claim is given back and the
      // webhook's 5xx has Meta send the status again.
      if (!isFinalRefusal(error)) throw error;
      telemetry.failed("whatsapp copy not delivered", error, ids);
      return;
    }
    const template: Delivery = {
      channel: "whatsapp",
      chatId: copy.chatId,
      messageId,
      ...(copy.privateTo !== undefined && { privateTo: copy.privateTo }),
      aside: true,
    };
    const notRecorded = copiesNotRecorded(record, 1);
    if (notRecorded) telemetry.failed("recording the template sent for a closed window", notRecorded, ids);
    try {
      await store.addDeliveries(record.id, [template], now());
    } catch (error) {
      // The template went: giving the claim back would send it again. A plain line still finds the question.
      telemetry.failed("recording the template sent for a closed window", error, ids);
    }
  }

  return async function closedWindow(failure: ClosedWindowFailure): Promise<void> {
    const tag = tagOf(failure.callbackData);
    if (tag?.role === "reminder") {
      return once(failure, async () =>
        telemetry.failed("whatsapp reminder not delivered", reminderNotSent(), {
          questionId: tag.questionId,
        }),
      );
    }
    if (tag?.role === "template") return;
    const id =
      (await store.findByMessage("whatsapp", failure.chatId, failure.messageId)) ??
      (tag?.role === "question" ? tag.questionId : undefined);
    if (id === undefined) return;
    const record = await store.get(id, now());
    if (record?.status !== "pending") return;
    // By its message id alone: Meta's wa_id in the status may be written otherwise than the chat id the copy
    // was sent to (a country's extra digit), and a message id names one message.
    const copy = record.deliveries.find(
      (delivery) => delivery.channel === "whatsapp" && delivery.messageId === failure.messageId,
    );
    if (copy === undefined) {
      if (now() - latestPostingMs(record) > NOT_RECORDED_GRACE_MS) {
        // Not a copy on its way: one whose recording failed. Nothing can be sent in its place; say so once.
        return once(failure, async () =>
          telemetry.failed("whatsapp failed status names no recorded copy", windowClosedError(""), {
            questionId: record.id,
          }),
        );
      }
      // The status came before the delivery was written: Meta sends a notification again after a non-200.
      throw new HttpError(
        503,
        "NOT_RECORDED_YET",
        "A failed message's question has not recorded it yet: nothing changed; send it again later.",
      );
    }
    return once(failure, () => copyFailed(record, copy));
  };
}
