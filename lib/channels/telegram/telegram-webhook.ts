import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { InboundOutcome } from "../../app/handle-inbound.ts";
import { HttpError } from "../../http/http-errors.ts";
import { json } from "../../http/responses.ts";
import { verifiedWebhook } from "../../http/webhook-prelude.ts";
import type { QuestionRecord } from "../../questions/question-record.ts";
import type { SecretValue } from "../../secrets/secrets.ts";
import type { ChatWebhookDeps } from "../chat-webhook.ts";
import { controlAction, decodeControl } from "../control-codec.ts";
import type { Inbound } from "../inbound.ts";
import { PlatformApiError } from "../platform-api-error.ts";
import { remembered } from "../remembered.ts";
import { outcomeReplyText, replies, typeYourAnswerText } from "../replies.ts";
import type { TelegramApi } from "./telegram-api.ts";
import { createTelegramChannel } from "./telegram-channel.ts";
import { answerUrlOf, renderKeyboard, renderPrompt, selectedToggles } from "./telegram-render.ts";
import { keyboardOf, messageToInbound, type TelegramUpdate, updateSchema } from "./telegram-update.ts";

export interface TelegramWebhookDeps
  extends Pick<ChatWebhookDeps, "store" | "handleInbound" | "now" | "onError"> {
  /** The bot token: its bot id prefixes the dedupe keys of updates. */
  botToken: SecretValue;
  api: TelegramApi;
}

const OK = json(200, {});

/**
 * Outcomes of typed text or a command that get a reply in the chat. Typed text from someone else in a group
 * gets none (Telegram has no private notice for it); an answer needs none (the prompt is edited to it).
 */
const TOLD_IN_CHAT = new Set<InboundOutcome["kind"]>(["ended", "incomplete", "invalid", "no_pending"]);

/** Outcomes of a tap told in an alert the person must dismiss, not a toast that fades. */
const ALERTED = new Set<InboundOutcome["kind"]>(["not_owner", "requester", "ended", "invalid"]);

type CallbackQuery = NonNullable<TelegramUpdate["callback_query"]>;
type TappedMessage = NonNullable<CallbackQuery["message"]>;

/**
 * `POST /webhooks/telegram`, behind the webhook prelude (the secret-token header and the body limit are
 * checked there, in the composition root): turn the update into an inbound event, handle it, and tell the
 * user what happened. Always 200 once verified — Telegram retries anything else and holds the chat's later
 * updates back until it succeeds — except when Handraise itself failed (then a retry is wanted, and the
 * event's dedupe claim was given back).
 */
export function createTelegramWebhook(deps: TelegramWebhookDeps) {
  /** Edits a copy tapped after its question ended, as the closing edit would have. */
  const telegramChannel = createTelegramChannel(deps.api);
  /**
   * The bot's @username, from getMe once per process and only when a message needs it (a mention or a
   * `/command@name` to check). A failed call is not cached: it fails this update — a 500, so Telegram
   * delivers it again — rather than counting a mention it could not check.
   */
  const botUsername = remembered(() =>
    deps.api.call<{ username?: string }>("getMe", {}).then((me) => {
      if (!me?.username) throw new PlatformApiError("telegram", "getMe", 200, "the bot has no username");
      return me.username;
    }),
  );

  return async function telegramWebhook(
    event: APIGatewayProxyEventV2,
  ): Promise<APIGatewayProxyStructuredResultV2> {
    const { body } = verifiedWebhook(event);
    const botId = (await deps.botToken()).split(":")[0] ?? "bot";
    let update: TelegramUpdate;
    try {
      update = updateSchema.parse(JSON.parse(body.toString("utf8")));
    } catch {
      throw new HttpError(400, "INVALID_UPDATE", "The body is not a Telegram update.");
    }
    if (update.callback_query) await onCallback(update, update.callback_query, botId);
    else {
      const inbound = await messageToInbound(update, { id: botId, username: botUsername });
      if (inbound) await onMessage(inbound, await deps.handleInbound(inbound));
    }
    return OK;
  };

  async function onCallback(update: TelegramUpdate, query: CallbackQuery, botId: string) {
    const answer = (text?: string, alert = false) =>
      deps.api.call("answerCallbackQuery", {
        callback_query_id: query.id,
        ...(text !== undefined && { text, show_alert: alert }),
      });
    const control = query.data === undefined ? undefined : decodeControl(query.data);
    const message = query.message;
    if (!control || !message) return answer(replies.controlNoLongerValid);
    const keyboard = keyboardOf(update);
    const outcome = await deps.handleInbound({
      platform: "telegram",
      actor: `telegram:${query.from.id}`,
      chatId: String(message.chat.id),
      dedupeKey: `${botId}:${update.update_id}`,
      kind: "control",
      questionId: control.questionId,
      // Done submits the toggles drawn selected on the tapped message.
      action: controlAction(control, [...selectedToggles(keyboard)]),
    });
    const answerUrl = answerUrlOf(keyboard);
    switch (outcome.kind) {
      case "duplicate":
        return; // this callback was answered the first time
      case "step":
        await redraw("editMessageText", {
          chat_id: message.chat.id,
          message_id: message.message_id,
          ...renderPrompt(outcome.record, outcome.questionIndex, answerUrl),
        });
        return answer();
      case "toggled": {
        const selected = selectedToggles(keyboard);
        if (!selected.delete(outcome.optionIndex)) selected.add(outcome.optionIndex);
        await redraw("editMessageReplyMarkup", {
          chat_id: message.chat.id,
          message_id: message.message_id,
          reply_markup: {
            inline_keyboard: renderKeyboard(outcome.record, selected, answerUrl, outcome.questionIndex),
          },
        });
        return answer();
      }
      case "needs_text":
        await answer();
        return askForText(outcome.record, outcome.questionIndex, message);
      // A tap is incomplete only as Done with nothing ticked.
      case "incomplete":
        return answer(replies.chooseAtLeastOne);
      case "ended": {
        // The tapped copy still had buttons after its question ended (a step redrawn after the closing
        // edit, or that edit missed): edit it to the outcome now, as the closing edit would have.
        const tapped = outcome.record.deliveries.find(
          (d) =>
            d.channel === "telegram" &&
            d.chatId === String(message.chat.id) &&
            d.messageId === String(message.message_id),
        );
        if (tapped) {
          await telegramChannel
            .retire(outcome.record, tapped)
            .catch((error: unknown) => deps.onError(error, "telegram retire of a tapped copy"));
        }
        return answer(outcomeReplyText(outcome), true);
      }
      default:
        return answer(outcomeReplyText(outcome), ALERTED.has(outcome.kind));
    }
  }

  /**
   * Redraws the tapped message. Best effort: the step is already kept, and failing the update would only
   * make Telegram send it again as a duplicate the pipeline ignores — leaving the tap unanswered. A double
   * tap's "message is not modified" is no failure at all; anything else is reported, and the next tap draws
   * the message again.
   */
  async function redraw(
    method: "editMessageText" | "editMessageReplyMarkup",
    params: Record<string, unknown>,
  ) {
    try {
      await deps.api.call(method, params);
    } catch (error) {
      if (error instanceof PlatformApiError && /message is not modified/i.test(error.message)) return;
      deps.onError(error, `telegram ${method}`);
    }
  }

  /** "Other…": a forced reply to the question, registered so the typed reply routes back to it. */
  async function askForText(record: QuestionRecord, questionIndex: number, question: TappedMessage) {
    const prompt = await deps.api.call<{ message_id: number }>("sendMessage", {
      chat_id: question.chat.id,
      text: typeYourAnswerText(record.questions[questionIndex]),
      reply_parameters: { message_id: question.message_id },
      reply_markup: { force_reply: true, input_field_placeholder: replies.yourAnswer, selective: true },
    });
    await deps.store.addDeliveries(
      record.id,
      [{ channel: "telegram", chatId: String(question.chat.id), messageId: String(prompt.message_id) }],
      deps.now(),
    );
  }

  async function onMessage(inbound: Inbound, outcome: InboundOutcome) {
    const text = TOLD_IN_CHAT.has(outcome.kind) ? outcomeReplyText(outcome) : undefined;
    if (text === undefined) return;
    await deps.api.call("sendMessage", {
      chat_id: inbound.chatId,
      text,
      ...(inbound.kind === "text" &&
        inbound.replyToMessageId !== undefined && {
          reply_parameters: {
            message_id: Number(inbound.replyToMessageId),
            allow_sending_without_reply: true,
          },
        }),
    });
  }
}
