/**
 * A Bot Framework activity from Teams, already authenticated (teams-auth.ts), turned into the one inbound
 * type: a card tap (`Action.Submit`: a message whose `value` is the card's data and inputs) or typed text.
 * Everything else Teams sends a bot (conversation updates, reactions, typing, invokes) is nothing to
 * Handraise.
 */

import { createHash } from "node:crypto";
import { parseJsonBody } from "../../http/webhook-prelude.ts";
import type { QuestionRecord } from "../../questions/question-record.ts";
import type { Answers } from "../../questions/schema.ts";
import * as z from "../../zod.ts";
import { type Control, cardTapInbound, decodeControl, inputsInbound } from "../control-codec.ts";
import { cardValues, type Inbound, stepAnswers } from "../inbound.ts";
import { choiceInputId, otherInputId } from "./teams-render.ts";

const accountSchema = z.looseObject({
  id: z.string(),
  name: z.optional(z.string()),
  /** The person's Entra object id: stable, and the same for every bot (`from.id` is per bot). */
  aadObjectId: z.optional(z.string().check(z.minLength(1), z.maxLength(128))),
});

export const activitySchema = z.looseObject({
  type: z.string(),
  id: z.optional(z.string().check(z.maxLength(256))),
  channelId: z.optional(z.string()),
  serviceUrl: z.string(),
  from: z.optional(accountSchema),
  recipient: z.optional(accountSchema),
  conversation: z.optional(
    z.looseObject({
      id: z.string().check(z.minLength(1), z.maxLength(512)),
      conversationType: z.optional(z.string()),
    }),
  ),
  text: z.optional(z.string()),
  replyToId: z.optional(z.string()),
  value: z.optional(z.unknown()),
  entities: z.optional(
    z.array(
      z.looseObject({
        type: z.optional(z.string()),
        text: z.optional(z.string()),
        mentioned: z.optional(z.looseObject({ id: z.optional(z.string()) })),
      }),
    ),
  ),
});
export type TeamsInboundActivity = z.infer<typeof activitySchema>;

/** A tap's data: one control-codec.ts string (teams-render.ts). */
const tapSchema = z.looseObject({ handraise: z.string().check(z.maxLength(64)) });

/** The Bot Framework activity in a request body, or undefined when the body is not one. */
export function parseActivity(body: Buffer): TeamsInboundActivity | undefined {
  return parseJsonBody(activitySchema, body);
}

/**
 * A channel thread's messages arrive in conversation `<channel id>;messageid=<thread root>`: the chat is the
 * channel (where the card was posted), and the root is the message replied to.
 */
export function conversationOf(conversationId: string): { chatId: string; threadRoot?: string } {
  const [chatId = conversationId, root] = conversationId.split(";messageid=");
  return root ? { chatId, threadRoot: root } : { chatId };
}

/** A delivery's key for the dedupe claim: Teams re-sends an activity it got no timely answer for. */
const dedupeKeyOf = (conversationId: string, activityId: string) =>
  createHash("sha256").update(`${conversationId}\n${activityId}`).digest("hex").slice(0, 40);

/** The control a message's `value` carries, if it is a tap on one of Handraise's cards. */
export function tapOf(activity: TeamsInboundActivity): Control | undefined {
  const parsed = tapSchema.safeParse(activity.value);
  return parsed.success ? decodeControl(parsed.data.handraise) : undefined;
}

/**
 * The answers a card's inputs give question `questionIndex`, read against the record: a choice set's value
 * is the chosen options' indexes, comma-separated; the own-answer box adds its text (a single-select question
 * takes one or the other, the typed text first, since typing is the deliberate act). Nothing chosen or typed
 * gives no answer, so the shared pipeline tells what is still needed.
 */
export function formAnswers(
  record: QuestionRecord,
  questionIndex: number,
  value: Record<string, unknown>,
): Answers {
  return stepAnswers(record, questionIndex, (question) =>
    cardValues(
      question,
      String(value[choiceInputId(questionIndex)] ?? "").split(","),
      String(value[otherInputId(questionIndex)] ?? ""),
    ),
  );
}

/**
 * A tap that sent the card's inputs (`activityToInbound` left its answers empty), read against its question:
 * what was ticked or typed answers the tapped step (and moves the stepper on from it); with nothing ticked or
 * typed it is the control itself (`inputsInbound`).
 */
export function withInputs(
  inbound: Extract<Inbound, { kind: "form" }>,
  control: Control,
  record: QuestionRecord,
  value: unknown,
): Inbound {
  const inputs = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  const answers = formAnswers(record, control.questionIndex, inputs);
  return inputsInbound(inbound, control, answers, record.questions.length > 1);
}

/** Text without the `<at>…</at>` mentions of the bot (Teams puts the mention's markup into `text`). */
function withoutBotMentions(activity: TeamsInboundActivity): { text: string; mentioned: boolean } {
  let text = activity.text ?? "";
  let mentioned = false;
  for (const entity of activity.entities ?? []) {
    if (entity.type !== "mention" || entity.mentioned?.id !== activity.recipient?.id) continue;
    mentioned = true;
    if (entity.text) text = text.split(entity.text).join(" ");
  }
  return { text: text.replace(/<at>[^<]*<\/at>/g, " ").trim(), mentioned };
}

/**
 * The inbound event of an activity, or undefined when it is nothing to answer: not a message, not from a
 * person with an Entra id (Handraise's owners are `teams:<aadObjectId>`), or not a tap on one of its cards
 * nor any text. A tap on an option, Back or Skip is a `control`; a tap that sends the card's inputs (Done,
 * Send) is a `form` whose answers `withInputs` reads once the question is known (`cardTapInbound`).
 */
export function activityToInbound(
  activity: TeamsInboundActivity,
): { inbound: Inbound; control?: Control } | undefined {
  if (activity.type !== "message" || activity.channelId !== "msteams") return undefined;
  const aadObjectId = activity.from?.aadObjectId;
  const conversation = activity.conversation;
  if (aadObjectId === undefined || conversation === undefined) return undefined;
  const { chatId, threadRoot } = conversationOf(conversation.id);
  const base = {
    platform: "teams" as const,
    actor: `teams:${aadObjectId}`,
    chatId,
    ...(activity.id !== undefined && { dedupeKey: dedupeKeyOf(conversation.id, activity.id) }),
  };
  if (activity.value !== undefined) {
    const control = tapOf(activity);
    if (!control) return undefined;
    return { inbound: cardTapInbound(base, control), control };
  }
  const { text, mentioned } = withoutBotMentions(activity);
  if (text === "") return undefined;
  return {
    inbound: {
      ...base,
      kind: "text",
      text,
      replyToMessageId: threadRoot ?? activity.replyToId,
      // In a personal chat everything is said to the bot; elsewhere Teams sends a bot only what mentions it.
      addressed: conversation.conversationType === "personal" || mentioned,
    },
  };
}
