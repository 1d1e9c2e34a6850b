import type { KeyObject } from "node:crypto";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { HandleInbound, InboundOutcome } from "../../app/handle-inbound.ts";
import { HttpError } from "../../http/http-errors.ts";
import { webhookBody } from "../../http/middlewares.ts";
import { json } from "../../http/responses.ts";
import type { QuestionRecord } from "../../questions/question-record.ts";
import type { QuestionStore } from "../../store/question-store.ts";
import type { ControlAction, Inbound } from "../inbound.ts";
import { endedText, outcomeText } from "../replies.ts";
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
import { withinInteraction } from "./discord-interaction-scope.ts";
import {
  clip,
  type DecodedComponent,
  decodeComponentId,
  decodeModalId,
  escapeMarkdown,
  formModal,
  MAX_CONTENT,
  modalAnswers,
  NO_MENTIONS,
  otherModal,
  retiredContent,
} from "./discord-render.ts";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyDiscordRequest } from "./discord-signature.ts";

/**
 * How long, from the moment the handler starts, the Discord API calls made while answering one interaction
 * may take in total (a `/question` re-post, healing a stale copy; the other copies of an answered question
 * are retired by the table's stream consumer, not here). Discord drops a response that arrives after 3 s,
 * measured from its side: 3 s − a cold start's init before the handler runs (~0.5–0.8 s for a bundle this
 * size at 256 MB, an estimate, plus reading its secrets from SSM once) − the round trip to Discord
 * (~0.2 s) − our own DynamoDB and Step Functions calls (~0.1–0.2 s when warm) leaves about 1.5 s of slack
 * for platform calls. A copy not edited within it keeps its buttons: the answer already stands, and a later
 * tap on that copy is told so and edits it then.
 */
export const DISCORD_ACK_BUDGET_MS = 1_500;

export interface DiscordWebhookDeps {
  /** The application public key (DISCORD_PUBLIC_KEY): every request's Ed25519 signature is checked with it. */
  publicKey: KeyObject;
  api: DiscordApi;
  store: QuestionStore;
  handleInbound: HandleInbound;
  /** Epoch ms, for the replay window of the signed timestamp. */
  now: () => number;
  onBackgroundError: (error: unknown, context: string) => void;
  /** Overrides DISCORD_ACK_BUDGET_MS (tests). */
  ackBudgetMs?: number;
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

const NOT_YOURS = "This question is not yours to answer.";
const GONE = "This question no longer exists.";
const NOTHING_WAITING = "No question is waiting for you here.";
const stillNeeded = (outcome: Extract<InboundOutcome, { kind: "incomplete" }>) =>
  `Still needed: ${outcome.missing.map((q) => `${q.header} [${q.id}]`).join(", ")}.`;

/**
 * `POST /webhooks/discord` (the application's Interactions Endpoint URL): verify the Ed25519 signature and
 * its timestamp, then answer the interaction in the response body — PONG, a message update that shows the
 * outcome and removes the components (type 7), a modal (type 9), or a private notice (type 4, ephemeral).
 */
export function createDiscordWebhook(deps: DiscordWebhookDeps) {
  const budgetMs = deps.ackBudgetMs ?? DISCORD_ACK_BUDGET_MS;

  return async function discordWebhook(
    event: APIGatewayProxyEventV2,
  ): Promise<APIGatewayProxyStructuredResultV2> {
    const started = performance.now();
    const body = webhookBody(event);
    const signed = {
      signature: event.headers?.[SIGNATURE_HEADER],
      timestamp: event.headers?.[TIMESTAMP_HEADER],
      body,
    };
    if (!verifyDiscordRequest(deps.publicKey, signed, deps.now())) {
      throw new HttpError(401, "UNAUTHORIZED", "Missing, invalid or stale Discord request signature.");
    }
    let interaction: Interaction;
    try {
      interaction = interactionSchema.parse(JSON.parse(body.toString("utf8")));
    } catch {
      throw new HttpError(400, "INVALID_INTERACTION", "The body is not a Discord interaction.");
    }
    if (interaction.type === InteractionType.PING) return json(200, { type: PONG });

    const scope = { deadline: started + budgetMs };
    return json(200, await withinInteraction(scope, () => respond(interaction)));
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
        return privately("Handraise does not handle this kind of interaction.");
    }
  }

  type Base = { platform: "discord"; actor: string; chatId: string; dedupeKey: string };

  async function onComponent(interaction: Interaction, base: Base): Promise<InteractionResponse> {
    const decoded = decodeComponentId(interaction.data?.custom_id ?? "");
    const action = decoded && toAction(decoded, interaction.data?.values);
    if (!decoded || !action) return privately("This control is no longer valid.");
    if (action.type === "choose" && action.optionIndexes.length === 0) {
      return privately("Choose at least one option.");
    }
    const outcome = await deps.handleInbound({
      ...base,
      kind: "control",
      questionId: decoded.questionId,
      action,
    });
    if (outcome.kind === "needs_text") {
      const modal =
        decoded.kind === "form"
          ? formModal(outcome.record)
          : otherModal(outcome.record, outcome.questionIndex);
      return { type: MODAL, data: modal };
    }
    return afterTap(outcome, interaction);
  }

  async function onModal(interaction: Interaction, base: Base): Promise<InteractionResponse> {
    const modal = decodeModalId(interaction.data?.custom_id ?? "");
    if (!modal) return privately("This form is no longer valid.");
    // The fields are read against the questions (an option number becomes its label), so load them first;
    // the pipeline then checks the owner and the status as for any answer.
    const record = await deps.store.get(modal.questionId, deps.now());
    if (!record) return privately(GONE);
    const answers = modalAnswers(record, modal, modalFields(interaction));
    const outcome = await deps.handleInbound({ ...base, kind: "form", questionId: record.id, answers });
    return afterTap(outcome, interaction);
  }

  /** The reply to a tap or a submitted modal. */
  async function afterTap(outcome: InboundOutcome, interaction: Interaction): Promise<InteractionResponse> {
    switch (outcome.kind) {
      case "duplicate":
        return acknowledge(interaction);
      case "ignored":
      case "no_pending":
        return privately(GONE);
      case "not_owner":
        return privately(NOT_YOURS);
      case "ended":
        await healTappedCopy(outcome.record, interaction);
        return privately(endedText(outcome.record));
      case "resolved": {
        // The tapped copy shows the outcome through this response; the pipeline has edited the others.
        if (tappedDelivery(outcome.record, interaction)) {
          return {
            type: UPDATE_MESSAGE,
            data: { content: retiredContent(outcome.record), components: [], allowed_mentions: NO_MENTIONS },
          };
        }
        return privately(outcomeText(outcome.record));
      }
      case "incomplete":
        return privately(stillNeeded(outcome));
      case "invalid":
        return privately(outcome.message);
      case "needs_text":
      case "shown":
      case "toggled":
      case "step":
        return acknowledge(interaction);
    }
  }

  async function onCommand(interaction: Interaction, base: Base): Promise<InteractionResponse> {
    const name = interaction.data?.name;
    const typed = name === "question" ? commandOption(interaction, "answer") : undefined;
    let inbound: Inbound;
    // Discord delivers no plain messages: typed text comes only through a command, which addresses the bot.
    if (typed !== undefined) inbound = { ...base, kind: "text", text: typed, addressed: true };
    else if (name === "cancel" || name === "question") inbound = { ...base, kind: "command", command: name };
    else return privately(`Unknown command /${name ?? ""}.`);

    const outcome = await deps.handleInbound(inbound);
    switch (outcome.kind) {
      case "duplicate":
        return acknowledge(interaction);
      case "no_pending":
      case "ignored":
        return privately(NOTHING_WAITING);
      case "not_owner":
        return privately(NOT_YOURS);
      case "ended":
        return privately(endedText(outcome.record));
      case "resolved":
        return privately(outcomeText(outcome.record));
      case "shown":
        return privately("The question is posted again below.");
      case "incomplete":
        return privately(stillNeeded(outcome));
      case "invalid":
        return privately(outcome.message);
      case "needs_text":
      case "toggled":
      case "step":
        return acknowledge(interaction);
    }
  }

  /** A success ack that changes nothing: type 6 where there is a message to leave as it is. */
  function acknowledge(interaction: Interaction): InteractionResponse {
    return interaction.message ? { type: DEFERRED_UPDATE_MESSAGE } : privately("Already handled.");
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
      deps.onBackgroundError(error, `retiring question ${record.id} on discord`);
    }
  }
}

function toAction(
  decoded: DecodedComponent,
  values: readonly string[] | undefined,
): ControlAction | undefined {
  switch (decoded.kind) {
    case "option":
      return { type: "option", questionIndex: decoded.sub, optionIndex: decoded.option };
    case "select":
      return { type: "choose", questionIndex: decoded.sub, optionIndexes: selectedIndexes(values) };
    case "other":
      return { type: "other", questionIndex: decoded.sub };
    case "form":
      return { type: "other", questionIndex: 0 };
    case "skip":
      return { type: "skip" };
  }
}
