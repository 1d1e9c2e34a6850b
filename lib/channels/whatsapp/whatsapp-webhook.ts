import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { InboundOutcome } from "../../app/handle-inbound.ts";
import { HttpError } from "../../http/http-errors.ts";
import { json } from "../../http/responses.ts";
import { verifiedWebhook } from "../../http/webhook-prelude.ts";
import type { Delivery, QuestionRecord } from "../../questions/question-record.ts";
import { copiesNotRecorded } from "../../questions/record-budget.ts";
import type { SecretValue } from "../../secrets/secrets.ts";
import type { Telemetry } from "../../telemetry/telemetry.ts";
import { browserEntry, copyIn } from "../answer-in-browser.ts";
import type { ChatWebhookDeps } from "../chat-webhook.ts";
import type { Inbound } from "../inbound.ts";
import { answerLinkLine, outcomeReplyText, replies, typeYourAnswerText } from "../replies.ts";
import type { WhatsappApi } from "./whatsapp-api.ts";
import {
  closedWindowFailuresOf,
  messagesOf,
  notificationSchema,
  type WhatsappNotification,
} from "./whatsapp-notification.ts";
import { fitsText, renderStep, textMessage } from "./whatsapp-render.ts";
import { answerHandshake } from "./whatsapp-signature.ts";
import type { WhatsappTemplate } from "./whatsapp-spec.ts";
import { CLAIM_TTL_SECONDS, createClosedWindowHandler } from "./whatsapp-window.ts";

export interface WhatsappWebhookDeps
  extends Pick<ChatWebhookDeps, "store" | "handleInbound" | "now" | "onError" | "links"> {
  api: WhatsappApi;
  /** The business number's id: a notification for another number of the same app is not for this deployment. */
  phoneNumberId: string;
  /** WHATSAPP_TEMPLATE: sent in place of a copy WhatsApp failed later because the 24-hour window was closed. */
  template: WhatsappTemplate | undefined;
  /** Where a copy or reminder that could not reach its reader is reported (with its question's id). */
  telemetry: Pick<Telemetry, "failed">;
}

const OK = json(200, {});

/**
 * Outcomes of typed text that get a reply. Text that found no question of the sender's (`ignored`) gets none:
 * it may be anything a person writes to the business.
 */
const TEXT_SILENT = new Set<InboundOutcome["kind"]>(["ignored"]);

/**
 * `POST /webhooks/whatsapp`, behind the webhook prelude (X-Hub-Signature-256 and the body limit are checked
 * there, in the composition root): each message of the notification — typed text, a tapped list row or reply
 * button — goes through the shared pipeline, and the person is told what happened in their chat. WhatsApp
 * cannot edit the question's message, so a step moves on by posting the next one, and a tap or reply after
 * the end is told the outcome. A message of the business number that WhatsApp failed later because the
 * 24-hour window was closed (a `failed` status, 131047) gets the channel's fallback (./whatsapp-window.ts).
 * Always 200 once verified (Meta sends a notification again for days otherwise), unless a retry is wanted:
 * Handraise itself failed (the dedupe claim was given back), or a failed copy is not recorded yet (a 503).
 * Every message of a notification is claimed once, so what was handled before such a 503 is not handled, nor
 * told, again on Meta's retry. What the person is told is best effort — the outcome already stands.
 */
export function createWhatsappWebhook(deps: WhatsappWebhookDeps) {
  const closedWindow = createClosedWindowHandler(deps);
  return async function whatsappWebhook(
    event: APIGatewayProxyEventV2,
  ): Promise<APIGatewayProxyStructuredResultV2> {
    const { body } = verifiedWebhook(event);
    let notification: WhatsappNotification;
    try {
      notification = notificationSchema.parse(JSON.parse(body.toString("utf8")));
    } catch {
      throw new HttpError(400, "INVALID_REQUEST", "The body is not a WhatsApp webhook notification.");
    }
    for (const message of messagesOf(notification, deps.phoneNumberId, deps.now())) {
      if (message.kind === "stale") {
        // A replay of a captured notification, most likely: nothing is done, and nothing of it is logged.
        deps.onError(new Error("ignored a message too old to be a delivery"), "reading a WhatsApp message");
        continue;
      }
      if (message.kind === "unknown_control") {
        // Claimed as the pipeline claims a message: when a status of the same notification has Meta send it
        // again (a 503), the tap is not told twice.
        const key = `whatsapp:${message.messageId}`;
        if (await deps.store.claimEvent(key, CLAIM_TTL_SECONDS, deps.now())) {
          await tell(message.chatId, replies.controlNoLongerValid, message.messageId);
        }
        continue;
      }
      const outcome = await deps.handleInbound(message.inbound);
      await respond(message.inbound, outcome, message.messageId);
    }
    for (const failure of closedWindowFailuresOf(notification, deps.phoneNumberId)) {
      await closedWindow(failure);
    }
    return OK;
  };

  async function respond(inbound: Inbound, outcome: InboundOutcome, replyTo: string) {
    const chatId = inbound.chatId;
    switch (outcome.kind) {
      case "step":
        return post(outcome.record, chatId, async (privateTo) =>
          renderStep(
            outcome.record,
            outcome.questionIndex,
            await browserEntry(deps.links, outcome.record, privateTo),
          ),
        );
      case "needs_text":
        return post(outcome.record, chatId, async () =>
          textMessage(typeYourAnswerText(outcome.record.questions[outcome.questionIndex])),
        );
      case "private_link":
        // The tapper's own chat with the business: theirs alone, so their link may be handed over here.
        return tell(chatId, `${replies.yourOwnLink}\n\n${answerLinkLine(outcome.url)}`, replyTo);
      default: {
        if (inbound.kind === "text" && TEXT_SILENT.has(outcome.kind)) return;
        const text = outcomeReplyText(outcome, fitsText);
        if (text !== undefined) await tell(chatId, text, replyTo);
      }
    }
  }

  /**
   * Posts a message that belongs to the question (its next step, the prompt for an own answer) and records it
   * as one of its copies, so a reply to it routes to the question. A WhatsApp chat is one person's, and a
   * sent message is never edited (nothing is retired): the new message takes the place of the chat's latest
   * recorded copy, so a person stepping through a long prompt holds one copy, not one per step; the earlier
   * message stays indexed, so a reply to it still reaches the question.
   */
  async function post(
    record: QuestionRecord,
    chatId: string,
    render: (privateTo: string | undefined) => Promise<Record<string, unknown>>,
  ) {
    const privateTo = copyIn(record, "whatsapp", chatId)?.privateTo;
    try {
      const messageId = await deps.api.send(chatId, await render(privateTo));
      const copy: Delivery = {
        channel: "whatsapp",
        chatId,
        messageId,
        ...(privateTo !== undefined && { privateTo }),
      };
      // A template sent for a closed window is not the question's copy: it stays recorded beside it.
      const previous = record.deliveries.findLast(
        (d) => d.channel === "whatsapp" && d.chatId === chatId && d.messageId !== undefined && !d.aside,
      );
      if (previous !== undefined) {
        await deps.store.replaceCopy(record.id, previous, copy, deps.now());
        return;
      }
      const notRecorded = copiesNotRecorded(record, 1);
      if (notRecorded) deps.onError(notRecorded, "whatsapp post of a step");
      await deps.store.addDeliveries(record.id, [copy], deps.now());
    } catch (error) {
      deps.onError(error, "whatsapp post of a step");
    }
  }

  async function tell(chatId: string, text: string, replyTo: string) {
    try {
      await deps.api.send(chatId, textMessage(text), replyTo);
    } catch (error) {
      deps.onError(error, "whatsapp reply");
    }
  }
}

/**
 * `GET /webhooks/whatsapp`: Meta's subscription check when the webhook is saved in its console. The
 * challenge back (plain text) for the right verify token; 403 for anything else. It changes nothing.
 */
export function createWhatsappHandshake(verifyToken: SecretValue) {
  return async function whatsappHandshake(
    event: APIGatewayProxyEventV2,
  ): Promise<APIGatewayProxyStructuredResultV2> {
    const answer = answerHandshake(event.queryStringParameters ?? {}, await verifyToken());
    if (answer.kind !== "challenge") {
      throw new HttpError(403, "HANDSHAKE_REFUSED", "Wrong hub.mode or hub.verify_token.");
    }
    return {
      statusCode: 200,
      headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
      body: answer.challenge,
    };
  };
}
