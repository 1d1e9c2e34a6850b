/**
 * Slack's three request kinds, parsed after the signature was verified: Events API envelopes (JSON),
 * interactivity payloads (form field `payload=<JSON>`) and slash commands (form fields). Only the fields
 * Handraise reads are declared; anything else Slack sends is ignored, not an error.
 */
import type { Answers } from "../../questions/schema.ts";
import * as z from "../../zod.ts";
import type { Inbound } from "../inbound.ts";
import { replies } from "../replies.ts";

/** The platform-qualified user: `slack:<team id>:<user id>` (user ids are workspace-scoped). */
export function slackActor(teamId: string, userId: string): string {
  return `slack:${teamId}:${userId}`;
}

// zod schemas are immutable: the common field types are built once and shared (a smaller bundle).
const string = z.string();
const optional = z.optional(string);
/** Ids that must not be empty when present: dedupe keys are built from them. */
const optionalId = z.optional(string.check(z.minLength(1)));

// ── Events API ─────────────────────────────────────────────────────────────────────────────────────────

const messageEventSchema = z.object({
  type: string,
  subtype: optional,
  channel: optional,
  /** `im` (a direct conversation with the app), `channel`, `group` (private channel), `mpim`. */
  channel_type: optional,
  user: optional,
  bot_id: optional,
  text: optional,
  ts: optional,
  thread_ts: optional,
  team: optional,
  user_team: optional,
});

/** Every Slack body names its kind in `type`: read it first, then the kind's own schema. */
export const typedSchema = z.object({ type: string });

export const urlVerificationSchema = z.object({
  type: z.literal("url_verification"),
  challenge: string.check(z.maxLength(1024)),
});

export const eventCallbackSchema = z.object({
  type: z.literal("event_callback"),
  team_id: string,
  event_id: string.check(z.minLength(1)),
  authorizations: z.optional(z.array(z.object({ user_id: optional, is_bot: z.optional(z.boolean()) }))),
  event: messageEventSchema,
});
export type EventCallback = z.infer<typeof eventCallbackSchema>;

/** Message subtypes that are still a person writing (a thread reply also sent to the channel, a file + text). */
const PERSON_SUBTYPES = new Set(["thread_broadcast", "file_share"]);

/**
 * Slack's message markup back to what the person typed: links `<url|label>` → label, `<url>` → url, the
 * entities `&lt; &gt; &amp;` decoded, and a leading mention of the bot ("@Handraise 2") dropped. User,
 * channel and special mentions stay as written.
 */
export function slackTextToPlain(text: string, botUserId?: string): string {
  const withoutBot =
    botUserId === undefined ? text : text.replace(new RegExp(`^\\s*<@${botUserId}>[\\s:,]*`), "");
  return withoutBot
    .replace(/<([^<>]*)>/g, (whole, inner: string) => {
      if (/^[@#!]/.test(inner)) return whole;
      const bar = inner.indexOf("|");
      return bar === -1 ? inner : inner.slice(bar + 1);
    })
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
}

/** Whether Slack's markup of `text` mentions the user `userId` (`<@U…>`, or the older `<@U…|name>`). */
export function mentions(text: string, userId: string | undefined): boolean {
  return userId !== undefined && (text.includes(`<@${userId}>`) || text.includes(`<@${userId}|`));
}

/**
 * A message event as inbound text, routed by its thread (`thread_ts` = the posted question's `ts`). It is
 * addressed to the app in a direct conversation (`im`) or when it mentions the app's bot user, whose id is
 * the envelope's bot authorization. Undefined for everything that is not a person writing: bots (this app
 * included), edits, deletions, joins.
 */
export function messageToInbound(envelope: EventCallback): Extract<Inbound, { kind: "text" }> | undefined {
  const event = envelope.event;
  const botUserId = envelope.authorizations?.find((a) => a.is_bot)?.user_id;
  if (event.type !== "message" || event.bot_id !== undefined) return undefined;
  if (event.subtype !== undefined && !PERSON_SUBTYPES.has(event.subtype)) return undefined;
  if (!event.user || event.user === botUserId || !event.channel || event.text === undefined) return undefined;
  const threadTs =
    event.thread_ts !== undefined && event.thread_ts !== event.ts ? event.thread_ts : undefined;
  return {
    platform: "slack",
    actor: slackActor(event.user_team ?? event.team ?? envelope.team_id, event.user),
    chatId: event.channel,
    dedupeKey: `ev:${envelope.event_id}`,
    kind: "text",
    text: slackTextToPlain(event.text, botUserId),
    replyToMessageId: threadTs,
    addressed: event.channel_type === "im" || mentions(event.text, botUserId),
  };
}

// ── Interactivity ──────────────────────────────────────────────────────────────────────────────────────

const optionValue = z.object({ value: string });
const elementStateSchema = z.object({
  value: z.nullish(string),
  selected_option: z.nullish(optionValue),
  selected_options: z.nullish(z.array(optionValue)),
});
const stateSchema = z.object({ values: z.record(string, z.record(string, elementStateSchema)) });
export type SlackState = z.infer<typeof stateSchema>;

const idSchema = z.nullish(z.object({ id: string }));
const userSchema = z.object({ id: string, team_id: optional });

export const blockActionsSchema = z.object({
  type: z.literal("block_actions"),
  user: userSchema,
  team: idSchema,
  channel: idSchema,
  container: z.optional(z.object({ message_ts: optional, channel_id: optional, thread_ts: optional })),
  message: z.optional(z.object({ ts: string, thread_ts: optional })),
  trigger_id: optionalId,
  state: z.optional(stateSchema),
  actions: z
    .array(z.object({ action_id: string, value: optional, action_ts: optionalId }))
    .check(z.minLength(1)),
});
export type BlockActions = z.infer<typeof blockActionsSchema>;

export const viewSubmissionSchema = z.object({
  type: z.literal("view_submission"),
  user: userSchema,
  team: idSchema,
  trigger_id: optionalId,
  view: z.object({ id: string, callback_id: optional, private_metadata: optional, state: stateSchema }),
});
export type ViewSubmission = z.infer<typeof viewSubmissionSchema>;

/** The team of an interacting user: their own (Slack Connect) or the workspace's. */
export function interactionActor(payload: {
  user: { id: string; team_id?: string | undefined };
  team?: { id: string } | null | undefined;
}): string | undefined {
  const team = payload.user.team_id ?? payload.team?.id;
  return team === undefined ? undefined : slackActor(team, payload.user.id);
}

/** The option indexes ticked in the checkboxes whose action_id is `checkboxesId` (read when Done is tapped). */
export function tickedOptions(state: SlackState | undefined, checkboxesId: string): number[] {
  const ticked: number[] = [];
  for (const block of Object.values(state?.values ?? {})) {
    for (const option of block[checkboxesId]?.selected_options ?? []) {
      const index = Number(option.value);
      if (Number.isInteger(index) && index >= 0) ticked.push(index);
    }
  }
  return ticked;
}

export interface FormReading {
  answers: Answers;
  /** Input block id → what is wrong there (a single-select question given both a choice and a text). */
  errors: Record<string, string>;
}

/**
 * The answers of a submitted modal: per question id, the chosen option labels (`c|<id>`) plus the typed
 * text (`t|<id>`) when it is not blank. Questions with neither are left out (the pipeline reports them).
 */
export function readForm(state: SlackState): FormReading {
  const answers: Answers = {};
  /** Questions answered with a single-select choice: a typed answer beside it is one value too many. */
  const chosenOne = new Set<string>();
  for (const [blockId, block] of Object.entries(state.values)) {
    const [, kind, id] = /^([ct])\|([a-z][a-z0-9_]{0,63})$/.exec(blockId) ?? [];
    if (!id) continue;
    const choice = block.choice;
    if (kind === "c" && choice?.selected_option) chosenOne.add(id);
    const values =
      kind === "c"
        ? [
            ...(choice?.selected_options ?? []),
            ...(choice?.selected_option ? [choice.selected_option] : []),
          ].map((option) => option.value)
        : [block.text?.value?.trim() ?? ""].filter(Boolean);
    if (values.length > 0) answers[id] = [...(answers[id] ?? []), ...values];
  }
  const errors = Object.fromEntries(
    [...chosenOne]
      .filter((id) => (answers[id]?.length ?? 0) > 1)
      .map((id) => [`t|${id}`, replies.pickOrTypeNotBoth]),
  );
  return { answers, errors };
}

// ── Slash commands ─────────────────────────────────────────────────────────────────────────────────────

export const slashCommandSchema = z.object({
  command: string,
  text: z._default(string, ""),
  user_id: string,
  team_id: string,
  channel_id: string,
  trigger_id: optionalId,
});
export type SlashCommand = z.infer<typeof slashCommandSchema>;

/**
 * `/handraise cancel` and `/handraise question` (the manifest's command); `/cancel` and `/question` too, for
 * a deployer who registers those names instead. Anything else: undefined (the reply explains the command).
 */
export function commandOf(command: SlashCommand): "cancel" | "question" | undefined {
  const name = command.command.replace(/^\//, "").toLowerCase();
  if (name === "cancel" || name === "question") return name;
  const word = command.text.trim().toLowerCase();
  return word === "cancel" || word === "question" ? word : undefined;
}
