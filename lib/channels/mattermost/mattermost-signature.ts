/**
 * Mattermost signs nothing it sends to integrations (docs/channels.md, "Mattermost"), so Handraise signs its
 * own controls. Every button's private `integration.context` (stripped from posts before they reach clients)
 * carries a control of the one codec (lib/channels/control-codec.ts) and
 * `sig = hex(HMAC-SHA256(MATTERMOST_ACTION_SECRET, "action|<control>"))`; every dialog's `state` carries the
 * control that opened it, the post it was opened from, who tapped, in which channel, and when, with `sig` over
 * `"dialog|<control>|<post id>|<user id>|<channel id>|<issued at ms>"`, so a button's context never passes for
 * a dialog's state. Unlike a button's context, a dialog's state reaches the tapper's client, so it is bound to
 * that tapper and channel and expires (`dialogStateProblem`). Slash commands and outgoing webhooks present a token
 * Mattermost generated, compared timing-safely against the tokens of their own kind only. Pure functions of
 * their inputs.
 */
import { createHmac } from "node:crypto";
import { safeEqual } from "../../http/safe-equal.ts";
import * as z from "../../zod.ts";
import { type Control, decodeControl, encodeControl } from "../control-codec.ts";

/** A button's context: one control, signed. */
export interface SignedControl {
  control: string;
  sig: string;
}

/**
 * An opened dialog's state: the control that opened it (Other…, Choose…), the post it was opened from, the
 * user whose tap opened it, the channel of that tap, and when (epoch ms).
 */
export interface DialogState {
  control: Control;
  postId: string;
  userId: string;
  channelId: string;
  issuedAtMs: number;
}

/**
 * How long a dialog's state is accepted after its tap. A dialog is filled in at once; its state stays
 * readable in the tapper's client, so an old one is more likely a copy replayed than a form still open.
 */
export const MAX_DIALOG_AGE_MS = 15 * 60_000;

const sig = z.string().check(z.maxLength(128));
const controlSchema = z.object({ control: z.string().check(z.maxLength(64)), sig });
const mattermostId = z.string().check(z.regex(/^[A-Za-z0-9]{1,64}$/));
const stateSchema = z.object({
  control: z.string().check(z.maxLength(64)),
  postId: mattermostId,
  userId: mattermostId,
  channelId: mattermostId,
  issuedAtMs: z.int().check(z.gte(0)),
  sig,
});

const hmac = (secret: string, message: string) =>
  createHmac("sha256", secret).update(message, "utf8").digest("hex");

/**
 * @example
 * signControl("k", { kind: "option", questionId: "ask_1", questionIndex: 0, optionIndex: 1 })
 * // → { control: "o|0|1|ask_1", sig: "<64 hex>" }
 */
export function signControl(secret: string, control: Control): SignedControl {
  const encoded = encodeControl(control);
  return { control: encoded, sig: hmac(secret, `action|${encoded}`) };
}

/**
 * A button's context from a request, checked: its shape, its signature (timing-safe), then the control it
 * names. Undefined when any fails or no secret is configured — the request is refused.
 */
export function verifyControl(secret: string | undefined, context: unknown): Control | undefined {
  if (secret === undefined) return undefined;
  const parsed = controlSchema.safeParse(context);
  if (!parsed.success || !safeEqual(parsed.data.sig, hmac(secret, `action|${parsed.data.control}`))) {
    return undefined;
  }
  return decodeControl(parsed.data.control);
}

const dialogMessage = (control: string, state: Omit<DialogState, "control">) =>
  `dialog|${control}|${state.postId}|${state.userId}|${state.channelId}|${state.issuedAtMs}`;

/** A dialog's `state` (Mattermost hands it back with the submission as the string it was given). */
export function signDialogState(secret: string, state: DialogState): string {
  const control = encodeControl(state.control);
  const { postId, userId, channelId, issuedAtMs } = state;
  return JSON.stringify({
    control,
    postId,
    userId,
    channelId,
    issuedAtMs,
    sig: hmac(secret, dialogMessage(control, state)),
  });
}

/**
 * A submitted dialog's state, checked like a button's context; undefined when it is not one we signed. Whether
 * it may be used by this submission is `dialogStateProblem`'s to say.
 */
export function verifyDialogState(secret: string | undefined, state: unknown): DialogState | undefined {
  if (secret === undefined || typeof state !== "string") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(state);
  } catch {
    return undefined;
  }
  const parsed = stateSchema.safeParse(value);
  if (!parsed.success) return undefined;
  const { control, sig: presented, ...rest } = parsed.data;
  if (!safeEqual(presented, hmac(secret, dialogMessage(control, rest)))) return undefined;
  const decoded = decodeControl(control);
  return decoded && { control: decoded, ...rest };
}

/**
 * Why a signed dialog state may not be used by a submission; undefined when it may. Mattermost sets a form
 * submission's `user_id` from the session and sends it from the channel of the tap, so a genuine submission
 * matches its state; anyone else who read the state in their client and posts it as another user, or from
 * another channel, does not.
 */
export function dialogStateProblem(
  state: DialogState,
  submission: { userId: string; channelId: string },
  nowMs: number,
): "another user" | "another channel" | "expired" | undefined {
  if (state.userId !== submission.userId) return "another user";
  if (state.channelId !== submission.channelId) return "another channel";
  if (nowMs - state.issuedAtMs > MAX_DIALOG_AGE_MS) return "expired";
  return undefined;
}

/**
 * MATTERMOST_COMMAND_TOKEN (slash commands) or MATTERMOST_OUTGOING_TOKEN (outgoing webhooks) → its tokens:
 * comma-separated, since Mattermost generates one per command or webhook and a rotation holds two a while.
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
