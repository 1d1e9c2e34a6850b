/**
 * A Bot Framework activity from Teams, already authenticated (teams-auth.ts), turned into the one inbound
 * type: a card tap (`Action.Submit`: a message whose `value` is the card's data and inputs) or typed text.
 * Everything else Teams sends a bot (conversation updates, reactions, typing, invokes) is nothing to
 * Handraise.
 */
import { createHash } from "node:crypto";
import type { QuestionRecord } from "../../questions/question-record.ts";
import type { Answers } from "../../questions/schema.ts";
import * as z from "../../zod.ts";
import type { Inbound } from "../inbound.ts";
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

const tapSchema = z.looseObject({
  handraise: z.literal(1),
  questionId: z.string().check(z.minLength(1), z.maxLength(64)),
  action: z.enum(["option", "submit", "skip"]),
  option: z.optional(z.number().check(z.int(), z.gte(0), z.lte(9))),
});
export type TeamsTap = z.infer<typeof tapSchema>;

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

/** The card tap a message carries, if its `value` is one of Handraise's cards. */
export function tapOf(activity: TeamsInboundActivity): TeamsTap | undefined {
  const parsed = tapSchema.safeParse(activity.value);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The answers of a card's form, read against the question it was tapped on: a choice set's value is the
 * chosen options' indexes, comma-separated; the own-answer box adds its text (a single-select question takes
 * one or the other, the typed text first, since typing is the deliberate act). Questions left empty are left
 * out, so the shared pipeline tells what is still needed.
 */
export function formAnswers(record: QuestionRecord, value: Record<string, unknown>): Answers {
  const answers: Answers = {};
  for (const [index, question] of record.questions.entries()) {
    const chosen = String(value[choiceInputId(index)] ?? "")
      .split(",")
      .map((part) => part.trim())
      .filter((part) => /^\d$/.test(part))
      .flatMap((part) => question.options[Number(part)]?.label ?? []);
    const typed = String(value[otherInputId(index)] ?? "").trim();
    const picked = question.multiSelect
      ? [...chosen, ...(typed === "" ? [] : [typed])]
      : typed !== ""
        ? [typed]
        : chosen.slice(0, 1);
    if (picked.length > 0) answers[question.id] = picked;
  }
  return answers;
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
 * nor any text. A tap's answers are read when its question is known (`formAnswers`), so here it is a
 * `control` for option and skip, and a `form` placeholder that the webhook fills in.
 */
export function activityToInbound(
  activity: TeamsInboundActivity,
): { inbound: Inbound; tap?: TeamsTap } | undefined {
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
    const tap = tapOf(activity);
    if (!tap) return undefined;
    if (tap.action === "skip") {
      return {
        inbound: { ...base, kind: "control", questionId: tap.questionId, action: { type: "skip" } },
        tap,
      };
    }
    if (tap.action === "option") {
      if (tap.option === undefined) return undefined;
      const action = { type: "option" as const, questionIndex: 0, optionIndex: tap.option };
      return { inbound: { ...base, kind: "control", questionId: tap.questionId, action }, tap };
    }
    return { inbound: { ...base, kind: "form", questionId: tap.questionId, answers: {} }, tap };
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
