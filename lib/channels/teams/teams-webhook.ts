import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { InboundOutcome } from "../../app/handle-inbound.ts";
import { HttpError } from "../../http/http-errors.ts";
import { verifiedWebhook, type WebhookRequest } from "../../http/webhook-prelude.ts";
import { browserEntry, copyIn } from "../answer-in-browser.ts";
import { type ChatWebhookDeps, EMPTY_ACK } from "../chat-webhook.ts";
import { noPrivateLinkText, outcomeReplyText, replies, toldByCopies } from "../replies.ts";
import { activityToInbound, parseActivity, withInputs } from "./teams-activity.ts";
import type { TeamsApi } from "./teams-api.ts";
import { KeySetUnavailableError, type VerifyTeamsRequest } from "./teams-auth.ts";
import {
  cardActivity,
  fitsActivity,
  renderOwnLinkCard,
  renderQuestionCard,
  renderRetiredCard,
  textActivity,
} from "./teams-render.ts";

/** The 401's message (which proof was missing or wrong, never what was presented). */
export const TEAMS_REFUSAL = "Missing or invalid Bot Framework token.";

/**
 * The webhook prelude's verification for Teams: the body must be a Bot Framework activity, and its token
 * valid for it (teams-auth.ts). False refuses (401); `onRejected` says which check did (never the token).
 * A key set that could not be fetched is neither: a 503, which the Bot Framework retries.
 */
export function teamsVerification(
  verify: VerifyTeamsRequest,
  onRejected: (reason: string) => void,
): (request: WebhookRequest) => Promise<boolean> {
  return async ({ headers, body }) => {
    const activity = parseActivity(body);
    if (!activity) {
      // Without an activity there is nothing a token could be checked against: refused like a bad token.
      onRejected("NOT_AN_ACTIVITY");
      return false;
    }
    try {
      await verify(headers.authorization, activity);
      return true;
    } catch (error) {
      if (error instanceof KeySetUnavailableError) {
        onRejected(error.message);
        throw new HttpError(503, "KEYS_UNAVAILABLE", "The Bot Framework's signing keys could not be read.");
      }
      onRejected(error instanceof Error ? error.message : "invalid token");
      return false;
    }
  };
}

/**
 * Teams sends an activity again when it has no answer within about 15 s: the replies and card edits made
 * while answering must be done well before that.
 */
export const TEAMS_ACK_WITHIN_MS = 10_000;

export interface TeamsWebhookDeps extends ChatWebhookDeps {
  api: TeamsApi;
}

type Response = APIGatewayProxyStructuredResultV2;

/** The Bot Framework wants a quick 2xx with no body for an activity; everything else goes through the API. */
const ACK = EMPTY_ACK;

/**
 * What the person is told about an outcome, as a reply; undefined: nothing (the card says it). `askedForLink`:
 * the tap was an "Answer in browser" control.
 */
function noticeOf(outcome: InboundOutcome, tapped: boolean, askedForLink: boolean): string | undefined {
  switch (outcome.kind) {
    case "resolved":
      // The card is replaced with the outcome (the table's stream consumer retires every copy); a run that no
      // longer waits is told in words.
      return toldByCopies(outcome) ? undefined : outcomeReplyText(outcome, fitsActivity);
    case "needs_text":
      // Send with an empty own-answer box.
      return replies.chooseOrType;
    case "ignored":
    case "no_pending":
      // Typed chatter that answers nothing gets no reply; a tap on a card whose question is gone does.
      return tapped ? replies.gone : undefined;
    case "private_link":
      // In a shared conversation a reply would be seen by everyone in it, so no link is handed over (a
      // private one gets the link instead: the webhook below); the person is told where to answer. A step on a shared card of a prompt several people answer, or an "Answer in browser" tap
      // (a card of ours draws no such control in a shared conversation, but one may come from an older card).
      return askedForLink ? noPrivateLinkText(outcome.record) : replies.answerOnYourOwn;
    default:
      return outcomeReplyText(outcome, fitsActivity);
  }
}

const textOf = (text: string | undefined) => (text === undefined ? undefined : textActivity(text));

/**
 * `POST /webhooks/teams`: Bot Framework activities, after the webhook prelude has verified the token against
 * the activity (`teamsVerification`); nothing unverified is read here.
 *
 * A tap on a card (`Action.Submit`) or typed text goes through the shared pipeline. The answer is recorded
 * and the run resumed before the response; every posted card is replaced with the outcome by the table's
 * stream consumer, as on every platform. A step of a prompt of several questions replaces the tapped card
 * with the next step (or the one Back asked for), through the Bot Connector. Notices — not yours, already
 * ended, still needed — are replies in the conversation: Teams has no message only one person of a group sees
 * for a bot's plain message, so a person's own link is handed over only in a personal chat. A tap on a card whose question has ended also replaces that card, in case it
 * still shows its controls.
 */
export function createTeamsWebhook(deps: TeamsWebhookDeps) {
  /** Replies and edits are best effort: the outcome stands, and failing here would only make Teams resend. */
  const bestEffort = (context: string, work: () => Promise<unknown>) =>
    work().then(
      () => undefined,
      (error: unknown) => deps.onError(error, context),
    );

  return async function teamsWebhook(event: APIGatewayProxyEventV2): Promise<Response> {
    const { body, within } = verifiedWebhook(event);
    const activity = parseActivity(body);
    // The prelude verified this very body as an activity; not one here means the two disagree.
    if (!activity) throw new HttpError(400, "INVALID_REQUEST", "The body is not a Bot Framework activity.");
    const parsed = activityToInbound(activity);
    if (!parsed) return ACK;
    let { inbound } = parsed;
    const { control } = parsed;
    if (inbound.kind === "form" && control) {
      const record = await deps.store.get(inbound.questionId, deps.now());
      if (record) inbound = withInputs(inbound, control, record, activity.value);
    }
    const outcome = await deps.handleInbound(inbound);

    const conversationId = activity.conversation?.id ?? "";
    const { serviceUrl } = activity;
    const askedForLink = inbound.kind === "control" && inbound.action.type === "browser";
    // The card a tap came from (Teams names it in `replyToId`).
    const cardId = control === undefined ? undefined : activity.replyToId;
    // A reply no one but the tapper reads: their one-to-one conversation with the bot, or the copy posted
    // to them alone. There the link is handed over, as other platforms do in a private chat.
    const privateHere =
      activity.conversation?.conversationType === "personal" ||
      (outcome.kind === "private_link" &&
        copyIn(outcome.record, "teams", inbound.chatId, cardId)?.privateTo === inbound.actor);
    const notice =
      outcome.kind === "private_link" && privateHere
        ? cardActivity(renderOwnLinkCard(outcome.url))
        : textOf(noticeOf(outcome, control !== undefined, askedForLink));
    const work: (() => Promise<void>)[] = [];
    if (notice !== undefined && activity.id !== undefined) {
      const replyTo = activity.id;
      work.push(() =>
        bestEffort("teams notice", () => deps.api.reply(serviceUrl, conversationId, replyTo, notice)),
      );
    }
    if (cardId !== undefined && (outcome.kind === "step" || outcome.kind === "ended")) {
      work.push(() =>
        bestEffort("teams card update", async () => {
          const card =
            outcome.kind === "step"
              ? renderQuestionCard(outcome.record, {
                  step: outcome.questionIndex,
                  // The link stays only on the card posted to its answerer's personal chat.
                  browser: await browserEntry(
                    deps.links,
                    outcome.record,
                    copyIn(outcome.record, "teams", inbound.chatId, cardId)?.privateTo,
                  ),
                })
              : renderRetiredCard(outcome.record);
          await deps.api.update(serviceUrl, conversationId, cardId, cardActivity(card));
        }),
      );
    }
    // Started inside `within`, so every Bot Connector call is bounded by the acknowledgement deadline.
    await within(() => Promise.all(work.map((run) => run())));
    return ACK;
  };
}
