import { createHash } from "node:crypto";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { HandleInbound, InboundOutcome } from "../../app/handle-inbound.ts";
import { HttpError } from "../../http/http-errors.ts";
import { MAX_BODY_BYTES, rawBody } from "../../http/middlewares.ts";
import { json } from "../../http/responses.ts";
import type { QuestionRecord } from "../../questions/question-record.ts";
import type { SecretValue } from "../../secrets/secrets.ts";
import type { QuestionStore } from "../../store/question-store.ts";
import type { ControlAction } from "../inbound.ts";
import { PlatformApiError } from "../platform-api-error.ts";
import { remembered } from "../remembered.ts";
import { endedText } from "../replies.ts";
import { pointAtQuestionThread } from "../thread-reply.ts";
import type { MattermostApi, MattermostPost } from "./mattermost-api.ts";
import {
  type ActionTarget,
  type DialogKind,
  escapeMarkdown,
  otherElementName,
  renderDialog,
  retiredPost,
} from "./mattermost-render.ts";
import {
  findMention,
  type MattermostRequest,
  postText,
  readMattermostRequest,
  withoutLeadingMention,
} from "./mattermost-request.ts";
import { parseTokenList } from "./mattermost-signature.ts";

export interface MattermostWebhookDeps {
  /** MATTERMOST_ACTION_SECRET: verifies taps and dialog submissions, and signs the dialogs opened here. */
  actionSecret: SecretValue;
  /** MATTERMOST_COMMAND_TOKEN: the slash command's token, then any outgoing webhook's (comma-separated). */
  commandTokens: SecretValue;
  /** The webhook's own URL: dialogs opened here post back to it. */
  webhookUrl: string;
  /** With the bot token: confirms who sent a request, and where, before anything is handled. */
  api: MattermostApi;
  /** Finds the question whose thread a reply is in when it was posted into an existing thread. */
  store: QuestionStore;
  handleInbound: HandleInbound;
  /**
   * Reports platform failures that do not change the outcome (a dialog that could not be opened) and
   * requests refused because Mattermost did not confirm their sender.
   */
  onError: (error: unknown, context: string) => void;
  /** Counts a request refused because Mattermost did not confirm it (its reason code, never its body). */
  onRejected?: (reason: "UNCONFIRMED") => void;
  /** Epoch ms (default: the clock), for the age of a message's post. */
  now?: () => number;
}

const NOT_YOURS = "This question is not yours to answer.";
const GONE = "This question no longer exists.";
const UNCONFIRMED = "Handraise could not confirm who you are in this channel, so nothing changed. Try again.";

/**
 * How old a message's post may be. Mattermost calls an outgoing webhook as the post is created, so an older
 * post is a replay of someone's real message, not a delivery (the dedupe claims of delivered posts expire).
 */
const MAX_POST_AGE_MS = 10 * 60_000;

const ok = (body: Record<string, unknown> = {}) => json(200, body);
/** Shown only to the user who tapped (Mattermost posts it as an ephemeral message). */
const ephemeral = (text: string) => ok({ ephemeral_text: escapeMarkdown(text) });
/** The slash command's private reply. */
const commandReply = (text: string) => ok({ response_type: "ephemeral", text: escapeMarkdown(text) });
/** The outgoing webhook's reply: a comment under the message that triggered it. */
const comment = (text: string) => ok({ text: escapeMarkdown(text), response_type: "comment" });

/** trigger_id is unique per tap or command, but it is a short-lived credential: store only its digest. */
const digest = (value: string) => createHash("sha256").update(value).digest("hex").slice(0, 40);

/** Who sent it and where: the part every inbound event of this platform shares. */
const from = (request: { userId: string; channelId: string }) => ({
  platform: "mattermost" as const,
  actor: `mattermost:${request.userId}`,
  chatId: request.channelId,
});

const stillNeeded = (outcome: Extract<InboundOutcome, { kind: "incomplete" }>) =>
  `Still needed: ${outcome.missing.map((q) => `${q.header} [${q.id}]`).join(", ")}.`;

/**
 * `POST /webhooks/mattermost`: button taps, dialog submissions, `/handraise cancel|question` and (with an
 * outgoing webhook) typed replies — verified (signed contexts / tokens, 401 otherwise), turned into the one
 * inbound type, handled, and answered in Mattermost's response formats. Mattermost does not retry, and a
 * non-200 shows the user an error, so everything verified is answered 200 unless Handraise itself failed.
 *
 * Who acted, and where, is believed only as far as Mattermost's API confirms it. Mattermost signs nothing it
 * sends: a command's or outgoing webhook's token is one secret shared by every request, and the `user_id`
 * and `channel_id` beside a signed button context are not covered by its signature. So, with the bot token
 * and before anything is handled: a message's post is read back (its author, channel, thread and text are
 * the post's, never the body's); the sender of a command, tap or dialog must be a member of the channel; a
 * tapped post must be in that channel. (Membership is the most the API can confirm for those: nothing proves
 * which member sent a command, so a leaked command token still lets its holder act as a member of a channel
 * the bot can read — rotate it. A tap or dialog also needs a context only Mattermost and Handraise hold.)
 * Anything the API does not confirm — an error, a timeout, a mismatch — changes nothing (fail closed). The
 * body itself passed verification, so the refusal is a 200 in the request's own format (an ephemeral text,
 * a dialog error) that tells a real user why nothing happened, rather than a 401 Mattermost would show as a
 * bare failure; a message gets no reply, since outgoing webhooks fire for all chatter in a channel and a
 * reply would be posted publicly.
 */
export function createMattermostWebhook(deps: MattermostWebhookDeps) {
  const now = deps.now ?? Date.now;
  /** The bot's username, read once per process and only for a message that may mention it. */
  const username = remembered(() => deps.api.getMe().then((me) => me.username));

  /**
   * An API read whose failure refuses the request (unless `refuses` is false): reported, and undefined.
   */
  async function confirm<T>(context: string, read: () => Promise<T>, refuses = true): Promise<T | undefined> {
    try {
      return await read();
    } catch (error) {
      if (!(error instanceof PlatformApiError)) throw error;
      deps.onError(error, context);
      if (refuses) deps.onRejected?.("UNCONFIRMED");
      return undefined;
    }
  }

  /** Reports a request refused because the API contradicts it (a forged body, or a bug). */
  function refused(kind: string, reason: string): void {
    deps.onError(new Error(`refused: ${reason}`), `confirming a Mattermost ${kind}`);
    deps.onRejected?.("UNCONFIRMED");
  }

  /** Whether the API lists the sender as a member of the channel the request names. */
  async function isMember(request: { userId: string; channelId: string }, kind: string): Promise<boolean> {
    const member = await confirm(`confirming the sender of a Mattermost ${kind}`, () =>
      deps.api.getChannelMember(request.channelId, request.userId),
    );
    if (member === undefined) return false;
    if (member.user_id === request.userId && member.channel_id === request.channelId) return true;
    refused(kind, "the membership the API returned is another user's or channel's");
    return false;
  }

  return async function mattermostWebhook(
    event: APIGatewayProxyEventV2,
  ): Promise<APIGatewayProxyStructuredResultV2> {
    const raw = rawBody(event);
    if (raw.length > MAX_BODY_BYTES) {
      throw new HttpError(413, "PAYLOAD_TOO_LARGE", `The body is larger than ${MAX_BODY_BYTES} bytes.`);
    }
    const actionSecret = await deps.actionSecret();
    const tokens = parseTokenList(await deps.commandTokens());
    const request = readMattermostRequest(event.headers ?? {}, raw, { actionSecret, tokens });
    switch (request.kind) {
      case "action":
        return onAction(request, { url: deps.webhookUrl, secret: actionSecret });
      case "dialog":
        return onDialog(request);
      case "command":
        return onCommand(request);
      case "message":
        return onMessage(request);
    }
  };

  async function onAction(request: Extract<MattermostRequest, { kind: "action" }>, target: ActionTarget) {
    const [member, post] = await Promise.all([
      isMember(request, "tap"),
      confirm("reading a tapped Mattermost post", () => deps.api.getPost(request.postId)),
    ]);
    if (!member || !post) return ephemeral(UNCONFIRMED);
    if (post.id !== request.postId || post.channel_id !== request.channelId) {
      refused("tap", "the tapped post is not in the channel the request names");
      return ephemeral(UNCONFIRMED);
    }
    const { context } = request;
    const action: ControlAction = /^\d$/.test(context.option)
      ? { type: "option", questionIndex: context.sub, optionIndex: Number(context.option) }
      : context.option === "skip"
        ? { type: "skip" }
        : // Other…, Choose… and Answer… all open a dialog once the tapper is known to be the owner.
          { type: "other", questionIndex: context.sub };
    const outcome = await deps.handleInbound({
      ...from(request),
      dedupeKey: request.triggerId === undefined ? undefined : `action:${digest(request.triggerId)}`,
      kind: "control",
      questionId: context.questionId,
      action,
    });
    switch (outcome.kind) {
      case "duplicate":
        return ok(); // this tap was answered the first time
      case "ignored":
      case "no_pending":
        return ephemeral(GONE);
      case "not_owner":
        return ephemeral(NOT_YOURS);
      case "ended":
        return ok({
          update: retiredPost(outcome.record),
          ephemeral_text: escapeMarkdown(endedText(outcome.record)),
        });
      case "resolved":
        return ok({
          update: retiredPost(outcome.record),
          ephemeral_text: outcome.record.status === "answered" ? "Got it." : "Skipped.",
        });
      case "incomplete":
        return ephemeral(stillNeeded(outcome));
      case "invalid":
        return ephemeral(outcome.message);
      case "needs_text":
        return openDialog(
          target,
          outcome.record,
          context.option as DialogKind,
          outcome.questionIndex,
          request.triggerId,
        );
      default:
        return ok();
    }
  }

  async function openDialog(
    target: ActionTarget,
    record: QuestionRecord,
    kind: DialogKind,
    sub: number,
    triggerId: string | undefined,
  ) {
    const fallback = "The form could not be opened. Reply in the question's thread instead.";
    if (triggerId === undefined) return ephemeral(fallback);
    try {
      await deps.api.openDialog({
        trigger_id: triggerId,
        url: target.url,
        dialog: renderDialog(record, kind, sub, target),
      });
      return ok();
    } catch (error) {
      if (!(error instanceof PlatformApiError)) throw error;
      deps.onError(error, "opening a Mattermost dialog");
      return ephemeral(fallback);
    }
  }

  async function onDialog(request: Extract<MattermostRequest, { kind: "dialog" }>) {
    if (request.cancelled) return ok();
    if (!(await isMember(request, "dialog submission"))) return ok({ error: UNCONFIRMED });
    const outcome = await deps.handleInbound({
      ...from(request),
      kind: "form",
      questionId: request.context.questionId,
      answers: request.answers,
    });
    // `{}` closes the dialog; `error` / `errors` keep it open and show why.
    switch (outcome.kind) {
      case "resolved":
      case "duplicate":
        return ok();
      case "ignored":
      case "no_pending":
        return ok({ error: GONE });
      case "not_owner":
        return ok({ error: NOT_YOURS });
      case "ended":
        return ok({ error: endedText(outcome.record) });
      case "incomplete": {
        const errors = Object.fromEntries(
          outcome.missing.flatMap((q) =>
            [q.id, otherElementName(q.id)].map((name) => [name, "Still needed."]),
          ),
        );
        return ok({ error: stillNeeded(outcome), errors });
      }
      case "invalid":
        return ok({ error: outcome.message });
      default:
        return ok();
    }
  }

  async function onCommand(request: Extract<MattermostRequest, { kind: "command" }>) {
    const word = request.text.trim().toLowerCase();
    const command =
      word === "cancel" ? "cancel" : word === "question" || word === "" ? "question" : undefined;
    if (command === undefined) {
      return commandReply("Usage: /handraise cancel | /handraise question");
    }
    if (!(await isMember(request, "command"))) return commandReply(UNCONFIRMED);
    const outcome = await deps.handleInbound({
      ...from(request),
      dedupeKey: request.triggerId === undefined ? undefined : `command:${digest(request.triggerId)}`,
      kind: "command",
      command,
    });
    switch (outcome.kind) {
      case "resolved":
        return commandReply("Cancelled.");
      case "no_pending":
      case "ignored":
        return commandReply("No question is waiting for you here.");
      case "not_owner":
        return commandReply(NOT_YOURS);
      case "ended":
        return commandReply(endedText(outcome.record));
      case "shown":
        return commandReply("Posted the question again.");
      default:
        return ok();
    }
  }

  async function onMessage(request: Extract<MattermostRequest, { kind: "message" }>) {
    const post = await confirm("reading a Mattermost post", () => deps.api.getPost(request.postId));
    if (!post) return ok();
    const problem = postProblem(post, request, now());
    if (problem !== undefined) {
      refused("message", problem);
      return ok();
    }
    const message = post.message ?? "";
    const text = postText(message, request.triggerWord);
    if (text.trim() === "") return ok();
    // Outgoing webhooks fire in channels only: text counts in the question's thread or when it mentions
    // the bot. A username that cannot be read means no mention is recognised (fail closed).
    const name = message.includes("@")
      ? await confirm("reading the Mattermost bot's username", username, false)
      : undefined;
    const mentioned = name !== undefined && findMention(message, name) !== undefined;
    const inbound = await pointAtQuestionThread(deps.store, now(), {
      ...from(request),
      dedupeKey: `post:${post.id}`,
      kind: "text",
      text: name !== undefined && mentioned ? withoutLeadingMention(text, name) : text,
      replyToMessageId: post.root_id || undefined,
      addressed: mentioned,
    });
    const outcome = await deps.handleInbound(inbound);
    switch (outcome.kind) {
      case "ended":
        return comment(endedText(outcome.record));
      case "incomplete":
        return comment(stillNeeded(outcome));
      case "invalid":
        return comment(outcome.message);
      // Someone else's message in the thread gets no public reply; chatter is not for us.
      default:
        return ok();
    }
  }
}

/** Why a fetched post is not the message the webhook body describes; undefined when it is. */
function postProblem(
  post: MattermostPost,
  request: { userId: string; channelId: string; postId: string },
  nowMs: number,
): string | undefined {
  if (post.id !== request.postId) return "the API returned another post";
  if (post.user_id !== request.userId) return "the post is another user's";
  if (post.channel_id !== request.channelId) return "the post is in another channel";
  if ((post.type ?? "") !== "") return "the post is a system message";
  if (typeof post.create_at !== "number" || Math.abs(nowMs - post.create_at) > MAX_POST_AGE_MS) {
    return "the post is not recent";
  }
  return undefined;
}
