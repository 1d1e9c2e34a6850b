import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { InboundOutcome } from "../../app/handle-inbound.ts";
import { HttpError } from "../../http/http-errors.ts";
import { json } from "../../http/responses.ts";
import { verifiedWebhook } from "../../http/webhook-prelude.ts";
import type { QuestionRecord } from "../../questions/question-record.ts";
import { browserEntry, copyIn } from "../answer-in-browser.ts";
import type { ChatWebhookDeps } from "../chat-webhook.ts";
import { controlAction, decodeControl } from "../control-codec.ts";
import type { Inbound } from "../inbound.ts";
import { fittedOutcomeText, outcomeReplyText, replies } from "../replies.ts";
import type { DiscordApi } from "./discord-api.ts";
import { retireMessage } from "./discord-channel.ts";
import {
  actorOf,
  channelOf,
  commandOption,
  type Interaction,
  InteractionType,
  interactionSchema,
  modalFields,
  selectedIndexes,
} from "./discord-interaction.ts";
import {
  clip,
  escapeMarkdown,
  fitsContent,
  MAX_CONTENT,
  NO_MENTIONS,
  otherAnswer,
  otherModal,
  ownLinkMessage,
  promptMessage,
  retiredContent,
} from "./discord-render.ts";

/**
 * How long, from the moment a request arrives, the Discord API calls made while answering one interaction
 * may take in total — the webhook prelude's `ackWithinMs` (functions/discord-webhook.ts). Those calls are a
 * `/question` re-post (with, the first time in a channel, the read of what kind of channel it is) and healing
 * a stale copy (the other copies of an answered question are retired by the table's stream consumer, not
 * here). Discord drops a response that arrives after 3 s, measured from its side: 3 s − a cold start's init before the handler runs (~0.5–0.8 s for a bundle this
 * size at 256 MB, an estimate, plus reading its secrets from SSM once) − the round trip to Discord
 * (~0.2 s) − our own DynamoDB and Step Functions calls (~0.1–0.2 s when warm) leaves about 1.5 s of slack
 * for platform calls. A copy not edited within it keeps its buttons: the answer already stands, and a later
 * tap on that copy is told so and edits it then.
 */
export const DISCORD_ACK_BUDGET_MS = 1_500;

export interface DiscordWebhookDeps extends ChatWebhookDeps {
  api: DiscordApi;
}

/** Interaction response types. */
const PONG = 1;
const CHANNEL_MESSAGE = 4;
const DEFERRED_UPDATE_MESSAGE = 6;
const UPDATE_MESSAGE = 7;
const MODAL = 9;
const EPHEMERAL = 1 << 6;

type InteractionResponse = { type: number; data?: Record<string, unknown> };

/** A reply only the person who acted sees. */
const privately = (text: string): InteractionResponse => ({
  type: CHANNEL_MESSAGE,
  data: { content: clip(escapeMarkdown(text), MAX_CONTENT), flags: EPHEMERAL, allowed_mentions: NO_MENTIONS },
});

/**
 * `POST /webhooks/discord` (the application's Interactions Endpoint URL), behind the webhook prelude that
 * checked the Ed25519 signature, its timestamp and the body size: answer the interaction in the response
 * body — PONG, the prompt redrawn at the next step or the outcome with the components removed (type 7,
 * UPDATE_MESSAGE), a modal (type 9), or a private notice (type 4, ephemeral). "Answer in browser" on a copy in
 * a shared channel is a button: a tap by someone who may answer gets their own link in an ephemeral reply,
 * anyone else the ephemeral "not yours"; the message is not touched.
 */
export function createDiscordWebhook(deps: DiscordWebhookDeps) {
  return async function discordWebhook(
    event: APIGatewayProxyEventV2,
  ): Promise<APIGatewayProxyStructuredResultV2> {
    const { body, within } = verifiedWebhook(event);
    let interaction: Interaction;
    try {
      interaction = interactionSchema.parse(JSON.parse(body.toString("utf8")));
    } catch {
      throw new HttpError(400, "INVALID_INTERACTION", "The body is not a Discord interaction.");
    }
    if (interaction.type === InteractionType.PING) return json(200, { type: PONG });
    return json(200, await within(() => respond(interaction)));
  };

  async function respond(interaction: Interaction): Promise<InteractionResponse> {
    const actor = actorOf(interaction);
    const chatId = channelOf(interaction);
    if (actor === undefined || chatId === undefined) {
      throw new HttpError(400, "INVALID_INTERACTION", "The interaction names no user or channel.");
    }
    const base = { platform: "discord" as const, actor, chatId, dedupeKey: interaction.id };
    switch (interaction.type) {
      case InteractionType.MESSAGE_COMPONENT:
        return onComponent(interaction, base);
      case InteractionType.MODAL_SUBMIT:
        return onModal(interaction, base);
      case InteractionType.APPLICATION_COMMAND:
        return onCommand(interaction, base);
      default:
        return privately(replies.notHandledHere);
    }
  }

  type Base = { platform: "discord"; actor: string; chatId: string; dedupeKey: string };

  async function onComponent(interaction: Interaction, base: Base): Promise<InteractionResponse> {
    const control = decodeControl(interaction.data?.custom_id ?? "");
    if (!control) return privately(replies.controlNoLongerValid);
    // A select's values are its options' positions.
    const action = controlAction(control, selectedIndexes(interaction.data?.values));
    if (action.type === "choose" && action.optionIndexes.length === 0) {
      return privately(replies.chooseAtLeastOneInMenu);
    }
    const outcome = await deps.handleInbound({
      ...base,
      kind: "control",
      questionId: control.questionId,
      action,
    });
    return reply(outcome, interaction);
  }

  async function onModal(interaction: Interaction, base: Base): Promise<InteractionResponse> {
    // The modal's custom_id is the Other… control that opened it.
    const control = decodeControl(interaction.data?.custom_id ?? "");
    if (control?.kind !== "other") return privately(replies.formNoLongerValid);
    // The field is read against its question (an option number becomes its label), so load it first; the
    // pipeline then checks the owner and the status as for any answer.
    const record = await deps.store.get(control.questionId, deps.now());
    if (!record) return privately(replies.gone);
    const sub = control.questionIndex;
    const outcome = await deps.handleInbound({
      ...base,
      kind: "form",
      questionId: record.id,
      answers: otherAnswer(record, sub, modalFields(interaction)),
      // Opened from a step of several questions: it moves on from there like a tap.
      ...(record.questions.length > 1 && { step: sub }),
    });
    return reply(outcome, interaction);
  }

  async function onCommand(interaction: Interaction, base: Base): Promise<InteractionResponse> {
    const name = interaction.data?.name;
    const typed = name === "question" ? commandOption(interaction, "answer") : undefined;
    let inbound: Inbound;
    // Discord delivers no plain messages: typed text comes only through a command, which addresses the bot.
    if (typed !== undefined) inbound = { ...base, kind: "text", text: typed, addressed: true };
    else if (name === "cancel" || name === "question") inbound = { ...base, kind: "command", command: name };
    else return privately(replies.notHandledHere);
    return reply(await deps.handleInbound(inbound), interaction);
  }

  /**
   * The response to any interaction's outcome. Where the outcome shows in the message — a modal, the prompt
   * redrawn at a step, the tapped copy retired — it is drawn; otherwise the person alone is told what
   * happened, in the words every platform uses (`outcomeReplyText`).
   */
  async function reply(outcome: InboundOutcome, interaction: Interaction): Promise<InteractionResponse> {
    const tapped = interaction.type !== InteractionType.APPLICATION_COMMAND;
    switch (outcome.kind) {
      case "needs_text":
        return { type: MODAL, data: otherModal(outcome.record, outcome.questionIndex) };
      case "step": {
        if (!interaction.message) break;
        // Redrawn as the copy was posted: its answerer's link only in their DM.
        const copy = copyIn(outcome.record, "discord", channelOf(interaction) ?? "", interaction.message.id);
        const browser = await browserEntry(deps.links, outcome.record, copy?.privateTo);
        return { type: UPDATE_MESSAGE, data: promptMessage(outcome.record, outcome.questionIndex, browser) };
      }
      case "private_link":
        // Only the tapper sees it; nothing is posted in the channel and the message stays as it is.
        return { type: CHANNEL_MESSAGE, data: { ...ownLinkMessage(outcome.url), flags: EPHEMERAL } };
      case "resolved":
        // A run that no longer waits is told in words; the stream consumer retires this copy with the others.
        if (outcome.notWaiting === true) return privately(replies.recordedNotWaiting);
        // The tapped copy shows the outcome through this response; the pipeline has edited the others.
        if (tappedDelivery(outcome.record, interaction)) {
          return {
            type: UPDATE_MESSAGE,
            data: { content: retiredContent(outcome.record), components: [], allowed_mentions: NO_MENTIONS },
          };
        }
        // Without a copy to update, the full outcome rather than a bare "Got it.".
        return privately(fittedOutcomeText(outcome.record, fitsContent));
      case "ended":
        if (tapped) await healTappedCopy(outcome.record, interaction);
        break;
      case "shown":
        return privately(replies.postedAgain);
      case "ignored":
        // A typed `/question answer:` that found no question of theirs here.
        if (!tapped) return privately(replies.nothingWaiting);
        break;
    }
    const text = outcomeReplyText(outcome, fitsContent);
    return text === undefined ? acknowledge(interaction) : privately(text);
  }

  /** A success ack that changes nothing: type 6 where there is a message to leave as it is. */
  function acknowledge(interaction: Interaction): InteractionResponse {
    return interaction.message ? { type: DEFERRED_UPDATE_MESSAGE } : privately(replies.alreadyHandled);
  }

  function tappedDelivery(record: QuestionRecord, interaction: Interaction): boolean {
    const messageId = interaction.message?.id;
    return (
      messageId !== undefined &&
      record.deliveries.some((d) => d.channel === "discord" && d.messageId === messageId)
    );
  }

  /**
   * A tap on a copy that still has its controls after the question ended (its edit failed or ran out of
   * time): edit it now, within the same budget. Failing again changes nothing; the notice still goes out.
   */
  async function healTappedCopy(record: QuestionRecord, interaction: Interaction): Promise<void> {
    const message = interaction.message;
    const chatId = channelOf(interaction);
    if (!message || !chatId || (message.components ?? []).length === 0) return;
    if (!tappedDelivery(record, interaction)) return;
    try {
      await retireMessage(deps.api, record, chatId, message.id);
    } catch (error) {
      deps.onError(error, `retiring question ${record.id} on discord`);
    }
  }
}
