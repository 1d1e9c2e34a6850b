/**
 * The question record: what the store keeps and the API shows. The task token is stored
 * beside it but is never part of a record: only `close` hands it to the caller that must resume the run.
 */

import { OWNER_EXAMPLES, OWNER_PATTERN } from "../channels/owner-pattern.ts";
import { ruleMessage } from "../validation-messages.ts";
import * as z from "../zod.ts";
import { answersSchema, questionSchema, type Vote, voteSchema } from "./schema.ts";

export type { Vote };

export const deliveryTargetSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    channel: z.string().check(z.minLength(1), z.maxLength(32)),
    chatId: z.string().check(z.minLength(1), z.maxLength(256)),
    threadId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
    /**
     * Teams: the Bot Connector service URL the conversation is reached through (a conversation lives in one
     * region); without it, the deployment's TEAMS_API_BASE. Kept on the posted copy, which is edited there.
     */
    serviceUrl: z.optional(
      z.url({ protocol: /^https?$/, error: ruleMessage("must be an http(s) URL") }).check(z.maxLength(512)),
    ),
  }))();
export type DeliveryTarget = z.infer<typeof deliveryTargetSchema>;

/** Where a copy of the prompt was posted, so it can be edited when the question ends. */
export const deliverySchema = /* @__PURE__ */ (() =>
  z.extend(deliveryTargetSchema, {
    messageId: z.optional(z.string().check(z.minLength(1))),
    /**
     * The answerer this copy was posted to in a one-to-one conversation with the bot: only such a copy shows
     * that person's answer link (redrawn at each step of the stepper). Absent: a shared conversation (or one
     * Handraise could not confirm as private), whose copy has an "Answer in browser" control instead.
     */
    privateTo: z.optional(z.string().check(z.minLength(1))),
    /**
     * The copy started its own thread (`threadId`), which the platform names apart from the message (Google
     * Chat): a line typed in that thread is about this copy's question, so the thread is indexed with it.
     * Absent: no thread, one named by the message itself, or one that existed before (`deliverTo.threadId`).
     */
    startedThread: z.optional(z.literal(true)),
    /**
     * A message sent beside the question, not the question itself (Telegram's prompt for an own answer,
     * WhatsApp's template for a closed window): recorded to be retired with it, but not a copy that counts
     * towards the re-posts a chat may hold (MAX_REPOSTS_IN_CHAT).
     */
    aside: z.optional(z.literal(true)),
    /**
     * Posted by the escalation (lib/app/fire-question-timer.ts): once such a copy is recorded, the room kept
     * for the escalation's targets is given back (lib/questions/record-budget.ts).
     */
    escalation: z.optional(z.literal(true)),
  }))();
export type Delivery = z.infer<typeof deliverySchema>;

/**
 * Stored statuses. `expired` is stored by the question's expiry timer (lib/app/fire-question-timer.ts), and
 * is also derived on read: between the deadline and that write (at most about a minute, or for good where no
 * timer runs) a pending record past its deadline reads as expired.
 */
export const questionStatusSchema = /* @__PURE__ */ (() =>
  z.enum(["pending", "answered", "cancelled", "delivery_failed", "expired", "no_quorum"]))();
export type StoredStatus = z.infer<typeof questionStatusSchema>;
export type QuestionStatus = StoredStatus;

/** Why a question ended without an answer, when it was cancelled (`cancelled` or `skipped`). */
export const cancelReasonSchema = /* @__PURE__ */ (() => z.enum(["cancelled", "skipped"]))();
export type CancelReason = z.infer<typeof cancelReasonSchema>;

/**
 * Every id a question record can have: `ask_` + 32 hex when Handraise derives it, or the explicit id given to
 * POST /questions. Short enough to ride in every platform's button payload (Telegram: 64 bytes).
 */
export const RECORD_ID_PATTERN = /^[A-Za-z0-9_-]{1,48}$/;

export const ownerSchema = /* @__PURE__ */ (() =>
  z
    .string()
    .check(
      z.regex(OWNER_PATTERN, { error: ruleMessage(`must be platform-qualified, e.g. ${OWNER_EXAMPLES}`) }),
      z.maxLength(256),
    ))();

/** The most a question's context may say, in UTF-16 code units once trimmed: a short paragraph, no more. */
export const MAX_CONTEXT_UNITS = 500;

/**
 * A control character other than a line feed (line breaks are the one layout a context may carry), or one
 * that reorders or breaks what a person reads without showing itself: the bidirectional overrides and
 * isolates (U+202A–202E, U+2066–2069) and the line and paragraph separators (U+2028, U+2029). The context
 * tells the person who is asking: it must read as written.
 */
const CONTROL_CHARACTER = /(?!\n)[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;

/**
 * Who is asking and why, as the caller (never the model) writes it: shown above the questions on every
 * surface. Parsing gives it canonical: line breaks as `\n` (a `\r\n` or a lone `\r` becomes one), trimmed.
 */
export const contextSchema = /* @__PURE__ */ (() =>
  z
    .string({
      error: (issue) => (issue.input === undefined ? "context is required" : "context must be a string"),
    })
    .check(
      z.overwrite((text) => text.replace(/\r\n?/g, "\n").trim()),
      z.minLength(1, { error: "context must not be empty or blank", abort: true }),
      z.refine((text) => text.length <= MAX_CONTEXT_UNITS, {
        error: `context must be at most ${MAX_CONTEXT_UNITS} characters after trimming`,
        abort: true,
      }),
      z.refine((text) => !CONTROL_CHARACTER.test(text), {
        error: "context must not contain control or direction characters (line breaks are allowed)",
      }),
    ))();

/** At most this many reminders per question (each is a schedule, and a message in every chat). */
export const MAX_REMINDERS = 5;

const seconds = /* @__PURE__ */ (() =>
  z
    .int({ error: ruleMessage("must be a whole number of seconds") })
    .check(z.gte(1, { error: ruleMessage("must be at least 1 second") })))();

/**
 * When the owner is reminded, in seconds after the question was asked, each before its deadline (checked
 * against the timeout in lib/app/ask-question.ts).
 */
export const remindAfterSecondsSchema = /* @__PURE__ */ (() =>
  z
    .array(seconds)
    .check(
      z.maxLength(MAX_REMINDERS, { error: ruleMessage(`must list at most ${MAX_REMINDERS} reminders`) }),
    ))();

/**
 * Who else may answer, from when (`afterSeconds` after the question was asked, before its deadline), and
 * where that person is sent the question at that time.
 */
export const escalationSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    afterSeconds: seconds,
    owner: ownerSchema,
    deliverTo: z.array(deliveryTargetSchema).check(z.minLength(1), z.maxLength(10)),
  }))();
export type Escalation = z.infer<typeof escalationSchema>;

/**
 * The most copies of its prompt one question records: the targets it is asked at (the owner's, the
 * answerers', the groups' and the escalation's) and those posted later (a re-post, a step, the prompt for an
 * own answer, a template). A copy's ids run to hundreds of bytes: the cap keeps the record, and the event
 * that carries it, within their limits beside the votes (lib/questions/record-budget.ts).
 */
export const MAX_COPIES = 60;

/** At most this many answerers besides the owner; a quorum of at most this many agreeing answers. */
export const MAX_ANSWERERS = 9;
export const MAX_QUORUM = 10;

/** A chat whose members may each answer: anyone the platform shows acting in it. */
export const groupSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    channel: z.string().check(z.minLength(1), z.maxLength(32)),
    chatId: z.string().check(z.minLength(1), z.maxLength(256)),
  }))();
export type Group = z.infer<typeof groupSchema>;

/**
 * One more answerer, as the caller (never the model) names it: a person `{owner, deliverTo?}` (reached at
 * `deliverTo`, else by link only, as the owner is) or a group `{group: {channel, chatId}}`.
 */
export const answererEntrySchema = /* @__PURE__ */ (() =>
  z
    .strictObject({
      owner: z.optional(ownerSchema),
      deliverTo: z.optional(z.array(deliveryTargetSchema).check(z.maxLength(10))),
      group: z.optional(groupSchema),
    })
    .check(
      z.refine((entry) => (entry.owner === undefined) !== (entry.group === undefined), {
        error: ruleMessage("must be a person {owner, deliverTo?} or a group {group: {channel, chatId}}"),
      }),
      z.refine((entry) => entry.group === undefined || entry.deliverTo === undefined, {
        error: ruleMessage("is a group: its copy goes to the group's chat, so it takes no deliverTo"),
      }),
    ))();
export type AnswererEntry = z.infer<typeof answererEntrySchema>;

export const answerersSchema = /* @__PURE__ */ (() =>
  z
    .array(answererEntrySchema)
    .check(
      z.maxLength(MAX_ANSWERERS, { error: ruleMessage(`must list at most ${MAX_ANSWERERS} answerers`) }),
    ))();

/** How many agreeing answers close the question (1: the first answer from anyone allowed). */
export const quorumSchema = /* @__PURE__ */ (() =>
  z
    .int({ error: ruleMessage(`must be a whole number from 1 to ${MAX_QUORUM}`) })
    .check(
      z.gte(1, { error: ruleMessage(`must be a whole number from 1 to ${MAX_QUORUM}`) }),
      z.lte(MAX_QUORUM, { error: ruleMessage(`must be a whole number from 1 to ${MAX_QUORUM}`) }),
    ))();

/** Someone who may answer (or skip) a question, from `fromMs` on: a person, or anyone acting in a group. */
export const answererSchema = /* @__PURE__ */ (() =>
  z.union([
    z.object({ owner: z.string(), fromMs: z.int() }),
    z.object({ group: groupSchema, fromMs: z.int() }),
  ]))();
export type Answerer = z.infer<typeof answererSchema>;

/** `text` as the field's description in the API's OpenAPI document (lib/http/openapi.ts). */
const about = <T extends z.ZodMiniType>(schema: T, text: string): T => schema.check(z.describe(text));

/**
 * The question record as the store returns it and the API shows it (GET /questions/{id}, listings, events).
 * The record's type is inferred from it, so the API's description cannot drift from what is stored; each
 * optional field is absent (never `undefined`) when it does not apply.
 *
 * Only the OpenAPI description reads the schema itself; built by a call marked pure, it is left out of (and
 * not built at the start of) every other bundle, which its descriptions' method calls would otherwise keep.
 */
export const questionRecordSchema = /* @__PURE__ */ recordSchema();

function recordSchema() {
  return z.object({
    id: z.string().check(z.regex(RECORD_ID_PATTERN)),
    status: about(
      questionStatusSchema,
      "pending until the question ends; a pending question past its deadline reads as expired.",
    ),
    questions: about(z.array(questionSchema), "The questions in canonical form."),
    owner: about(z.string(), "Who may answer, platform-qualified (telegram:42, slack:T1:U1, web:alice)."),
    sessionKey: z.exactOptional(z.string()),
    agentId: z.exactOptional(z.string()),
    runId: z.exactOptional(z.string()),
    deliveries: about(z.array(deliverySchema), "One per target; messageId once the platform took the post."),
    createdAtMs: z.int(),
    expiresAtMs: about(z.int(), "The deadline, epoch milliseconds."),
    answers: z.exactOptional(answersSchema),
    /**
     * What the owner has chosen so far in a chat's stepper (one question at a time), by question id. Never an
     * answer: the last step submits all of them through the answer path, which alone sets `answers`. Shown
     * only while the question is pending; an answer or a cancel removes it from the item.
     */
    draft: z.exactOptional(
      about(answersSchema, "While pending: what the person has chosen so far in a chat's stepper."),
    ),
    /**
     * The stepper's step on screen when the draft was last written (a step answered, Back): a plain typed line
     * answers that question, not the first one the draft has no value for.
     */
    step: z.exactOptional(about(z.int().check(z.gte(0)), "While pending: the stepper's question on screen.")),
    /**
     * With more than one possible answerer (listed answerers, an escalation owner), each person's own stepper
     * in place of `draft` and `step`, by the answerer's identity: one person's partial choices never show in
     * another's (lib/app/handle-inbound.ts).
     */
    drafts: z.exactOptional(
      about(
        z.record(z.string(), z.object({ answers: answersSchema, step: z.int().check(z.gte(0)) })),
        "While pending, with several answerers: each person's stepper (chosen so far, question on screen).",
      ),
    ),
    /** Set when cancelled: `cancelled` or `skipped`. */
    reason: z.exactOptional(cancelReasonSchema),
    resolvedBy: z.exactOptional(
      about(z.string(), "Who ended it (telegram:42, web:alice, api:<resolvedBy>, …)."),
    ),
    /** The name of the API key a question API answer or cancel (or an MCP cancel) came with. */
    resolvedByKey: z.exactOptional(
      about(z.string(), "The API key an answer or cancel over the API came with."),
    ),
    resolvedAtMs: z.exactOptional(z.int()),
    /**
     * Who asked: `api:<key name>` (the question API and /mcp, lib/auth/api-keys.ts) or `run` (an AskUser task,
     * a durable run). An `ask` key sees only the questions it asked; an `answer` key answers any but those.
     */
    askedBy: z.exactOptional(about(z.string(), "api:<key name>, or run. Not in a listing.")),
    /**
     * The person on whose behalf the agent asked (an owner-form identity, given by the caller, never the model):
     * that person may never answer or skip it, even as its owner or escalation owner (separation of duties).
     */
    requestedBy: z.exactOptional(about(z.string(), "Who the agent asks for; they may never answer it.")),
    context: z.exactOptional(
      about(
        z.string(),
        "Who is asking and why, in the caller's words: shown above the questions everywhere.",
      ),
    ),
    /** Reminders, in seconds after `createdAtMs` (lib/app/fire-question-timer.ts). */
    remindAfterSeconds: z.exactOptional(remindAfterSecondsSchema),
    /** A second person who may answer from `createdAtMs + afterSeconds * 1000`, and where they are asked. */
    escalate: z.exactOptional(escalationSchema),
    /**
     * Who may answer, and from when: the owner from the start, then the escalation owner. Shown on a record
     * read by id; a pending listing leaves it out (the pending indexes do not carry the escalation).
     */
    answerers: z.exactOptional(
      about(z.array(answererSchema), "Who may answer, from when. Not in a listing."),
    ),
    /** How many agreeing answers close it; present only when more than one (lib/questions/votes.ts). */
    quorum: z.exactOptional(
      about(z.int().check(z.gte(2)), "Agreeing answers needed to close it; absent: the first answer closes."),
    ),
    /** The votes so far (present with `quorum`): one per person, in the order they were counted. */
    votes: z.exactOptional(
      about(z.array(voteSchema), "With quorum: each person's answers (or skip), in order."),
    ),
    /** Where its result is POSTed, signed, when it ends (lib/notify). */
    notify: z.exactOptional(z.object({ url: z.string() })),
  });
}
export type QuestionRecord = z.infer<typeof questionRecordSchema>;

/** When the escalation owner may answer (and is sent the question); undefined without an escalation. */
export function escalationAtMs(record: Pick<QuestionRecord, "createdAtMs" | "escalate">): number | undefined {
  return record.escalate && record.createdAtMs + record.escalate.afterSeconds * 1000;
}

/**
 * Who may answer the question, and from when: the owner and the answerers it was asked with from the start,
 * then the escalation owner. `askedAnswerers` is the caller's list as stored (lib/store/question-item.ts).
 */
export function answerersOf(
  source: Pick<QuestionRecord, "owner" | "createdAtMs" | "escalate"> & {
    askedAnswerers?: readonly AnswererEntry[] | undefined;
  },
): Answerer[] {
  const at = escalationAtMs(source);
  const asked = (source.askedAnswerers ?? []).flatMap((entry): Answerer[] => {
    if (entry.group) return [{ group: entry.group, fromMs: source.createdAtMs }];
    return entry.owner === undefined ? [] : [{ owner: entry.owner, fromMs: source.createdAtMs }];
  });
  return [
    { owner: source.owner, fromMs: source.createdAtMs },
    ...asked,
    ...(source.escalate && at !== undefined ? [{ owner: source.escalate.owner, fromMs: at }] : []),
  ];
}

/**
 * Where an answer comes from, when a group may answer: the chat the person acted in, or (`chatId` absent)
 * any chat of `channel` — for a person who holds their own link, made for them only after they were seen
 * acting in a group of the question (lib/app/handle-inbound.ts).
 */
export interface ActingIn {
  channel: string;
  chatId?: string | undefined;
}

/**
 * A link holder's answer: from any chat of their own platform (their link was made for them after they were
 * seen acting in one of the question's groups, or as a person answerer).
 */
export function viaOwnLink(actor: string): ActingIn {
  return { channel: actor.slice(0, Math.max(0, actor.indexOf(":"))) };
}

type WhoMayAnswer = Pick<QuestionRecord, "owner" | "createdAtMs" | "escalate" | "answerers">;

/**
 * Whether `actor` (a platform-qualified user) may answer or skip the question at `nowMs`: its owner and
 * its answerers always, a member of one of its groups acting `in` that group, its escalation owner from the
 * escalation time on. A record read without its answerers (a listing) allows only the owner and escalation.
 */
export function mayAnswer(record: WhoMayAnswer, actor: string, nowMs: number, actingIn?: ActingIn): boolean {
  return (record.answerers ?? answerersOf(record)).some((answerer) => {
    if (nowMs < answerer.fromMs) return false;
    if ("owner" in answerer) return answerer.owner === actor;
    return (
      actingIn !== undefined &&
      answerer.group.channel === actingIn.channel &&
      actor.startsWith(`${actingIn.channel}:`) &&
      (actingIn.chatId === undefined || answerer.group.chatId === actingIn.chatId)
    );
  });
}

/**
 * An identity as compared when the comparison refuses (the person a question was asked for): case aside, and
 * a Slack user by their user id alone, since Slack names a user of a shared channel or an Enterprise Grid
 * with their home team (`slack:T_home:U1`) where a request may have named the workspace's (`slack:T1:U1`).
 * An identity written differently must not slip past a refusal; an owner, who is allowed, is still matched
 * exactly (a mismatch there fails closed).
 */
function refusalKey(identity: string): string {
  const lower = identity.toLowerCase();
  const slack = /^slack:[^:]+:([^:]+)$/.exec(lower);
  return slack ? `slack:${slack[1]}` : lower;
}

/** Whether `identity` is the person the question was asked on behalf of (who may never answer it). */
export function isRequester(record: Pick<QuestionRecord, "requestedBy">, identity: string): boolean {
  return record.requestedBy !== undefined && refusalKey(record.requestedBy) === refusalKey(identity);
}

/**
 * Why `actor` (a platform-qualified user) may not answer or skip the question at `nowMs`, if not:
 * `requester` — the person it was asked on behalf of, never, whatever else they are; `not_answerer` —
 * neither its owner nor, from the escalation time, its escalation owner. undefined: they may.
 */
export function answerRefusal(
  record: WhoMayAnswer & Pick<QuestionRecord, "requestedBy">,
  actor: string,
  nowMs: number,
  actingIn?: ActingIn,
): "requester" | "not_answerer" | undefined {
  if (isRequester(record, actor)) return "requester";
  return mayAnswer(record, actor, nowMs, actingIn) ? undefined : "not_answerer";
}

/**
 * Whether no one but the requester could ever answer the question (its owner is the requester, and so is
 * every other answerer): such a question would wait for nobody, so it is refused when asked.
 */
export function onlyRequesterAnswers(
  record: Parameters<typeof answerersOf>[0] & Pick<QuestionRecord, "requestedBy">,
): boolean {
  return answerersOf(record).every((answerer) => "owner" in answerer && isRequester(record, answerer.owner));
}

/**
 * The people who may vote (each once), the person asked for aside: the owner, the person answerers and the
 * escalation owner. A group's members are not known in advance: with a group there is no such list.
 */
export function votersOf(record: WhoMayAnswer & Pick<QuestionRecord, "requestedBy">): string[] | undefined {
  const answerers = record.answerers ?? answerersOf(record);
  if (answerers.some((answerer) => "group" in answerer)) return undefined;
  const people = answerers.flatMap((answerer) => ("owner" in answerer ? [answerer.owner] : []));
  return [...new Set(people)].filter((person) => !isRequester(record, person));
}

/**
 * Reports a pending record past its deadline as expired: the expiry timer stores it within about a minute of
 * the deadline (or never, without timers), and TTL deletion is lazy; reads must not wait for either.
 */
export function statusAt(stored: StoredStatus, expiresAtMs: number, nowMs: number): QuestionStatus {
  return stored === "pending" && nowMs >= expiresAtMs ? "expired" : stored;
}

/**
 * Where a chat's stepper starts when the prompt is posted (again): the first question the draft holds no
 * value for, else the first.
 */
export function firstOpenStep(record: Pick<QuestionRecord, "questions" | "draft">): number {
  return Math.max(
    0,
    record.questions.findIndex((q) => !Object.hasOwn(record.draft ?? {}, q.id)),
  );
}

/**
 * The question as `person`'s stepper sees it: with several answerers (`drafts`), their own draft and step
 * as `draft` and `step`, nobody else's; a question of one answerer is returned as it is.
 */
export function asSeenBy(record: QuestionRecord, person: string): QuestionRecord {
  if (record.drafts === undefined) return record;
  const { draft: _draft, step: _step, ...rest } = record;
  const own = record.drafts[person];
  return own === undefined ? rest : { ...rest, draft: own.answers, step: own.step };
}
