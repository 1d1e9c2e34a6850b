import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { HandleInbound, InboundOutcome } from "../../app/handle-inbound.ts";
import { HttpError } from "../../http/http-errors.ts";
import { webhookBody } from "../../http/middlewares.ts";
import { json } from "../../http/responses.ts";
import { safeEqual } from "../../http/safe-equal.ts";
import type { QuestionRecord } from "../../questions/question-record.ts";
import type { SecretValue } from "../../secrets/secrets.ts";
import type { QuestionStore } from "../../store/question-store.ts";
import type { Inbound } from "../inbound.ts";
import { PlatformApiError } from "../platform-api-error.ts";
import { remembered } from "../remembered.ts";
import { endedText } from "../replies.ts";
import type { TelegramApi } from "./telegram-api.ts";
import {
  answerUrlOf,
  callbackToAction,
  decodeCallback,
  renderKeyboard,
  selectedToggles,
} from "./telegram-render.ts";
import { keyboardOf, messageToInbound, type TelegramUpdate, updateSchema } from "./telegram-update.ts";

export interface TelegramWebhookDeps {
  /** `TELEGRAM_WEBHOOK_SECRET`: the secret token Telegram sends with every update. */
  webhookSecret: SecretValue;
  /** The bot token: its bot id prefixes the dedupe keys of updates. */
  botToken: SecretValue;
  api: TelegramApi;
  store: QuestionStore;
  handleInbound: HandleInbound;
  now?: () => number;
}

const SECRET_HEADER = "x-telegram-bot-api-secret-token";
const OK = json(200, {});

/**
 * `POST /webhooks/telegram`: verify the secret-token header, turn the update into an inbound event, handle
 * it, and tell the user what happened. Always 200 once verified — Telegram retries anything else and holds
 * the chat's later updates back until it succeeds — except when Handraise itself failed (then a retry is
 * wanted, and the event's dedupe claim was given back).
 */
export function createTelegramWebhook(deps: TelegramWebhookDeps) {
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
    const body = webhookBody(event);
    const presented = event.headers?.[SECRET_HEADER] ?? "";
    if (!safeEqual(presented, await deps.webhookSecret())) {
      throw new HttpError(401, "UNAUTHORIZED", "Missing or wrong Telegram secret token.");
    }
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

  async function onCallback(
    update: TelegramUpdate,
    query: NonNullable<TelegramUpdate["callback_query"]>,
    botId: string,
  ) {
    const answer = (text?: string, alert = false) =>
      deps.api.call("answerCallbackQuery", {
        callback_query_id: query.id,
        ...(text !== undefined && { text, show_alert: alert }),
      });
    const decoded = query.data === undefined ? undefined : decodeCallback(query.data);
    const message = query.message;
    const keyboard = keyboardOf(update);
    const action = decoded && callbackToAction(decoded, keyboard);
    if (!decoded || !action || !message) return answer("This button is no longer valid.");

    const inbound: Inbound = {
      platform: "telegram",
      actor: `telegram:${query.from.id}`,
      chatId: String(message.chat.id),
      dedupeKey: `${botId}:${update.update_id}`,
      kind: "control",
      questionId: decoded.questionId,
      action,
    };
    const outcome = await deps.handleInbound(inbound);
    switch (outcome.kind) {
      case "duplicate":
        return; // this callback was answered the first time
      case "ignored":
      case "no_pending":
        return answer("This question no longer exists.");
      case "not_owner":
        return answer("This question is not yours to answer.", true);
      case "ended":
        return answer(endedText(outcome.record), true);
      case "resolved":
        return answer(outcome.record.status === "answered" ? "Got it." : "Skipped.");
      case "incomplete":
        return answer("Choose at least one option, then tap Done.");
      case "invalid":
        return answer(outcome.message, true);
      case "shown":
        return answer();
      case "toggled": {
        const selected = selectedToggles(keyboard);
        if (!selected.delete(outcome.optionIndex)) selected.add(outcome.optionIndex);
        await deps.api.call("editMessageReplyMarkup", {
          chat_id: message.chat.id,
          message_id: message.message_id,
          reply_markup: { inline_keyboard: renderKeyboard(outcome.record, selected, answerUrlOf(keyboard)) },
        });
        return answer();
      }
      case "needs_text":
        await answer();
        return askForText(outcome.record, outcome.questionIndex, message.chat.id, message.message_id);
    }
  }

  /** "Other…": a forced reply to the question, registered so the typed reply routes back to it. */
  async function askForText(
    record: QuestionRecord,
    questionIndex: number,
    chatId: number,
    messageId: number,
  ) {
    const question = record.questions[questionIndex];
    const prompt = await deps.api.call<{ message_id: number }>("sendMessage", {
      chat_id: chatId,
      text: `Type your answer to “${question?.header ?? "the question"}” as a reply to this message.`,
      reply_parameters: { message_id: messageId },
      reply_markup: { force_reply: true, input_field_placeholder: "Your answer", selective: true },
    });
    await deps.store.addDeliveries(
      record.id,
      [{ channel: "telegram", chatId: String(chatId), messageId: String(prompt.message_id) }],
      (deps.now ?? Date.now)(),
    );
  }

  async function onMessage(inbound: Inbound, outcome: InboundOutcome) {
    const say = (text: string) =>
      deps.api.call("sendMessage", {
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
    switch (outcome.kind) {
      case "ended":
        return say(endedText(outcome.record));
      case "incomplete":
        return say(`Still needed: ${outcome.missing.map((q) => `${q.header} [${q.id}]`).join(", ")}.`);
      case "invalid":
        return say(outcome.message);
      case "no_pending":
        return say("No question is waiting for you here.");
      // Typed text from someone else in a group gets no public reply: Telegram has no private notice for it.
      default:
        return;
    }
  }
}
