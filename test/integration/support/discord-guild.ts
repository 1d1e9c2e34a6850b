/**
 * A Discord guild as the bot sees it, for the Discord tests in process (discord.test.ts) and on the local
 * stack (discord-e2e.test.ts): what the fake Discord answers (the bot's DMs and group DMs included), and the
 * interactions Discord sends the webhook — taps, modal submissions, slash commands — signed and dated by the
 * clock the test gives.
 */
import { expect } from "vitest";
import vectors from "../../fixtures/signature-vectors.json" with { type: "json" };
import type { FakeReply, RecordedCall } from "./fake-platform.ts";
import { discordSignature } from "./signing.ts";

export const PUBLIC_KEY = vectors.discord_generated.public_key;
export const BOT_TOKEN = "MTA5.test-bot-token";
export const APPLICATION_ID = "111111111111111111";
export const GUILD_ID = "290926798626357999";
export const OWNER_ID = "53908232506183680";
export const OTHER_USER_ID = "80351110224678912";

export const postsMessage = (call: RecordedCall) =>
  call.verb === "POST" && /^\/channels\/\d+\/messages$/.test(call.path);
export const editsMessage = (call: RecordedCall) =>
  call.verb === "PATCH" && /^\/channels\/\d+\/messages\/\d+$/.test(call.path);
export const readsChannel = (call: RecordedCall) =>
  call.verb === "GET" && /^\/channels\/\d+$/.test(call.path);

export type Component = {
  type: number;
  label?: string;
  custom_id?: string;
  components?: Component[];
} & Record<string, any>;
export const controls = (post: RecordedCall): Component[] =>
  (post.body.components as Component[]).flatMap((row) => row.components ?? []);
export const customId = (post: RecordedCall, label: string) => {
  const found = controls(post).find((c) => c.label === label);
  if (!found?.custom_id) throw new Error(`no control ${label}`);
  return found.custom_id;
};
/** An ephemeral reply (flags 64) that mentions no one. */
export const privateNotice = (text: string) => ({
  type: 4,
  data: expect.objectContaining({ content: text, flags: 64, allowed_mentions: { parse: [] } }),
});

export interface SendOptions {
  /** Unix seconds; default now. */
  timestamp?: number;
  /** `none`: no signature headers; `tampered`: one flipped hex digit; `other-body`: signs something else. */
  signature?: "valid" | "none" | "tampered" | "other-body";
}

export interface Actor {
  /** Default the owner. */
  user?: string;
  /** A DM: `user` instead of `member.user`. */
  dm?: boolean;
}
const who = ({ user = OWNER_ID, dm = false }: Actor) =>
  dm
    ? { user: { id: user, username: "ann" } }
    : { guild_id: GUILD_ID, member: { user: { id: user, username: "ann" }, roles: [], permissions: "0" } };

export interface DiscordGuildOptions {
  /** The channel an interaction is in unless it says another (each test talks in one of its own). */
  channel: () => string;
  /** Epoch ms: the clock interactions are signed by. */
  now: () => number;
  /** Delivers a request to the stack's Discord webhook. */
  post: (body: string, headers: Record<string, string>) => Promise<{ status: number; text: string }>;
}

export function discordGuild(options: DiscordGuildOptions) {
  let snowflake = 1_199_999_999_999_990_000n;
  const nextSnowflake = () => String(++snowflake);

  /** The bot's DM channels the fake Discord knows: channel id → the one user it is with. */
  const dms = new Map<string, string>();
  /** Group DMs (type 3) the fake Discord knows: channel id → its users. */
  const groupDms = new Map<string, string[]>();
  /** A channel as `GET /channels/{id}` describes it: a DM, a group DM, else a guild text channel. */
  function channelObject(id: string) {
    const dm = dms.get(id);
    if (dm !== undefined) return { id, type: 1, recipients: [{ id: dm, username: "ann" }] };
    const group = groupDms.get(id);
    if (group !== undefined) return { id, type: 3, recipients: group.map((user) => ({ id: user })) };
    return { id, type: 0, guild_id: GUILD_ID, name: "dev" };
  }
  /** What the fake Discord answers, at once. */
  const fastDiscord = (call: RecordedCall): FakeReply =>
    postsMessage(call)
      ? { body: { id: nextSnowflake(), channel_id: call.path.split("/")[2] } }
      : readsChannel(call)
        ? { body: channelObject(call.method) }
        : { body: { id: call.method } };

  /** POSTs an interaction to the stack's Discord webhook, signed like Discord signs it. */
  async function send(payload: unknown, sendOptions: SendOptions = {}) {
    const body = typeof payload === "string" ? payload : JSON.stringify(payload);
    const timestamp = String(sendOptions.timestamp ?? Math.floor(options.now() / 1000));
    const signed = sendOptions.signature === "other-body" ? '{"type":2}' : body;
    let signature = discordSignature(timestamp, signed);
    if (sendOptions.signature === "tampered")
      signature = `${signature.slice(0, -1)}${signature.endsWith("0") ? "1" : "0"}`;
    const started = performance.now();
    const response = await options.post(body, {
      "content-type": "application/json",
      ...(sendOptions.signature !== "none" && {
        "x-signature-ed25519": signature,
        "x-signature-timestamp": timestamp,
      }),
    });
    return {
      status: response.status,
      body: response.text ? JSON.parse(response.text) : undefined,
      /** How long the webhook took to answer, in real time. */
      elapsedMs: performance.now() - started,
    };
  }

  /** A tap on a component of a posted message; `components` is what the message still shows. */
  function tap(
    customId: string,
    messageId: string,
    tapOptions: Actor & { values?: string[]; components?: unknown[]; channel?: string } = {},
  ) {
    const channel = tapOptions.channel ?? options.channel();
    return {
      id: nextSnowflake(),
      application_id: APPLICATION_ID,
      type: 3,
      token: "aW50ZXJhY3Rpb24tdG9rZW4",
      version: 1,
      channel_id: channel,
      ...who(tapOptions),
      message: {
        id: messageId,
        channel_id: channel,
        content: "…",
        components: tapOptions.components ?? [{ type: 1, components: [] }],
      },
      data: {
        custom_id: customId,
        component_type: tapOptions.values ? 3 : 2,
        ...(tapOptions.values && { values: tapOptions.values }),
      },
    };
  }

  /** A submitted modal (Label components, as Discord sends them) opened from a button on `messageId`. */
  function submit(
    customId: string,
    messageId: string,
    fields: Record<string, string>,
    submitOptions: Actor & { channel?: string } = {},
  ) {
    const channel = submitOptions.channel ?? options.channel();
    return {
      id: nextSnowflake(),
      application_id: APPLICATION_ID,
      type: 5,
      token: "aW50ZXJhY3Rpb24tdG9rZW4",
      version: 1,
      channel_id: channel,
      ...who(submitOptions),
      message: { id: messageId, channel_id: channel, content: "…", components: [] },
      data: {
        custom_id: customId,
        components: Object.entries(fields).map(([id, value], index) => ({
          type: 18,
          id: index + 1,
          component: { type: 4, id: index + 10, custom_id: id, value },
        })),
      },
    };
  }

  function command(name: string, commandOptions: Actor & { answer?: string; channel?: string } = {}) {
    return {
      id: nextSnowflake(),
      application_id: APPLICATION_ID,
      type: 2,
      token: "aW50ZXJhY3Rpb24tdG9rZW4",
      version: 1,
      channel_id: commandOptions.channel ?? options.channel(),
      ...who(commandOptions),
      data: {
        id: "1",
        name,
        type: 1,
        ...(commandOptions.answer !== undefined && {
          options: [{ type: 3, name: "answer", value: commandOptions.answer }],
        }),
      },
    };
  }

  return { dms, groupDms, nextSnowflake, fastDiscord, send, tap, submit, command };
}
