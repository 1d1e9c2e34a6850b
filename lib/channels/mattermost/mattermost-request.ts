/**
 * Everything Mattermost sends to `POST /webhooks/mattermost`, told apart by content type and shape, verified,
 * then parsed (docs/channels.md, "Mattermost"): button taps (JSON with `context`), dialog submissions (JSON,
 * `type: "dialog_submission"`), slash commands (form with `command`) and outgoing-webhook messages (form or
 * JSON with `token`). Failed verification → 401; a verified body of the wrong shape → 400.
 */
import { HttpError } from "../../http/http-errors.ts";
import { type Answers, QUESTION_ID_PATTERN } from "../../questions/schema.ts";
import * as z from "../../zod.ts";
import { otherElementName } from "./mattermost-render.ts";
import {
  type SignedActionContext,
  tokenFromAuthorization,
  tokenMatches,
  verifyContext,
} from "./mattermost-signature.ts";

export type MattermostRequest =
  | {
      kind: "action";
      context: SignedActionContext;
      userId: string;
      channelId: string;
      postId: string;
      triggerId?: string | undefined;
    }
  | {
      kind: "dialog";
      context: SignedActionContext;
      userId: string;
      channelId: string;
      answers: Answers;
      cancelled: boolean;
    }
  | { kind: "command"; userId: string; channelId: string; text: string; triggerId?: string | undefined }
  | {
      kind: "message";
      /** Who and where the body claims; the webhook reads the post itself and believes only that. */
      userId: string;
      channelId: string;
      postId: string;
      /** The outgoing webhook's trigger word, if it has one; "" otherwise. */
      triggerWord: string;
    };

export interface Verification {
  /** MATTERMOST_ACTION_SECRET: taps and dialog submissions must carry a context signed with it. */
  actionSecret: string | undefined;
  /** The slash command's and outgoing webhooks' tokens; empty: no command or message is accepted. */
  tokens: readonly string[];
}

/** Mattermost ids are 26 lowercase letters and digits; they go into index keys and URL paths, so be strict. */
const id = z.string().check(z.regex(/^[A-Za-z0-9]{1,64}$/));
// The whole body is at most MAX_BODY_BYTES, which bounds every field.
const sender = { user_id: id, channel_id: id };
const actionSchema = z.object({ ...sender, post_id: id, trigger_id: z.optional(z.string()) });
const dialogSchema = z.object({
  ...sender,
  submission: z.nullish(z.record(z.string(), z.unknown())),
  cancelled: z.optional(z.boolean()),
});
const commandSchema = z.object({
  ...sender,
  text: z._default(z.string(), ""),
  trigger_id: z.optional(z.string()),
});
// The body's `text` and `root_id` are not read: the post, fetched from the API, says what was written where.
const messageSchema = z.object({
  ...sender,
  post_id: id,
  trigger_word: z._default(z.string(), ""),
});

const UNVERIFIED = "Missing or wrong Mattermost action signature or token.";
const unauthorized = () => new HttpError(401, "UNAUTHORIZED", UNVERIFIED);

export function readMattermostRequest(
  headers: Record<string, string | undefined>,
  raw: Buffer,
  verification: Verification,
): MattermostRequest {
  const text = raw.toString("utf8");
  if ((headers["content-type"] ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    const form = Object.fromEntries(new URLSearchParams(text));
    if (form.command !== undefined) {
      const presented = tokenFromAuthorization(headers.authorization) ?? form.token;
      if (!tokenMatches(presented, verification.tokens)) throw unauthorized();
      return command(form);
    }
    if (!tokenMatches(form.token, verification.tokens)) throw unauthorized();
    return message(form);
  }

  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw unauthorized();
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw unauthorized();
  }
  const fields = body as Record<string, unknown>;
  if (fields.type === "dialog_submission") {
    const context = verifyContext(verification.actionSecret, parseState(fields.state));
    if (context?.option !== "dialog") throw unauthorized();
    return dialog(context, fields);
  }
  if (fields.context !== undefined) {
    const context = verifyContext(verification.actionSecret, fields.context);
    if (!context || context.option === "dialog") throw unauthorized();
    return action(context, fields);
  }
  if (typeof fields.token === "string") {
    if (!tokenMatches(fields.token, verification.tokens)) throw unauthorized();
    return message(fields);
  }
  throw unauthorized();
}

function parseState(state: unknown): unknown {
  if (typeof state !== "string") return undefined;
  try {
    return JSON.parse(state);
  } catch {
    return undefined;
  }
}

/** A verified body that lacks what its kind must carry: 400, never 500. */
function parsed<T extends z.ZodMiniType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new HttpError(400, "INVALID_REQUEST", "The body is not a Mattermost request.");
  return result.data;
}

function action(context: SignedActionContext, fields: unknown): MattermostRequest {
  const body = parsed(actionSchema, fields);
  return {
    kind: "action",
    context,
    userId: body.user_id,
    channelId: body.channel_id,
    postId: body.post_id,
    triggerId: body.trigger_id || undefined,
  };
}

function dialog(context: SignedActionContext, fields: unknown): MattermostRequest {
  const body = parsed(dialogSchema, fields);
  return {
    kind: "dialog",
    context,
    userId: body.user_id,
    channelId: body.channel_id,
    answers: submissionAnswers(body.submission ?? {}),
    cancelled: body.cancelled === true,
  };
}

function command(fields: unknown): MattermostRequest {
  const body = parsed(commandSchema, fields);
  return {
    kind: "command",
    userId: body.user_id,
    channelId: body.channel_id,
    text: body.text,
    triggerId: body.trigger_id || undefined,
  };
}

function message(fields: unknown): MattermostRequest {
  const body = parsed(messageSchema, fields);
  return {
    kind: "message",
    userId: body.user_id,
    channelId: body.channel_id,
    postId: body.post_id,
    triggerWord: body.trigger_word,
  };
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
