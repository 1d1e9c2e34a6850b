import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { InboundOutcome } from "../../app/handle-inbound.ts";
import { HttpError } from "../../http/http-errors.ts";
import { json } from "../../http/responses.ts";
import { verifiedWebhook } from "../../http/webhook-prelude.ts";
import type { PrivacyUnconfirmed } from "../chat-channel.ts";
import { type ChatWebhookDeps, EMPTY_ACK } from "../chat-webhook.ts";
import { controlAction, decodeControl, encodeControl } from "../control-codec.ts";
import { PlatformApiError } from "../platform-api-error.ts";
import { outcomeReplyText, replies, toldByCopies } from "../replies.ts";
import { pointAtQuestionThread } from "../thread-reply.ts";
import type { SlackApi } from "./slack-api.ts";
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
  escapeMrkdwn,
  fitsSection,
  MODAL_CALLBACK_ID,
  readModalOrigin,
  renderModal,
  renderOwnLink,
} from "./slack-render.ts";

export interface SlackWebhookDeps extends ChatWebhookDeps {
  api: SlackApi;
  /** Where a post made here (`/handraise question`) reports a conversation it could not confirm private. */
  privacyUnconfirmed?: PrivacyUnconfirmed;
}

type Response = APIGatewayProxyStructuredResultV2;

const ACK = EMPTY_ACK;

/** A slash-command reply only the person who ran it sees. */
const ephemeralReply = (text: string) => json(200, { response_type: "ephemeral", text: escapeMrkdwn(text) });

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, "INVALID_REQUEST", "The body is not Slack's JSON.");
  }
}

/**
 * `POST /webhooks/slack`: Events API, interactivity and slash commands on one URL. It runs behind the webhook
 * prelude (lib/http/webhook-prelude.ts with `slackPrelude`: body limit, signature, acknowledgement budget),
 * parses (a malformed body is a 400 through the error mapper), hands the inbound event to the shared
 * pipeline, then tells the person what happened — privately: ephemeral messages, modal errors, slash-command
 * replies, all sentences of lib/channels/replies.ts.
 *
 * Acknowledging within 3 s: the answer is recorded and the run resumed (SendTaskSuccess/Failure) before the
 * response, as the contract requires; the posted copies are edited afterwards by the table's stream
 * consumer. Every Slack API call made while handling the request — notices, `views.open`, a step redrawn, a
 * re-post, the re-edit of a stale copy — runs inside the prelude's `within`, so a slow Slack cannot make the
 * acknowledgement late: a call that runs out of time fails, is reported, and the response goes out. A copy
 * that still shows buttons after the question ended is told so on its next tap, and re-edited then.
 * Duplicates (a retried event, `X-Slack-Retry-Num`) are claimed by their dedupe key and acknowledged
 * without changing anything.
 *
 * A prompt of several questions is a stepper (lib/channels/slack/slack-render.ts): a tap that answers a step
 * (or Back, or an Other… modal opened on a step) comes back as a `step` outcome, and the tapped message is
 * redrawn at that step with `chat.update` — with the link of its answerer only if it was posted in their DM.
 *
 * "Answer in browser" on a copy in a shared conversation is a control: a tap by someone who may answer is
 * handed their own link in an ephemeral message (`chat.postEphemeral` to the tapper), anyone else is told the
 * question is not theirs; nothing is posted in the conversation.
 */
export function createSlackWebhook(deps: SlackWebhookDeps) {
  const channel = createSlackChannel(deps.api, deps.links, deps.privacyUnconfirmed);

  /** Notices are best effort: the outcome stands, and failing here would only make Slack retry in vain. */
  const bestEffort = (context: string, work: () => Promise<unknown>) =>
    work().then(
      () => undefined,
      (error: unknown) => deps.onError(error, context),
    );

  /** A message in `chatId` that only `userId` sees. */
  const postEphemeral = (
    context: string,
    chatId: string,
    userId: string,
    message: { text: string; blocks?: unknown[] },
    threadTs?: string,
  ) =>
    bestEffort(context, () =>
      deps.api.call("chat.postEphemeral", {
        channel: chatId,
        user: userId,
        ...message,
        ...(threadTs !== undefined && { thread_ts: threadTs }),
      }),
    );

  const ephemeral = (chatId: string, userId: string, text: string | undefined, threadTs?: string) =>
    text === undefined
      ? undefined
      : postEphemeral("slack notice", chatId, userId, { text: escapeMrkdwn(text) }, threadTs);

  return async function slackWebhook(event: APIGatewayProxyEventV2): Promise<Response> {
    const { body, within } = verifiedWebhook(event);
    return within(() => dispatch(body.toString("utf8")));
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
    // Someone else writing in the question's thread (the person it was asked for too), or anything that
    // answers nothing, is conversation: no notice. An answer shows itself: every copy is edited (one the run
    // no longer waits for is told so).
    const silent =
      outcome.kind === "not_owner" ||
      outcome.kind === "requester" ||
      outcome.kind === "ignored" ||
      toldByCopies(outcome);
    const text = silent ? undefined : outcomeReplyText(outcome, fitsSection);
    await ephemeral(inbound.chatId, envelope.event.user ?? "", text, inbound.replyToMessageId);
    return ACK;
  }

  // ── Interactivity: buttons, checkboxes + Submit ────────────────────────────────────────────────────

  async function onTap(payload: BlockActions): Promise<Response> {
    const [tapped] = payload.actions;
    const control = tapped && decodeControl(tapped.action_id);
    const chatId = payload.channel?.id ?? payload.container?.channel_id;
    const actor = interactionActor(payload);
    // Not one of Handraise's controls (the answer page's link), or a checkbox tick: the ticks live in the
    // message until Done, which reads them from the checkboxes' state.
    if (!tapped || !control || control.kind === "choose" || !chatId || !actor) return ACK;
    const ticked =
      control.kind === "done"
        ? tickedOptions(payload.state, encodeControl({ ...control, kind: "choose", optionIndex: 0 }))
        : [];
    const messageTs = payload.message?.ts ?? payload.container?.message_ts;
    const outcome = await deps.handleInbound({
      platform: "slack",
      actor,
      chatId,
      dedupeKey: tapped.action_ts && `act:${payload.user.id}:${tapped.action_ts}:${tapped.action_id}`,
      kind: "control",
      questionId: control.questionId,
      action: controlAction(control, ticked),
    });
    const threadTs = payload.message?.thread_ts ?? payload.container?.thread_ts;
    // resolved: the table's stream consumer edits every copy, which says so; Done with nothing ticked: ask;
    // "Answer in browser" by someone who may answer: their own link, which only they see.
    const text =
      toldByCopies(outcome) || outcome.kind === "private_link"
        ? undefined
        : outcome.kind === "incomplete"
          ? replies.chooseAtLeastOne
          : outcomeReplyText(outcome, fitsSection);
    const work: unknown[] = [ephemeral(chatId, payload.user.id, text, threadTs)];
    if (outcome.kind === "private_link") {
      const message = renderOwnLink(outcome.url);
      work.push(postEphemeral("slack own link", chatId, payload.user.id, message, threadTs));
    }
    if (outcome.kind === "ended") {
      // This copy still shows buttons after the question ended: its edit was missed; make it now.
      const delivery = outcome.record.deliveries.find(
        (d) => d.channel === "slack" && d.chatId === chatId && d.messageId === messageTs,
      );
      if (delivery && messageTs !== undefined) {
        work.push(bestEffort("slack retire", () => channel.retire(outcome.record, delivery)));
      }
    }
    if (outcome.kind === "step" && messageTs !== undefined) {
      const { record, questionIndex } = outcome;
      work.push(
        bestEffort("slack step", () =>
          channel.showStep(record, { chatId, messageId: messageTs }, questionIndex),
        ),
      );
    }
    if (outcome.kind === "needs_text" && payload.trigger_id !== undefined) {
      const { record, questionIndex } = outcome;
      // Other… on a step of the stepper: its answer moves the stepper on, in this message.
      const onStep = control.kind === "other" && record.questions.length > 1 && messageTs !== undefined;
      const view =
        control.kind === "form"
          ? renderModal(record, { c: chatId })
          : renderModal(
              record,
              { c: chatId, ...(onStep && { s: questionIndex, m: messageTs }) },
              questionIndex,
            );
      const triggerId = payload.trigger_id;
      work.push(
        bestEffort("slack views.open", () => deps.api.call("views.open", { trigger_id: triggerId, view })),
      );
    }
    // duplicate: handled the first time.
    await Promise.all(work);
    return ACK;
  }

  // ── Interactivity: modal submissions (Other…, Answer in a form) ───────────────────────────────────

  async function onSubmit(payload: ViewSubmission): Promise<Response> {
    const origin = readModalOrigin(payload.view.private_metadata);
    const actor = interactionActor(payload);
    if (payload.view.callback_id !== MODAL_CALLBACK_ID || !origin || !actor) return ACK;
    const values = payload.view.state.values;
    const errors = (byBlock: Record<string, string>) =>
      json(200, { response_action: "errors", errors: byBlock });
    const form = readForm(payload.view.state);
    if (Object.keys(form.errors).length > 0) return errors(form.errors);
    const outcome = await deps.handleInbound({
      platform: "slack",
      actor,
      chatId: origin.c,
      dedupeKey: payload.trigger_id && `view:${payload.view.id}:${payload.trigger_id}`,
      kind: "form",
      questionId: origin.q,
      answers: form.answers,
      step: origin.s,
    });
    if (outcome.kind === "incomplete") {
      const missing = outcome.missing.length > 0 ? outcome.missing : outcome.record.questions;
      return errors(
        Object.fromEntries(
          missing.map((q) => [values[`c|${q.id}`] ? `c|${q.id}` : `t|${q.id}`, replies.chooseOrType]),
        ),
      );
    }
    if (outcome.kind === "step" && origin.m !== undefined) {
      const message = { chatId: origin.c, messageId: origin.m };
      await bestEffort("slack step", () => channel.showStep(outcome.record, message, outcome.questionIndex));
    }
    // Outcomes that leave the modal open show on its first input; resolved, a step or a duplicate close it
    // (one the run no longer waits for is told so beside the question, where a tap's notice would be).
    if (outcome.kind === "resolved") {
      await ephemeral(
        origin.c,
        payload.user.id,
        toldByCopies(outcome) ? undefined : replies.recordedNotWaiting,
      );
      return ACK;
    }
    const text = outcomeReplyText(outcome, fitsSection);
    const [first] = Object.keys(values);
    return text === undefined || first === undefined ? ACK : errors({ [first]: text });
  }

  // ── Slash commands ─────────────────────────────────────────────────────────────────────────────────

  async function onCommand(command: SlashCommand): Promise<Response> {
    const which = commandOf(command);
    if (!which) {
      return ephemeralReply(replies.handraiseCommandHelp);
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
      return ephemeralReply(replies.couldNotPostHere);
    }
    // shown: the question is posted in the channel; duplicate: answered the first time.
    const text = outcomeReplyText(outcome, fitsSection);
    return text === undefined ? ACK : ephemeralReply(text);
  }
}
