/**
 * Mattermost signs nothing it sends to integrations (docs/channels.md, "Mattermost"), so Handraise signs its
 * own controls:
 * every button's private `integration.context` (stripped from posts before they reach clients) and every
 * dialog's `state` carry `sig = hex(HMAC-SHA256(MATTERMOST_ACTION_SECRET, "<questionId>|<sub>|<option>"))`
 * (docs/channels.md, "Mattermost"). Slash commands and outgoing webhooks present a token Mattermost generated, compared
 * timing-safely. Pure functions of their inputs.
 */
import { createHmac } from "node:crypto";
import { safeEqual } from "../../http/safe-equal.ts";
import * as z from "../../zod.ts";

/**
 * What a control stands for: an option index (`0`–`3`), `other` (free-text dialog), `choose` (multi-select
 * dialog), `form` (one dialog for several questions), `skip`, or `dialog` (the state of an opened dialog).
 */
export const ACTION_OPTION = /^(?:[0-3]|other|choose|form|skip|dialog)$/;

export interface ActionContext {
  questionId: string;
  /** The sub-question's position in the record. */
  sub: number;
  option: string;
}
export interface SignedActionContext extends ActionContext {
  sig: string;
}

/** The shape a signed context must have before its signature is even computed. */
export const signedContextSchema = z.object({
  questionId: z.string().check(z.regex(/^[A-Za-z0-9_-]{1,48}$/)),
  sub: z.number().check(z.int(), z.gte(0), z.lte(2)),
  option: z.string().check(z.regex(ACTION_OPTION)),
  sig: z.string().check(z.maxLength(128)),
});

/** The signed basestring: the fields joined by `|` (question ids cannot contain one). */
export function actionBasestring(context: ActionContext): string {
  return `${context.questionId}|${context.sub}|${context.option}`;
}

export function signAction(secret: string, context: ActionContext): string {
  return createHmac("sha256", secret).update(actionBasestring(context), "utf8").digest("hex");
}

/**
 * @example
 * signContext("k", { questionId: "ask_1", sub: 0, option: "1" })
 * // → { questionId: "ask_1", sub: 0, option: "1", sig: "<64 hex>" }
 */
export function signContext(secret: string, context: ActionContext): SignedActionContext {
  return {
    questionId: context.questionId,
    sub: context.sub,
    option: context.option,
    sig: signAction(secret, context),
  };
}

/**
 * A context from a request, checked: its shape, then its signature (timing-safe). Undefined when either
 * fails or no secret is configured — the caller answers 401.
 */
export function verifyContext(secret: string | undefined, context: unknown): SignedActionContext | undefined {
  if (secret === undefined) return undefined;
  const parsed = signedContextSchema.safeParse(context);
  if (!parsed.success) return undefined;
  return safeEqual(parsed.data.sig, signAction(secret, parsed.data)) ? parsed.data : undefined;
}

/**
 * MATTERMOST_COMMAND_TOKEN: the slash command's token, and — comma-separated after it — the tokens of
 * outgoing webhooks whose messages Handraise reads (Mattermost generates each token; one value cannot serve
 * both).
 */
export function parseTokenList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((token) => token.trim())
    .filter((token) => token.length > 0);
}

/** Whether `presented` equals one of the configured tokens; compares against every one (no early exit). */
export function tokenMatches(presented: string | undefined, configured: readonly string[]): boolean {
  if (presented === undefined || presented === "") return false;
  let match = false;
  for (const token of configured) match = safeEqual(presented, token) || match;
  return match;
}

/** `Authorization: Token <token>` (slash commands) → the token; anything else → undefined. */
export function tokenFromAuthorization(header: string | undefined): string | undefined {
  const match = /^Token\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}
