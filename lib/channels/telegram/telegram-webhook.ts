import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { InboundOutcome } from "../../app/handle-inbound.ts";
import type { LinkHandover } from "../../app/link-handover.ts";
import { HttpError } from "../../http/http-errors.ts";
import { json } from "../../http/responses.ts";
import { verifiedWebhook } from "../../http/webhook-prelude.ts";
import type { QuestionRecord } from "../../questions/question-record.ts";
import { copiesNotRecorded } from "../../questions/record-budget.ts";
import { cutText } from "../../questions/text.ts";
import type { SecretValue } from "../../secrets/secrets.ts";
import type { AnswerLinks } from "../../web/answer-link.ts";
import { browserEntry, copyIn } from "../answer-in-browser.ts";
import type { ChatWebhookDeps } from "../chat-webhook.ts";
import { controlAction, decodeControl } from "../control-codec.ts";
import type { Inbound } from "../inbound.ts";
import { PlatformApiError } from "../platform-api-error.ts";
import { PLATFORM_LIMITS } from "../platform-limits.ts";
import { remembered } from "../remembered.ts";
import { outcomeReplyText, replies, toldByCopies, typeYourAnswerText } from "../replies.ts";
import type { TelegramApi } from "./telegram-api.ts";
import { createTelegramChannel } from "./telegram-channel.ts";
import {
  fitsMessage,
  renderKeyboard,
  renderOwnLink,
  renderPrompt,
  selectedToggles,
} from "./telegram-render.ts";
import {
  keyboardOf,
  messageToInbound,
  type StartRequest,
  startRequestOf,
  type TelegramUpdate,
  updateSchema,
} from "./telegram-update.ts";

export interface TelegramWebhookDeps
  extends Pick<ChatWebhookDeps, "store" | "handleInbound" | "now" | "onError"> {
  /** The bot token: its bot id prefixes the dedupe keys of updates. */
  botToken: SecretValue;
  api: TelegramApi;
  /** The answer page's links: a redrawn copy shows what it was posted with (its answerer's link, or the control). */
  links: AnswerLinks;
  /** Hands a tapper of "Answer in browser" their own link in their private chat with the bot. */
  handover: LinkHandover;
}

const OK = json(200, {});

/**
 * Outcomes of typed text or a command that get a reply in the chat. Typed text from someone else in a group
 * gets none (Telegram has no private notice for it); an answer needs none (the prompt is edited to it).
 */
const TOLD_IN_CHAT = new Set<InboundOutcome["kind"]>([
  "ended",
  "incomplete",
  "invalid",
  "no_pending",
  "copies_full",
]);
/** Told only in the sender's private chat with the bot: in a group it would be a notice to everyone. */
const TOLD_IN_PRIVATE = new Set<InboundOutcome["kind"]>([
  "requester",
  "not_owner",
  "only_owner_cancels",
  "busy",
  "full",
]);

/** A close the run that asked no longer waits for: the edited prompt alone would not say so. */
const unheard = (outcome: InboundOutcome) => outcome.kind === "resolved" && !toldByCopies(outcome);

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
   * `/command@name` to check, a `t.me` link to the bot's private chat). Read from Telegram rather than
   * configured: it is the bot token's own, so it cannot disagree with it. A failed call is not cached: it
   * fails this update — a 500, so Telegram delivers it again — rather than counting a mention it could not
   * check.
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
    // `/start <token>` never reaches the pipeline: it is no answer, and its token names its question.
    const start = startRequestOf(update);
    if (update.callback_query) await onCallback(update, update.callback_query, botId);
    else if (start) await onStart(start);
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
        ...(text !== undefined && {
          text: cutText(text, PLATFORM_LIMITS.telegram.callbackAnswer),
          show_alert: alert,
        }),
      });
    const control = query.data === undefined ? undefined : decodeControl(query.data);
    const message = query.message;
    if (!control || !message) return answer(replies.controlNoLongerValid);
    const keyboard = keyboardOf(update);
    const actor = `telegram:${query.from.id}`;
    const outcome = await deps.handleInbound({
      platform: "telegram",
      actor,
      chatId: String(message.chat.id),
      dedupeKey: `${botId}:${update.update_id}`,
      kind: "control",
      questionId: control.questionId,
      // Done submits the toggles drawn selected on the tapped message.
      action: controlAction(control, [...selectedToggles(keyboard)]),
    });
    // A redraw shows what the copy was posted with: its answerer's link if it is private, else the control.
    const browser = (record: QuestionRecord) =>
      browserEntry(
        deps.links,
        record,
        copyIn(record, "telegram", String(message.chat.id), String(message.message_id))?.privateTo,
      );
    switch (outcome.kind) {
      case "duplicate":
        return; // this callback was answered the first time
      case "step":
        await redraw("editMessageText", {
          chat_id: message.chat.id,
          message_id: message.message_id,
          ...renderPrompt(outcome.record, outcome.questionIndex, await browser(outcome.record)),
        });
        return answer();
      case "toggled": {
        const selected = selectedToggles(keyboard);
        if (!selected.delete(outcome.optionIndex)) selected.add(outcome.optionIndex);
        const browsing = await browser(outcome.record);
        await redraw("editMessageReplyMarkup", {
          chat_id: message.chat.id,
          message_id: message.message_id,
          reply_markup: {
            inline_keyboard: renderKeyboard(outcome.record, selected, browsing, outcome.questionIndex),
          },
        });
        return answer();
      }
      case "private_link": {
        // A callback's answer can open only a t.me link: the one to the bot's private chat, whose /start
        // names this tapper and question by a one-time token. The link itself is made when they send it.
        const token = await deps.handover.issue(outcome.record, actor);
        return deps.api.call("answerCallbackQuery", {
          callback_query_id: query.id,
          url: `https://t.me/${await botUsername()}?start=${token}`,
        });
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
        // A close the run no longer waits for is an alert too: a fading toast would be easy to miss.
        return answer(outcomeReplyText(outcome), ALERTED.has(outcome.kind) || unheard(outcome));
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
    const notRecorded = copiesNotRecorded(record, 1);
    if (notRecorded) deps.onError(notRecorded, "telegram prompt for an own answer");
    await deps.store.addDeliveries(
      record.id,
      [
        {
          channel: "telegram",
          chatId: String(question.chat.id),
          messageId: String(prompt.message_id),
          aside: true,
        },
      ],
      deps.now(),
    );
  }

  /**
   * `/start <token>`: in the sender's private chat, their own link when the token is theirs and still good;
   * the same neutral sentence in every other case. Anywhere else nothing at all — a link is never handed
   * over in a shared chat, and a token is not used up there.
   */
  async function onStart(start: StartRequest) {
    if (!start.inPrivate) return;
    const handed = await deps.handover.redeem(start.token, start.actor);
    await deps.api.call("sendMessage", {
      chat_id: start.chatId,
      ...(handed.kind === "link" ? renderOwnLink(handed.url) : { text: replies.noLinkHere }),
    });
  }

  async function onMessage(inbound: Inbound, outcome: InboundOutcome) {
    // A private chat's id is its person's user id.
    const inPrivate = inbound.actor === `telegram:${inbound.chatId}`;
    const told =
      TOLD_IN_CHAT.has(outcome.kind) || unheard(outcome) || (inPrivate && TOLD_IN_PRIVATE.has(outcome.kind));
    const text = told ? outcomeReplyText(outcome, fitsMessage) : undefined;
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
