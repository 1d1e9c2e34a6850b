import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { HandleInbound, InboundOutcome } from "../../app/handle-inbound.ts";
import { HttpError } from "../../http/http-errors.ts";
import { webhookBody } from "../../http/middlewares.ts";
import type { QuestionStore } from "../../store/question-store.ts";
import { endedText, replies, stillNeededText } from "../replies.ts";
import {
  activitySchema,
  activityToInbound,
  formAnswers,
  type TeamsInboundActivity,
} from "./teams-activity.ts";
import type { TeamsApi } from "./teams-api.ts";
import type { VerifyTeamsRequest } from "./teams-auth.ts";
import { cardActivity, renderRetiredCard, textActivity } from "./teams-render.ts";

export interface TeamsWebhookDeps {
  verify: VerifyTeamsRequest;
  api: TeamsApi;
  store: QuestionStore;
  handleInbound: HandleInbound;
  now: () => number;
  /** Reports what does not change the outcome: a notice or an edit the Bot Connector did not take. */
  onError: (error: unknown, context: string) => void;
  /** Reports why a request was refused (the caller only ever sees a bare 401). */
  onRejected?: (reason: string) => void;
}

type Response = APIGatewayProxyStructuredResultV2;

/** The Bot Framework wants a quick 2xx with no body for an activity; everything else goes through the API. */
const ACK: Response = { statusCode: 200, headers: { "cache-control": "no-store" }, body: "" };

const unauthorized = () => new HttpError(401, "UNAUTHORIZED", "Missing or invalid Bot Framework token.");

/** What the person is told about an outcome, as a reply; undefined: nothing (the card update says it). */
function noticeOf(outcome: InboundOutcome, tapped: boolean): string | undefined {
  switch (outcome.kind) {
    case "not_owner":
      return replies.notYours;
    case "ended":
      return endedText(outcome.record);
    case "incomplete":
      return stillNeededText(outcome.missing);
    case "invalid":
      return outcome.message;
    case "ignored":
    case "no_pending":
      // Typed chatter that answers nothing gets no reply; a tap on a card whose question is gone does.
      return tapped ? replies.gone : undefined;
    default:
      return undefined;
  }
}

/**
 * `POST /webhooks/teams`: Bot Framework activities. Nothing is read, stored or answered before the token is
 * verified against the activity (teams-auth.ts); any failure of that is a 401 and nothing else happens (the
 * body is parsed first only to learn the channel and service URL the token must agree with).
 *
 * A tap on a card (`Action.Submit`) or typed text goes through the shared pipeline. The answer is recorded
 * and the run resumed before the response; every posted card is replaced with the outcome by the table's
 * stream consumer, as on every platform. Notices — not yours, already ended, still needed — are replies in
 * the conversation: Teams has no message only one person of a group sees for a bot's plain message. A tap on
 * a card whose question has ended also replaces that card, in case it still shows its controls.
 */
export function createTeamsWebhook(deps: TeamsWebhookDeps) {
  /** Notices are best effort: the outcome stands, and failing here would only make Teams send it again. */
  const bestEffort = (context: string, work: () => Promise<unknown>) =>
    work().then(
      () => undefined,
      (error: unknown) => deps.onError(error, context),
    );

  return async function teamsWebhook(event: APIGatewayProxyEventV2): Promise<Response> {
    const body = webhookBody(event);
    let activity: TeamsInboundActivity;
    try {
      activity = activitySchema.parse(JSON.parse(body.toString("utf8")));
    } catch {
      // Without an activity there is nothing a token could be checked against: refused like a bad token.
      deps.onRejected?.("NOT_AN_ACTIVITY");
      throw unauthorized();
    }
    try {
      await deps.verify(event.headers?.authorization, activity);
    } catch (error) {
      deps.onRejected?.(error instanceof Error ? error.message : "invalid token");
      throw unauthorized();
    }
    const parsed = activityToInbound(activity);
    if (!parsed) return ACK;
    let { inbound } = parsed;
    const { tap } = parsed;
    if (inbound.kind === "form") {
      const record = await deps.store.get(inbound.questionId, deps.now());
      if (record)
        inbound = { ...inbound, answers: formAnswers(record, activity.value as Record<string, unknown>) };
    }
    const outcome = await deps.handleInbound(inbound);
    const conversationId = activity.conversation?.id ?? "";
    const notice = noticeOf(outcome, tap !== undefined);
    const work: Promise<void>[] = [];
    if (notice !== undefined && activity.id !== undefined) {
      work.push(
        bestEffort("teams notice", () =>
          deps.api.reply(activity.serviceUrl, conversationId, activity.id ?? "", textActivity(notice)),
        ),
      );
    }
    if (outcome.kind === "ended" && tap !== undefined && activity.replyToId !== undefined) {
      const card = cardActivity(renderRetiredCard(outcome.record));
      work.push(
        bestEffort("teams card update", () =>
          deps.api.update(activity.serviceUrl, conversationId, activity.replyToId ?? "", card),
        ),
      );
    }
    await Promise.all(work);
    return ACK;
  };
}
