/**
 * An interaction event from Google Chat, already authenticated (gchat-auth.ts), turned into the one inbound
 * type: a click on a card's button (`CARD_CLICKED`, its action's `control` parameter and the card's inputs)
 * or a typed message (`MESSAGE`). The rest (`ADDED_TO_SPACE`, `REMOVED_FROM_SPACE`, …) is no answer.
 */

import { createHash } from "node:crypto";
import { parseJsonBody } from "../../http/webhook-prelude.ts";
import type { QuestionRecord } from "../../questions/question-record.ts";
import type { Answers } from "../../questions/schema.ts";
import * as z from "../../zod.ts";
import { type Control, cardTapInbound, decodeControl, inputsInbound } from "../control-codec.ts";
import { cardValues, type Inbound, stepAnswers } from "../inbound.ts";
import { isAppDirectMessage, SPACE_NAME } from "./gchat-api.ts";
import { CONTROL_PARAMETER, choiceInputName, otherInputName } from "./gchat-render.ts";

/** A person's resource name, as events carry it (`users/<numeric id>`): the owner is `gchat:` and this. */
const USER_NAME = /^users\/[0-9]{1,64}$/;

const userSchema = z.looseObject({
  name: z.string().check(z.maxLength(128)),
  type: z.optional(z.string()),
});

export const eventSchema = z.looseObject({
  type: z.string(),
  eventTime: z.optional(z.string().check(z.maxLength(64))),
  space: z.optional(
    z.looseObject({
      name: z.string().check(z.maxLength(160)),
      /** `DIRECT_MESSAGE`, `SPACE`, `GROUP_CHAT` (and the older `type`: `DM`, `ROOM`). */
      spaceType: z.optional(z.string()),
      type: z.optional(z.string()),
      singleUserBotDm: z.optional(z.boolean()),
    }),
  ),
  user: z.optional(userSchema),
  message: z.optional(
    z.looseObject({
      name: z.optional(z.string().check(z.maxLength(300))),
      text: z.optional(z.string()),
      /** The text less the app's @mention. */
      argumentText: z.optional(z.string()),
      thread: z.optional(z.looseObject({ name: z.optional(z.string()) })),
      slashCommand: z.optional(z.unknown()),
      annotations: z.optional(
        z.array(
          z.looseObject({
            type: z.optional(z.string()),
            userMention: z.optional(z.looseObject({ user: z.optional(userSchema) })),
          }),
        ),
      ),
    }),
  ),
  common: z.optional(
    z.looseObject({
      invokedFunction: z.optional(z.string()),
      parameters: z.optional(z.record(z.string(), z.string())),
      formInputs: z.optional(z.record(z.string(), z.unknown())),
    }),
  ),
});
export type GchatEvent = z.infer<typeof eventSchema>;

/** The Chat event in a request body, or undefined when the body is not one. */
export function parseEvent(body: Buffer): GchatEvent | undefined {
  return parseJsonBody(eventSchema, body);
}

/** Whether the event comes from the app's direct message with one person (delivery's rule, gchat-api.ts). */
export function isDirectMessage(event: GchatEvent): boolean {
  return isAppDirectMessage(event.space);
}

/** The control a click carries, if it is a click on one of Handraise's cards. */
export function controlOf(event: GchatEvent): Control | undefined {
  const value = event.common?.parameters?.[CONTROL_PARAMETER];
  return value === undefined || value.length > 64 ? undefined : decodeControl(value);
}

/** The values of a card input, as Chat sends them (`formInputs.<name>.stringInputs.value`). */
function inputValues(event: GchatEvent, name: string): string[] {
  const input = event.common?.formInputs?.[name] as { stringInputs?: { value?: unknown } } | undefined;
  const values = input?.stringInputs?.value;
  return Array.isArray(values) ? values.filter((v): v is string => typeof v === "string") : [];
}

/**
 * The answers a click's inputs give question `questionIndex`, read against the record (`cardValues`): the
 * ticked boxes' values are option positions; the own-answer box adds its text.
 */
export function formAnswers(record: QuestionRecord, questionIndex: number, event: GchatEvent): Answers {
  return stepAnswers(record, questionIndex, (question) =>
    cardValues(
      question,
      inputValues(event, choiceInputName(questionIndex)),
      inputValues(event, otherInputName(questionIndex)).join(", "),
    ),
  );
}

/**
 * A click that sent the card's inputs, read against its question: what was ticked or typed answers the
 * clicked step; with nothing ticked or typed it is the control itself (`inputsInbound`).
 */
export function withInputs(
  inbound: Extract<Inbound, { kind: "form" }>,
  control: Control,
  record: QuestionRecord,
  event: GchatEvent,
): Inbound {
  const answers = formAnswers(record, control.questionIndex, event);
  return inputsInbound(inbound, control, answers, record.questions.length > 1);
}

const hashOf = (...parts: string[]) =>
  createHash("sha256").update(parts.join("\n")).digest("hex").slice(0, 40);

/** Whether a message speaks to the app: in its direct message, by @mention, or as a slash command. */
function isAddressed(event: GchatEvent): boolean {
  const mentionsApp = (event.message?.annotations ?? []).some(
    (a) => a.type === "USER_MENTION" && a.userMention?.user?.type === "BOT",
  );
  return isDirectMessage(event) || mentionsApp || event.message?.slashCommand !== undefined;
}

/**
 * The inbound event of a Chat event, or undefined when it is nothing to answer: not a click or a message,
 * not from a person, not in a space, or a click on something not Handraise's. A click on an option, Back,
 * Skip or "Answer in browser" is a `control`; one that sends the card's inputs (Done, Send) is a `form`
 * whose answers `withInputs` reads once the question is known (`cardTapInbound`).
 */
export function eventToInbound(event: GchatEvent): { inbound: Inbound; control?: Control } | undefined {
  const user = event.user;
  const space = event.space?.name;
  if (!user || user.type === "BOT" || !USER_NAME.test(user.name)) return undefined;
  if (space === undefined || !SPACE_NAME.test(space)) return undefined;
  const base = { platform: "gchat" as const, actor: `gchat:${user.name}`, chatId: space };
  if (event.type === "CARD_CLICKED") {
    const control = controlOf(event);
    if (!control) return undefined;
    // Chat names no delivery id: the click is its message, person, moment and control.
    const dedupeKey = hashOf(
      event.message?.name ?? "",
      user.name,
      event.eventTime ?? "",
      event.common?.parameters?.[CONTROL_PARAMETER] ?? "",
    );
    return { inbound: cardTapInbound({ ...base, dedupeKey }, control), control };
  }
  if (event.type !== "MESSAGE") return undefined;
  const text = (event.message?.argumentText ?? event.message?.text ?? "").trim();
  if (text === "") return undefined;
  const messageName = event.message?.name;
  return {
    inbound: {
      ...base,
      ...(messageName !== undefined && { dedupeKey: hashOf(messageName) }),
      kind: "text",
      text,
      // Chat sends an app only what is said to it (its direct message, an @mention, a slash command);
      // anything else is conversation, whatever reaches the webhook.
      addressed: isAddressed(event),
    },
  };
}
