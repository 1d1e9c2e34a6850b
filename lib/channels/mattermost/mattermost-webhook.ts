import { createHash } from "node:crypto";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { HandleInbound, InboundOutcome } from "../../app/handle-inbound.ts";
import { HttpError } from "../../http/http-errors.ts";
import { MAX_BODY_BYTES, rawBody } from "../../http/middlewares.ts";
import { json } from "../../http/responses.ts";
import type { SecretValue } from "../../secrets/secrets.ts";
import type { QuestionRecord } from "../../store/question-record.ts";
import type { ControlAction } from "../inbound.ts";
import { endedText } from "../outcome-text.ts";
import { PlatformApiError } from "../platform-api-error.ts";
import type { MattermostApi } from "./mattermost-api.ts";
import {
  type ActionTarget,
  type DialogKind,
  escapeMarkdown,
  otherElementName,
  renderDialog,
  retiredPost,
} from "./mattermost-render.ts";
import { type MattermostRequest, readMattermostRequest } from "./mattermost-request.ts";
import { parseTokenList } from "./mattermost-signature.ts";

export interface MattermostWebhookDeps {
  /** MATTERMOST_ACTION_SECRET: verifies taps and dialog submissions, and signs the dialogs opened here. */
  actionSecret: SecretValue;
  /** MATTERMOST_COMMAND_TOKEN: the slash command's token, then any outgoing webhook's (comma-separated). */
  commandTokens: SecretValue;
  /** The webhook's own URL: dialogs opened here post back to it. */
  webhookUrl: string;
  api: MattermostApi;
  handleInbound: HandleInbound;
  /** Reports platform failures that do not change the outcome (a dialog that could not be opened). */
  onError: (error: unknown, context: string) => void;
}

const NOT_YOURS = "This question is not yours to answer.";
const GONE = "This question no longer exists.";

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
 */
export function createMattermostWebhook(deps: MattermostWebhookDeps) {
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
    if (request.text.trim() === "") return ok();
    let rootId = request.rootId;
    if (rootId === undefined) {
      // Outgoing webhooks do not say which thread a message is in; the post itself does.
      try {
        const post = await deps.api.getPost(request.postId);
        if (post.channel_id !== request.channelId || (post.user_id && post.user_id !== request.userId)) {
          return ok(); // not the message this payload describes
        }
        rootId = post.root_id || undefined;
      } catch (error) {
        if (!(error instanceof PlatformApiError)) throw error;
        deps.onError(error, "reading a Mattermost post's thread");
      }
    }
    const outcome = await deps.handleInbound({
      ...from(request),
      dedupeKey: `post:${request.postId}`,
      kind: "text",
      text: request.text,
      replyToMessageId: rootId,
    });
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
