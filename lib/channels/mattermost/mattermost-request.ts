/**
 * Everything Mattermost sends to `POST /webhooks/mattermost`, told apart by content type and shape, verified,
 * then parsed (docs/channels.md, "Mattermost"): button taps (JSON with `context`), dialog submissions (JSON,
 * `type: "dialog_submission"`), slash commands (form with `command`, a command token) and outgoing-webhook
 * messages (form or JSON with `token`, an outgoing webhook's token). The webhook prelude refuses what fails
 * verification (401); a verified body of the wrong shape → 400.
 */

import { HttpError } from "../../http/http-errors.ts";
import type { WebhookRequest } from "../../http/webhook-prelude.ts";
import { type Answers, QUESTION_ID_PATTERN } from "../../questions/schema.ts";
import * as z from "../../zod.ts";
import type { Control } from "../control-codec.ts";
import { otherElementName } from "./mattermost-render.ts";
import {
  type DialogState,
  tokenFromAuthorization,
  tokenMatches,
  verifyControl,
  verifyDialogState,
} from "./mattermost-signature.ts";

/** Who sent it and where, as the body claims (the webhook believes it only as far as the API confirms it). */
interface Sender {
  userId: string;
  channelId: string;
}

export type MattermostRequest =
  | (Sender & { kind: "action"; control: Control; postId: string; triggerId?: string | undefined })
  | (Sender & { kind: "dialog"; state: DialogState; answers: Answers; cancelled: boolean })
  | (Sender & { kind: "command"; text: string; triggerId?: string | undefined })
  | (Sender & {
      kind: "message";
      postId: string;
      /** The outgoing webhook's trigger word, if it has one; "" otherwise. */
      triggerWord: string;
    });

/**
 * What proves each kind of request. A token proves one kind only: a slash command's token never passes for
 * an outgoing webhook's, nor the reverse, so whoever holds one cannot send the other kind.
 */
export interface Verification {
  /** MATTERMOST_ACTION_SECRET: taps and dialog submissions must carry a context signed with it. */
  actionSecret: string | undefined;
  /** MATTERMOST_COMMAND_TOKEN: slash commands' tokens; empty: no command is accepted. */
  commandTokens: readonly string[];
  /** MATTERMOST_OUTGOING_TOKEN: outgoing webhooks' tokens; empty: no message is accepted. */
  outgoingTokens: readonly string[];
}

/** Mattermost ids are 26 lowercase letters and digits; they go into index keys and URL paths, so be strict. */
const id = z.string().check(z.regex(/^[A-Za-z0-9]{1,64}$/));
// The whole body is at most the prelude's limit, which bounds every field.
const senderFields = { user_id: id, channel_id: id };
const actionSchema = z.object({ ...senderFields, post_id: id, trigger_id: z.optional(z.string()) });
const dialogSchema = z.object({
  ...senderFields,
  submission: z.nullish(z.record(z.string(), z.unknown())),
  cancelled: z.optional(z.boolean()),
});
const commandSchema = z.object({
  ...senderFields,
  text: z._default(z.string(), ""),
  trigger_id: z.optional(z.string()),
});
// The body's `text` and `root_id` are not read: the post, fetched from the API, says what was written where.
const messageSchema = z.object({
  ...senderFields,
  post_id: id,
  trigger_word: z._default(z.string(), ""),
});

/** The 401's message: which proof was missing or wrong. */
export const MATTERMOST_REFUSAL = "Missing or wrong Mattermost action signature or token.";

/**
 * The request a body is, once its proof — a signed context or state, a token — checks out; undefined when it
 * does not (the prelude answers 401). Pure, so the prelude's verification and the handler read it alike.
 */
export function readMattermostRequest(
  { headers, body: raw }: Pick<WebhookRequest, "headers" | "body">,
  verification: Verification,
): MattermostRequest | undefined {
  const text = raw.toString("utf8");
  if ((headers["content-type"] ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    const form = Object.fromEntries(new URLSearchParams(text));
    if (form.command !== undefined) {
      const presented = tokenFromAuthorization(headers.authorization) ?? form.token;
      if (!tokenMatches(presented, verification.commandTokens)) return undefined;
      return command(form);
    }
    return tokenMatches(form.token, verification.outgoingTokens) ? message(form) : undefined;
  }

  let fields: unknown;
  try {
    fields = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) return undefined;
  const { type, state, context, token } = fields as Record<string, unknown>;
  if (type === "dialog_submission") {
    const verified = verifyDialogState(verification.actionSecret, state);
    if (!verified) return undefined;
    const body = parsed(dialogSchema, fields);
    return {
      kind: "dialog",
      state: verified,
      ...sender(body),
      answers: submissionAnswers(body.submission ?? {}),
      cancelled: body.cancelled === true,
    };
  }
  if (context !== undefined) {
    const control = verifyControl(verification.actionSecret, context);
    if (!control) return undefined;
    const body = parsed(actionSchema, fields);
    return {
      kind: "action",
      control,
      ...sender(body),
      postId: body.post_id,
      triggerId: body.trigger_id || undefined,
    };
  }
  if (typeof token === "string" && tokenMatches(token, verification.outgoingTokens)) return message(fields);
  return undefined;
}

/** A verified body that lacks what its kind must carry: 400, never 500. */
function parsed<T extends z.ZodMiniType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new HttpError(400, "INVALID_REQUEST", "The body is not a Mattermost request.");
  return result.data;
}

const sender = (body: { user_id: string; channel_id: string }): Sender => ({
  userId: body.user_id,
  channelId: body.channel_id,
});

function command(fields: unknown): MattermostRequest {
  const body = parsed(commandSchema, fields);
  return { kind: "command", ...sender(body), text: body.text, triggerId: body.trigger_id || undefined };
}

function message(fields: unknown): MattermostRequest {
  const body = parsed(messageSchema, fields);
  return { kind: "message", ...sender(body), postId: body.post_id, triggerWord: body.trigger_word };
}

/**
 * A post's message as the answer: a trigger-word webhook fires on messages that start with the word, which
 * is not part of the answer.
 *
 * @example
 * postText("answer Production", "answer") // → " Production"
 */
export function postText(message: string, triggerWord: string): string {
  return triggerWord !== "" && message.startsWith(triggerWord) ? message.slice(triggerWord.length) : message;
}

/**
 * Where `text` mentions `@<username>` the way Mattermost highlights it: case-insensitive, not inside a longer
 * name (usernames may contain `.`, `-` and `_`; a sentence's final `.` does not count as part of one).
 */
export function findMention(text: string, username: string): { index: number; length: number } | undefined {
  const name = username.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&");
  const match = new RegExp(`(^|[^\\w.@-])(@${name})(?![\\w-]|\\.[\\w])`, "i").exec(text);
  if (!match?.[2]) return undefined;
  return { index: match.index + (match[1]?.length ?? 0), length: match[2].length };
}

/** "@handraise 2" → "2"; a mention later in the text stays part of it. */
export function withoutLeadingMention(text: string, username: string): string {
  const mention = findMention(text, username);
  if (!mention || text.slice(0, mention.index).trim() !== "") return text;
  return text.slice(mention.index + mention.length).replace(/^[\s:,]+/, "");
}

/**
 * A dialog's fields → answers: `<question id>` holds the chosen label(s) (a string, or an array from a
 * multi-select), `<question id>:other` the typed text. Blank values are dropped; which questions are still
 * unanswered is for validation to say.
 */
export function submissionAnswers(submission: Record<string, unknown>): Answers {
  const answers: Answers = {};
  const add = (questionId: string, value: unknown) => {
    if (!QUESTION_ID_PATTERN.test(questionId)) return;
    const values = (Array.isArray(value) ? value : [value]).filter(
      (item): item is string => typeof item === "string" && item.trim() !== "",
    );
    if (values.length > 0) answers[questionId] = [...(answers[questionId] ?? []), ...values];
  };
  const names = Object.keys(submission);
  // Chosen options first, then the own answer, whatever order the fields arrived in.
  for (const name of names) if (!name.endsWith(":other")) add(name, submission[name]);
  for (const name of names) {
    if (name.endsWith(":other")) {
      const questionId = name.slice(0, -":other".length);
      if (otherElementName(questionId) === name) add(questionId, submission[name]);
    }
  }
  return answers;
}
