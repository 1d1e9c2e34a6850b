import { createHash } from "node:crypto";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { HttpError } from "../../http/http-errors.ts";
import { json } from "../../http/responses.ts";
import { verifiedWebhook, type WebhookRequest } from "../../http/webhook-prelude.ts";
import type { QuestionRecord } from "../../questions/question-record.ts";
import type { SecretValue } from "../../secrets/secrets.ts";
import { browserEntry, copyIn } from "../answer-in-browser.ts";
import type { ChatWebhookDeps } from "../chat-webhook.ts";
import { type Control, controlAction } from "../control-codec.ts";
import type { ControlAction } from "../inbound.ts";
import { PlatformApiError } from "../platform-api-error.ts";
import { remembered } from "../remembered.ts";
import { outcomeReplyText, replies, toldByCopies } from "../replies.ts";
import { pointAtQuestionThread } from "../thread-reply.ts";
import type { MattermostApi, MattermostPost } from "./mattermost-api.ts";
import {
  type ActionTarget,
  answerLinkMarkdown,
  escapeMarkdown,
  fitsPost,
  renderDialog,
  renderPost,
  retiredPost,
} from "./mattermost-render.ts";
import {
  findMention,
  MATTERMOST_REFUSAL,
  type MattermostRequest,
  postText,
  readMattermostRequest,
  type Verification,
  withoutLeadingMention,
} from "./mattermost-request.ts";
import { type DialogState, dialogStateProblem, parseTokenList } from "./mattermost-signature.ts";

export interface MattermostWebhookDeps extends ChatWebhookDeps {
  /** MATTERMOST_ACTION_SECRET: verifies taps and dialog submissions, and signs the buttons and dialogs drawn here. */
  actionSecret: SecretValue;
  /** MATTERMOST_COMMAND_TOKEN: the slash command's tokens (comma-separated); they prove commands only. */
  commandTokens: SecretValue;
  /**
   * MATTERMOST_OUTGOING_TOKEN: the outgoing webhooks' tokens (comma-separated), which prove messages only;
   * undefined when none is configured (then no typed message is read).
   */
  outgoingTokens: () => Promise<string | undefined>;
  /** The webhook's own URL: buttons and dialogs drawn here post back to it. */
  webhookUrl: string;
  /** With the bot token: confirms who sent a request, and where, before anything is handled. */
  api: MattermostApi;
  /** Counts a request refused because Mattermost did not confirm it (its reason code, never its body). */
  onRejected?: (reason: "UNCONFIRMED") => void;
}

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

/**
 * What a tap asks for. Attachments have no multi-select, so Choose… is a button that opens a dialog with one
 * — like Other…, only once the tapper is known to be the owner; every other control is the codec's action.
 */
const tapAction = (control: Control): ControlAction =>
  control.kind === "choose"
    ? { type: "other", questionIndex: control.questionIndex }
    : controlAction(control);

/**
 * `POST /webhooks/mattermost`: button taps, dialog submissions, `/handraise cancel|question` and (with an
 * outgoing webhook) typed replies. `verify` is the webhook prelude's check (signed contexts / states, tokens;
 * 401 otherwise); `handler` reads the verified request, turns it into the one inbound type, handles it, and
 * answers in Mattermost's response formats. Mattermost does not retry, and a non-200 shows the user an error,
 * so everything verified is answered 200 unless Handraise itself failed.
 *
 * Who acted, and where, is believed only as far as Mattermost's API confirms it. Mattermost signs nothing it
 * sends: a command's or outgoing webhook's token is one secret shared by every request of its kind (and
 * proves that kind only: an outgoing webhook's token never passes for a command's), and the `user_id`
 * and `channel_id` beside a signed button context are not covered by its signature. So, with the bot token
 * and before anything is handled: a message's post is read back (its author, channel, thread and text are
 * the post's, never the body's); the sender of a command, tap or dialog must be a member of the channel; a
 * tapped post, or a dialog's post, must be in that channel, and a dialog is submitted only by the user who
 * tapped, in the channel of the tap, soon after (its signed state says so). (Membership is the most the API
 * can confirm for those: nothing proves which member sent a command, so a leaked command token still lets its
 * holder act as a member of a channel the bot can read — rotate it. A tap or dialog also needs a context only
 * Mattermost and Handraise hold.)
 * Anything the API does not confirm — an error, a timeout, a mismatch — changes nothing (fail closed). The
 * body itself passed verification, so the refusal is a 200 in the request's own format (an ephemeral text,
 * a dialog error) that tells a real user why nothing happened, rather than a 401 Mattermost would show as a
 * bare failure; a message gets no reply, since outgoing webhooks fire for all chatter in a channel and a
 * reply would be posted publicly.
 */
export function createMattermostWebhook(deps: MattermostWebhookDeps) {
  /** The bot's username, read once per process and only for a message that may mention it. */
  const username = remembered(() => deps.api.getMe().then((me) => me.username));

  async function verification(): Promise<Verification> {
    const [actionSecret, command, outgoing] = await Promise.all([
      deps.actionSecret(),
      deps.commandTokens().then(parseTokenList),
      deps.outgoingTokens().then(parseTokenList),
    ]);
    // A token configured as both kinds would prove either: it proves neither (fail closed), and says so.
    const shared = command.filter((token) => outgoing.includes(token));
    if (shared.length === 0) return { actionSecret, commandTokens: command, outgoingTokens: outgoing };
    deps.onError(
      new Error("a token is in both MATTERMOST_COMMAND_TOKEN and MATTERMOST_OUTGOING_TOKEN; it is refused"),
      "reading the Mattermost tokens",
    );
    return {
      actionSecret,
      commandTokens: command.filter((token) => !shared.includes(token)),
      outgoingTokens: outgoing.filter((token) => !shared.includes(token)),
    };
  }

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

  async function target(): Promise<ActionTarget> {
    const secret = await deps.actionSecret();
    if (secret === undefined) throw new Error("MATTERMOST_ACTION_SECRET is not set");
    return { url: deps.webhookUrl, secret };
  }

  /**
   * The post redrawn at the stepper's step, with what the draft holds there chosen; it keeps the link only
   * if it is the copy posted to its answerer's direct channel, else the "Answer in browser" button.
   */
  async function stepPost(record: QuestionRecord, step: number, post: { channelId: string; postId: string }) {
    const copy = copyIn(record, "mattermost", post.channelId, post.postId);
    const browser = await browserEntry(deps.links, record, copy?.privateTo);
    return renderPost(record, await target(), browser, step);
  }

  async function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
    const { body } = verifiedWebhook(event);
    // Read again from the verified bytes (a pure, cheap parse); it verified a moment ago, so this holds.
    const request = readMattermostRequest({ headers: event.headers ?? {}, body }, await verification());
    if (!request) throw new HttpError(401, "UNAUTHORIZED", MATTERMOST_REFUSAL);
    switch (request.kind) {
      case "action":
        return onAction(request);
      case "dialog":
        return onDialog(request);
      case "command":
        return onCommand(request);
      case "message":
        return onMessage(request);
    }
  }

  async function onAction(request: Extract<MattermostRequest, { kind: "action" }>) {
    const [member, post] = await Promise.all([
      isMember(request, "tap"),
      confirm("reading a tapped Mattermost post", () => deps.api.getPost(request.postId)),
    ]);
    if (!member || !post) return ephemeral(replies.unconfirmedActor);
    if (post.id !== request.postId || post.channel_id !== request.channelId) {
      refused("tap", "the tapped post is not in the channel the request names");
      return ephemeral(replies.unconfirmedActor);
    }
    const { control } = request;
    const outcome = await deps.handleInbound({
      ...from(request),
      dedupeKey: request.triggerId === undefined ? undefined : `action:${digest(request.triggerId)}`,
      kind: "control",
      questionId: control.questionId,
      action: tapAction(control),
    });
    switch (outcome.kind) {
      case "ended":
      case "resolved":
        return ok({
          update: retiredPost(outcome.record),
          ephemeral_text: escapeMarkdown(outcomeReplyText(outcome, fitsPost) ?? ""),
        });
      case "step":
        return ok({ update: await stepPost(outcome.record, outcome.questionIndex, request) });
      case "private_link":
        // Only the tapper sees an ephemeral text: their own link, never posted in the channel.
        return ok({
          ephemeral_text: `${escapeMarkdown(replies.yourOwnLink)}\n\n${answerLinkMarkdown(outcome.url)}`,
        });
      case "needs_text":
        return openDialog(
          outcome.record,
          {
            control,
            postId: request.postId,
            userId: request.userId,
            channelId: request.channelId,
            issuedAtMs: deps.now(),
          },
          request.triggerId,
        );
      default: {
        // A duplicate was answered the first time; the rest are told privately.
        const text = outcomeReplyText(outcome, fitsPost);
        return text === undefined ? ok() : ephemeral(text);
      }
    }
  }

  async function openDialog(record: QuestionRecord, opened: DialogState, triggerId: string | undefined) {
    if (triggerId === undefined) return ephemeral(replies.formCouldNotOpen);
    try {
      const actionTarget = await target();
      await deps.api.openDialog({
        trigger_id: triggerId,
        url: actionTarget.url,
        dialog: renderDialog(record, opened, actionTarget),
      });
      return ok();
    } catch (error) {
      if (!(error instanceof PlatformApiError)) throw error;
      deps.onError(error, "opening a Mattermost dialog");
      return ephemeral(replies.formCouldNotOpen);
    }
  }

  async function onDialog(request: Extract<MattermostRequest, { kind: "dialog" }>) {
    if (request.cancelled) return ok();
    // The state reached the tapper's client: used by anyone else, elsewhere or late, it changes nothing.
    const problem = dialogStateProblem(request.state, request, deps.now());
    if (problem === "expired") return ok({ error: replies.formNoLongerValid });
    if (problem !== undefined) {
      refused("dialog submission", `the dialog's state is for ${problem}`);
      return ok({ error: replies.unconfirmedActor });
    }
    // Every field is optional (a choice or an own answer): an empty form is asked again, and nothing read.
    if (Object.keys(request.answers).length === 0) return ok({ error: replies.stillNeededShort });
    const { control, postId } = request.state;
    const [member, post] = await Promise.all([
      isMember(request, "dialog submission"),
      confirm("reading a Mattermost dialog's post", () => deps.api.getPost(postId)),
    ]);
    if (!member || !post) return ok({ error: replies.unconfirmedActor });
    if (post.id !== postId || post.channel_id !== request.channelId) {
      refused("dialog submission", "the dialog's post is not in the channel the request names");
      return ok({ error: replies.unconfirmedActor });
    }
    const outcome = await deps.handleInbound({
      ...from(request),
      kind: "form",
      questionId: control.questionId,
      answers: request.answers,
      // Opened from a step: the stepper moves on from there (the last step submits every answer).
      step: control.questionIndex,
    });
    // `{}` closes the dialog; `error` keeps it open and shows why.
    switch (outcome.kind) {
      case "step":
        await redraw({ postId, channelId: request.channelId }, outcome.record, outcome.questionIndex);
        return ok();
      case "resolved":
        // The posts are edited to the outcome everywhere. A run that no longer waits is told in the dialog,
        // the one place a submission's response can speak (Mattermost has no ephemeral reply to it).
        return toldByCopies(outcome) ? ok() : ok({ error: replies.recordedNotWaiting });
      default: {
        const text = outcomeReplyText(outcome, fitsPost);
        return text === undefined ? ok() : ok({ error: text });
      }
    }
  }

  /**
   * A dialog submission cannot update its post in its response, so the post it was opened from is patched to
   * the next step. The step's answer is kept whatever happens here: a failed edit is reported, and the post
   * shows the earlier step until the next tap redraws it.
   */
  async function redraw(
    post: { postId: string; channelId: string },
    record: QuestionRecord,
    step: number,
  ): Promise<void> {
    try {
      await deps.api.patchPost(post.postId, await stepPost(record, step, post));
    } catch (error) {
      if (!(error instanceof PlatformApiError)) throw error;
      deps.onError(error, "redrawing a Mattermost post at a step");
    }
  }

  async function onCommand(request: Extract<MattermostRequest, { kind: "command" }>) {
    const word = request.text.trim().toLowerCase();
    const command =
      word === "cancel" ? "cancel" : word === "question" || word === "" ? "question" : undefined;
    if (command === undefined) return commandReply(replies.handraiseCommandHelp);
    if (!(await isMember(request, "command"))) return commandReply(replies.unconfirmedActor);
    const outcome = await deps.handleInbound({
      ...from(request),
      dedupeKey: request.triggerId === undefined ? undefined : `command:${digest(request.triggerId)}`,
      kind: "command",
      command,
    });
    const text = outcome.kind === "shown" ? replies.postedAgain : outcomeReplyText(outcome, fitsPost);
    return text === undefined ? ok() : commandReply(text);
  }

  async function onMessage(request: Extract<MattermostRequest, { kind: "message" }>) {
    const post = await confirm("reading a Mattermost post", () => deps.api.getPost(request.postId));
    if (!post) return ok();
    const problem = postProblem(post, request, deps.now());
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
    const inbound = await pointAtQuestionThread(deps.store, deps.now(), {
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
      case "incomplete":
      case "invalid":
        return comment(outcomeReplyText(outcome, fitsPost) ?? "");
      // Someone else's message in the thread gets no public reply; chatter is not for us.
      default:
        return ok();
    }
  }

  return {
    /** The webhook prelude's verification: a signed context or dialog state, or a configured token. */
    verify: async (request: WebhookRequest) =>
      readMattermostRequest(request, await verification()) !== undefined,
    handler,
  };
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
