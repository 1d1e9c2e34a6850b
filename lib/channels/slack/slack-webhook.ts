import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { HandleInbound, InboundOutcome } from "../../app/handle-inbound.ts";
import { HttpError } from "../../http/http-errors.ts";
import { webhookBody } from "../../http/middlewares.ts";
import { json } from "../../http/responses.ts";
import type { SecretValue } from "../../secrets/secrets.ts";
import type { QuestionStore } from "../../store/question-store.ts";
import { PlatformApiError } from "../platform-api-error.ts";
import { endedText } from "../replies.ts";
import { pointAtQuestionThread } from "../thread-reply.ts";
import { type SlackApi, withSlackDeadline } from "./slack-api.ts";
import { createSlackChannel } from "./slack-channel.ts";
import {
  type BlockActions,
  blockActionsSchema,
  commandOf,
  eventCallbackSchema,
  interactionActor,
  messageToInbound,
  readForm,
  type SlashCommand,
  slackActor,
  slashCommandSchema,
  tickedOptions,
  typedSchema,
  urlVerificationSchema,
  type ViewSubmission,
  viewSubmissionSchema,
} from "./slack-inbound.ts";
import {
  decodeActionId,
  escapeMrkdwn,
  MODAL_CALLBACK_ID,
  renderModal,
  SLASH_COMMAND,
  tapToAction,
} from "./slack-render.ts";
import { verifySlackSignature } from "./slack-signature.ts";

export interface SlackWebhookDeps {
  /** `SLACK_SIGNING_SECRET`: every request's signature is checked with it. */
  signingSecret: SecretValue;
  api: SlackApi;
  store: QuestionStore;
  handleInbound: HandleInbound;
  now: () => number;
  /** Reports what does not change the outcome: a notice, modal or edit Slack did not take. */
  onError: (error: unknown, context: string) => void;
  /**
   * Milliseconds from the start of handling by which every Slack API call of this request must be done
   * (default 2000): Slack wants the acknowledgement within 3 s, cold start and network included.
   */
  ackBudgetMs?: number;
}

type Response = APIGatewayProxyStructuredResultV2;

const ACK: Response = { statusCode: 200, headers: { "cache-control": "no-store" }, body: "" };
const NOT_YOURS = "This question is not yours to answer.";
const GONE = "This question no longer exists.";

/** A slash-command reply only the person who ran it sees. */
const ephemeralReply = (text: string) => json(200, { response_type: "ephemeral", text: escapeMrkdwn(text) });

/** What any kind of request tells its sender about these outcomes (the rest depends on the kind). */
function toldAbout(outcome: InboundOutcome): string | undefined {
  if (outcome.kind === "not_owner") return NOT_YOURS;
  if (outcome.kind === "ended") return endedText(outcome.record);
  if (outcome.kind === "invalid") return outcome.message;
  return undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, "INVALID_REQUEST", "The body is not Slack's JSON.");
  }
}

/**
 * `POST /webhooks/slack`: Events API, interactivity and slash commands on one URL. Verify the signature on
 * the raw body (timestamp within ±300 s, timing-safe), parse (a malformed body is a 400 through the error
 * mapper), hand the inbound event to the shared pipeline, then tell the person what happened — privately:
 * ephemeral messages, modal errors, slash-command replies.
 *
 * Acknowledging within 3 s: the answer is recorded and the run resumed (SendTaskSuccess/Failure) before the
 * response, as the contract requires; the posted copies are edited afterwards by the table's stream
 * consumer. Every Slack API call made while handling the request — notices, `views.open`, a re-post, the
 * re-edit of a stale copy — runs under a deadline of `ackBudgetMs` from the start (see
 * `withSlackDeadline`), so a slow Slack cannot make the acknowledgement late: a call that runs out of time
 * fails, is reported, and the response goes out. A copy that still shows buttons after the question ended
 * is told so on its next tap, and re-edited then.
 * Duplicates (a retried event, `X-Slack-Retry-Num`) are claimed by their dedupe key and acknowledged
 * without changing anything.
 */
export function createSlackWebhook(deps: SlackWebhookDeps) {
  const channel = createSlackChannel(deps.api);
  const budgetMs = deps.ackBudgetMs ?? 2_000;

  /** Notices are best effort: the outcome stands, and failing here would only make Slack retry in vain. */
  const bestEffort = (context: string, work: () => Promise<unknown>) =>
    work().then(
      () => undefined,
      (error: unknown) => deps.onError(error, context),
    );

  const ephemeral = (chatId: string, userId: string, text: string | undefined, threadTs?: string) =>
    text === undefined
      ? undefined
      : bestEffort("slack notice", () =>
          deps.api.call("chat.postEphemeral", {
            channel: chatId,
            user: userId,
            text: escapeMrkdwn(text),
            ...(threadTs !== undefined && { thread_ts: threadTs }),
          }),
        );

  return async function slackWebhook(event: APIGatewayProxyEventV2): Promise<Response> {
    const startedMs = deps.now();
    const body = webhookBody(event);
    const headers = event.headers ?? {};
    const signed = {
      timestamp: headers["x-slack-request-timestamp"],
      signature: headers["x-slack-signature"],
      body,
    };
    if (!verifySlackSignature(await deps.signingSecret(), signed, startedMs)) {
      throw new HttpError(401, "UNAUTHORIZED", "Missing, stale or wrong Slack signature.");
    }
    return withSlackDeadline(startedMs + budgetMs, () => dispatch(body.toString("utf8")));
  };

  async function dispatch(text: string): Promise<Response> {
    if (text.trimStart().startsWith("{")) return onEvent(parseJson(text));
    const form = new URLSearchParams(text);
    if (form.get("ssl_check") === "1") return ACK;
    const payload = form.get("payload");
    if (payload !== null) {
      const interaction = parseJson(payload);
      const { type } = typedSchema.parse(interaction);
      if (type === "block_actions") return onTap(blockActionsSchema.parse(interaction));
      if (type === "view_submission") return onSubmit(viewSubmissionSchema.parse(interaction));
      return ACK; // view_closed, shortcuts, …: nothing of Handraise's
    }
    return onCommand(slashCommandSchema.parse(Object.fromEntries(form)));
  }

  // ── Events API: typed replies ──────────────────────────────────────────────────────────────────────

  async function onEvent(body: unknown): Promise<Response> {
    const { type } = typedSchema.parse(body);
    if (type === "url_verification")
      return json(200, { challenge: urlVerificationSchema.parse(body).challenge });
    if (type !== "event_callback") return ACK; // app_rate_limited, …
    const envelope = eventCallbackSchema.parse(body);
    const message = messageToInbound(envelope);
    if (!message) return ACK;
    const inbound = await pointAtQuestionThread(deps.store, deps.now(), message);
    const outcome = await deps.handleInbound(inbound);
    // Someone else writing in the question's thread is conversation, not an answer: no notice for them.
    const text =
      outcome.kind === "incomplete"
        ? `Still needed: ${outcome.missing.map((q) => `${q.header} [${q.id}]`).join(", ")}.`
        : outcome.kind === "not_owner"
          ? undefined
          : toldAbout(outcome);
    await ephemeral(inbound.chatId, envelope.event.user ?? "", text, inbound.replyToMessageId);
    return ACK;
  }

  // ── Interactivity: buttons, checkboxes + Submit ────────────────────────────────────────────────────

  async function onTap(payload: BlockActions): Promise<Response> {
    const [tapped] = payload.actions;
    const decoded = tapped && decodeActionId(tapped.action_id);
    const chatId = payload.channel?.id ?? payload.container?.channel_id;
    const actor = interactionActor(payload);
    const action = decoded && tapToAction(decoded, tickedOptions(payload.state, decoded.sub));
    // Not one of Handraise's controls, or a checkbox tick (the selection lives in the message until Submit).
    if (!tapped?.value || !decoded || !action || !chatId || !actor) return ACK;
    const messageTs = payload.message?.ts ?? payload.container?.message_ts;
    const outcome = await deps.handleInbound({
      platform: "slack",
      actor,
      chatId,
      dedupeKey: tapped.action_ts && `act:${payload.user.id}:${tapped.action_ts}:${tapped.action_id}`,
      kind: "control",
      questionId: tapped.value,
      action,
    });
    const text =
      outcome.kind === "ignored" || outcome.kind === "no_pending"
        ? GONE
        : outcome.kind === "incomplete"
          ? "Tick at least one option, then Submit."
          : toldAbout(outcome);
    const work: unknown[] = [
      ephemeral(chatId, payload.user.id, text, payload.message?.thread_ts ?? payload.container?.thread_ts),
    ];
    if (outcome.kind === "ended") {
      // This copy still shows buttons after the question ended: its edit was missed; make it now.
      const delivery = outcome.record.deliveries.find(
        (d) => d.channel === "slack" && d.chatId === chatId && d.messageId === messageTs,
      );
      if (delivery && messageTs !== undefined) {
        work.push(bestEffort("slack retire", () => channel.retire(outcome.record, delivery)));
      }
    }
    if (outcome.kind === "needs_text" && payload.trigger_id !== undefined) {
      const view = renderModal(
        outcome.record,
        chatId,
        decoded.kind === "f" ? undefined : outcome.questionIndex,
      );
      const triggerId = payload.trigger_id;
      work.push(
        bestEffort("slack views.open", () => deps.api.call("views.open", { trigger_id: triggerId, view })),
      );
    }
    // duplicate: handled the first time; resolved: the table's stream consumer edits every copy.
    await Promise.all(work);
    return ACK;
  }

  // ── Interactivity: modal submissions (Other…, Answer in a form) ───────────────────────────────────

  async function onSubmit(payload: ViewSubmission): Promise<Response> {
    const metadata = parseMetadata(payload.view.private_metadata);
    const actor = interactionActor(payload);
    if (payload.view.callback_id !== MODAL_CALLBACK_ID || !metadata || !actor) return ACK;
    const values = payload.view.state.values;
    const errors = (byBlock: Record<string, string>) =>
      json(200, { response_action: "errors", errors: byBlock });
    const form = readForm(payload.view.state);
    if (Object.keys(form.errors).length > 0) return errors(form.errors);
    const outcome = await deps.handleInbound({
      platform: "slack",
      actor,
      chatId: metadata.c,
      dedupeKey: payload.trigger_id && `view:${payload.view.id}:${payload.trigger_id}`,
      kind: "form",
      questionId: metadata.q,
      answers: form.answers,
    });
    if (outcome.kind === "incomplete") {
      const missing = outcome.missing.length > 0 ? outcome.missing : outcome.record.questions;
      return errors(
        Object.fromEntries(
          missing.map((q) => [
            values[`c|${q.id}`] ? `c|${q.id}` : `t|${q.id}`,
            "Choose an option or type your own answer.",
          ]),
        ),
      );
    }
    // Other outcomes that leave the modal open show on its first input; resolved or duplicate close it.
    const text = outcome.kind === "ignored" || outcome.kind === "no_pending" ? GONE : toldAbout(outcome);
    const [first] = Object.keys(values);
    return text === undefined || first === undefined ? ACK : errors({ [first]: text });
  }

  // ── Slash commands ─────────────────────────────────────────────────────────────────────────────────

  async function onCommand(command: SlashCommand): Promise<Response> {
    const which = commandOf(command);
    if (!which) {
      return ephemeralReply(
        `${SLASH_COMMAND} cancel — cancel your waiting question here. ${SLASH_COMMAND} question — post it again here.`,
      );
    }
    let outcome: InboundOutcome;
    try {
      outcome = await deps.handleInbound({
        platform: "slack",
        actor: slackActor(command.team_id, command.user_id),
        chatId: command.channel_id,
        dedupeKey: command.trigger_id && `cmd:${command.trigger_id}`,
        kind: "command",
        command: which,
      });
    } catch (error) {
      // `/handraise question` where the app may not post (not invited to the channel, …): say so.
      if (!(error instanceof PlatformApiError)) throw error;
      deps.onError(error, "slack /handraise question");
      return ephemeralReply(`Slack did not let Handraise post here (${error.message}).`);
    }
    // shown: the question is posted in the channel; duplicate: answered the first time.
    const text =
      outcome.kind === "resolved"
        ? "Cancelled."
        : outcome.kind === "no_pending" || outcome.kind === "ignored"
          ? "No question is waiting for you here."
          : toldAbout(outcome);
    return text === undefined ? ACK : ephemeralReply(text);
  }
}

/** The modal's `{q: question id, c: channel}` (ours: set when it was opened); undefined if it is not. */
function parseMetadata(raw: string | undefined): { q: string; c: string } | undefined {
  try {
    const { q, c } = JSON.parse(raw ?? "") as Record<string, unknown>;
    return typeof q === "string" && typeof c === "string" ? { q, c } : undefined;
  } catch {
    return undefined;
  }
}
