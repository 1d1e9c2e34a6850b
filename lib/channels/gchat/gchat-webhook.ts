import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { InboundOutcome } from "../../app/handle-inbound.ts";
import { HttpError } from "../../http/http-errors.ts";
import { verifiedWebhook, type WebhookRequest } from "../../http/webhook-prelude.ts";
import { ANSWER_IN_BROWSER, browserEntry, copyIn } from "../answer-in-browser.ts";
import type { ChatWebhookDeps } from "../chat-webhook.ts";
import type { Inbound } from "../inbound.ts";
import { outcomeReplyText, replies } from "../replies.ts";
import { KeySetUnavailableError } from "../signing-keys.ts";
import { ownCardInThread } from "../thread-reply.ts";
import { type GchatMessage, THREAD_NAME } from "./gchat-api.ts";
import { GoogleChatAuthError, type VerifyGoogleChatRequest } from "./gchat-auth.ts";
import { eventToInbound, type GchatEvent, isDirectMessage, parseEvent, withInputs } from "./gchat-event.ts";
import { fitsText, renderQuestionMessage, renderRetiredMessage, textMessage } from "./gchat-render.ts";

/** The 401's message (which proof was missing or wrong, never what was presented). */
export const GCHAT_REFUSAL = "Missing or invalid Google Chat token.";

/**
 * Google Chat waits 30 s for an app's synchronous response; the webhook makes no Chat API call before it, and
 * its store work must end well inside that.
 */
export const GCHAT_ACK_WITHIN_MS = 8_000;

/**
 * The webhook prelude's verification for Google Chat: the bearer token must be valid (gchat-auth.ts). False
 * refuses (401); `onRejected` says which check did (never the token). Certificates that could not be read
 * are neither: a 503, and nothing changes.
 */
export function gchatVerification(
  verify: VerifyGoogleChatRequest,
  onRejected: (reason: string) => void,
): (request: WebhookRequest) => Promise<boolean> {
  return async ({ headers }) => {
    try {
      await verify(headers.authorization);
      return true;
    } catch (error) {
      if (error instanceof KeySetUnavailableError) {
        onRejected(error.message);
        throw new HttpError(503, "KEYS_UNAVAILABLE", "Google Chat's signing certificates could not be read.");
      }
      if (!(error instanceof GoogleChatAuthError)) throw error;
      onRejected(error.message);
      return false;
    }
  };
}

type Response = APIGatewayProxyStructuredResultV2;

/** The synchronous response: a JSON message (or `{}`, nothing to say). */
function respond(message: object): Response {
  return {
    statusCode: 200,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
    body: JSON.stringify(message),
  };
}
const ACK = respond({});

/**
 * A notice for the person who clicked or typed: in a shared space, a private message only they see
 * (`privateMessageViewer`); in their direct message with the app, a plain reply. A click's notice is a new
 * message (`NEW_MESSAGE`): the card it came from stays as it is.
 */
function notice(event: GchatEvent, message: GchatMessage, clicked: boolean): Response {
  const user = event.user?.name;
  return respond({
    ...message,
    ...(clicked && { actionResponse: { type: "NEW_MESSAGE" } }),
    ...(!isDirectMessage(event) && user !== undefined && { privateMessageViewer: { name: user } }),
  });
}

/** The clicked card, written over in place (`UPDATE_MESSAGE`). */
const updateCard = (message: GchatMessage): Response =>
  respond({ text: "", ...message, actionResponse: { type: "UPDATE_MESSAGE" } });

/** What a person who typed is told of an outcome; undefined: nothing (chatter that answers nothing). */
function typedNotice(outcome: InboundOutcome): string | undefined {
  if (outcome.kind === "ignored" || outcome.kind === "no_pending") return undefined;
  return outcomeReplyText(outcome, fitsText);
}

/**
 * A typed line in the thread of a question's card, pointed at that card: with two questions open in one
 * space, the thread says which one it answers. Several cards can share a thread — the one that started it
 * (the delivery's `startedThread`, in the message index under the thread's name) and any posted into it
 * later (`deliverTo.threadId`) — so the sender's own pending card there comes first; failing that, the card
 * that started the thread takes the line whoever owns it and whatever its state, and the pipeline says
 * whether the sender may answer it — never on to another question. Chat names a thread for every message,
 * also a line that starts a new one, so a thread that is no card's leaves the line as it was (routed by its
 * sender).
 */
async function inQuestionThread(
  deps: ChatWebhookDeps,
  inbound: Extract<Inbound, { kind: "text" }>,
  thread: string | undefined,
): Promise<Inbound> {
  if (thread === undefined || !THREAD_NAME.test(thread) || !thread.startsWith(`${inbound.chatId}/`)) {
    return inbound;
  }
  const [own, started] = await Promise.all([
    ownCardInThread(deps.store, deps.now(), inbound, thread),
    deps.store.findByMessage(inbound.platform, inbound.chatId, thread),
  ]);
  if (own !== undefined) return { ...inbound, replyToMessageId: own };
  return started === undefined ? inbound : { ...inbound, replyToMessageId: thread };
}

/**
 * `POST /webhooks/gchat`: Google Chat's interaction events, after the webhook prelude has verified the token;
 * nothing unverified is read here. Every answer is the synchronous response — Chat shows it without an API
 * call:
 * - a click (`CARD_CLICKED`) goes through the shared pipeline; a step of the stepper, an answer or a click on a
 *   card whose question has ended writes the clicked card over (`UPDATE_MESSAGE`: the next step, or the
 *   outcome without buttons — the table's stream consumer then retires every other copy); anything else is a
 *   notice only the clicker sees (not yours, still needed, their own answer link);
 * - a typed message (`MESSAGE`) goes through the same pipeline as in every chat (in a card's thread, to that
 *   card's question), and is answered with a notice;
 * - the app added to a space (`ADDED_TO_SPACE`) greets; every other event is acknowledged.
 */
export function createGchatWebhook(deps: ChatWebhookDeps) {
  return async function gchatWebhook(event: APIGatewayProxyEventV2): Promise<Response> {
    const { body } = verifiedWebhook(event);
    const chat = parseEvent(body);
    if (!chat) throw new HttpError(400, "INVALID_REQUEST", "The body is not a Google Chat event.");
    if (chat.type === "ADDED_TO_SPACE") return respond(textMessage(replies.addedToChat));
    const parsed = eventToInbound(chat);
    if (!parsed) return ACK;
    let { inbound } = parsed;
    const { control } = parsed;
    if (inbound.kind === "form" && control) {
      const record = await deps.store.get(inbound.questionId, deps.now());
      if (record) inbound = withInputs(inbound, control, record, chat);
    }
    if (inbound.kind === "text") inbound = await inQuestionThread(deps, inbound, chat.message?.thread?.name);
    const outcome = await deps.handleInbound(inbound);
    if (outcome.kind === "duplicate") return ACK;

    if (control === undefined) {
      const text = typedNotice(outcome);
      return text === undefined ? ACK : notice(chat, textMessage(text), false);
    }
    switch (outcome.kind) {
      case "step": {
        // The link stays only on the copy posted to its answerer's direct message.
        const copy = copyIn(outcome.record, "gchat", inbound.chatId, chat.message?.name);
        const browser = await browserEntry(deps.links, outcome.record, copy?.privateTo);
        return updateCard(renderQuestionMessage(outcome.record, { step: outcome.questionIndex, browser }));
      }
      case "resolved":
        // A run that no longer waits is told in words; the stream consumer retires this card with the others.
        if (outcome.notWaiting === true) return notice(chat, textMessage(replies.recordedNotWaiting), true);
        return updateCard(renderRetiredMessage(outcome.record));
      case "ended":
        return updateCard(renderRetiredMessage(outcome.record));
      case "needs_text":
        return notice(chat, textMessage(replies.chooseOrType), true);
      case "private_link":
        // Only the clicker sees it: their own link, never posted where others can read it.
        return notice(
          chat,
          {
            text: replies.yourOwnLink,
            cardsV2: [
              {
                cardId: "handraise-link",
                card: {
                  sections: [
                    {
                      widgets: [
                        {
                          buttonList: {
                            buttons: [
                              { text: ANSWER_IN_BROWSER, onClick: { openLink: { url: outcome.url } } },
                            ],
                          },
                        },
                      ],
                    },
                  ],
                },
              },
            ],
          },
          true,
        );
      default: {
        const text = outcomeReplyText(outcome, fitsText);
        return text === undefined ? ACK : notice(chat, textMessage(text), true);
      }
    }
  };
}
