/**
 * Mattermost as its tests play it, in process (mattermost.test.ts) and on the local stack
 * (mattermost-e2e.test.ts): the bot's settings, a fake REST API that keeps the posts it was sent and the
 * people's posts a test made up (to read back, as the webhook confirms each message), and the requests
 * Mattermost would POST to the webhook.
 */

import { type FakePlatform, type RecordedCall, type Responder, startFakePlatform } from "./fake-platform.ts";
import { unique } from "./sample-questions.ts";

export const BOT_TOKEN = "mmbottoken0123456789abcdef";
export const ACTION_SECRET = "mm-action-secret-for-tests-0123456789";
export const COMMAND_TOKEN = "cmdtoken1234567890abcdefgh";
export const HOOK_TOKEN = "hooktoken234567890abcdefgh";
export const OWNER = "ownerid0000000000000000001";
export const OTHER_USER = "otherid0000000000000000002";
/** The bot's own account, as `GET /api/v4/users/me` returns it. */
export const BOT_USER_ID = "botuserid00000000000000001";
export const BOT_USERNAME = "handraise";

let ids = 0;
/** A Mattermost-like id (26 characters of [a-z0-9]) no other in this process has. */
export const newId = (prefix: string) => `${prefix}${String(++ids).padStart(8, "0")}`;

/** Posts the bot created (id → the POST /api/v4/posts body), and users' posts the fake can be asked about. */
export const created: { id: string; body: any }[] = [];
export interface UserPost {
  channel_id: string;
  user_id: string;
  root_id: string;
  message: string;
  create_at: number;
  type: string;
}
export const userPosts = new Map<string, UserPost>();
/** `<channel id>:<user id>` pairs that are not channel members (everyone else is a member of every channel). */
export const outsiders = new Set<string>();
/** Direct channels: id → the name Mattermost gives one (`<user id>__<user id>`); every other is open. */
export const directChannels = new Map<string, string>();

/**
 * The REST API, refusing calls past Mattermost's size limits. `now`: the time the bot's posts are read back
 * as made (the deployment's clock); `fault`: answers a call before the usual routes do (an outage, a slow
 * server), or undefined.
 */
export function startFakeMattermost(options: {
  now: () => number;
  fault: (call: RecordedCall) => ReturnType<Responder> | undefined;
}): Promise<FakePlatform> {
  return startFakePlatform(
    (call) => {
      const faulty = options.fault(call);
      if (faulty !== undefined) return faulty;
      if (call.path === "/api/v4/posts") {
        const id = newId("botpost");
        created.push({ id, body: call.body });
        return {
          status: 201,
          body: { id, channel_id: call.body.channel_id, root_id: call.body.root_id ?? "" },
        };
      }
      const read = call.verb === "GET" ? /^\/api\/v4\/posts\/([a-z0-9]+)$/.exec(call.path) : null;
      if (read?.[1]) {
        const id = read[1];
        const post = userPosts.get(id);
        if (post) return { body: { id, ...post } };
        const own = created.find((c) => c.id === id);
        return own
          ? {
              body: {
                id,
                channel_id: own.body.channel_id,
                user_id: BOT_USER_ID,
                root_id: own.body.root_id ?? "",
                message: own.body.message,
                create_at: options.now(),
                type: "",
              },
            }
          : { status: 404, body: { message: "not found" } };
      }
      const member = /^\/api\/v4\/channels\/([a-z0-9]+)\/members\/([a-z0-9]+)$/.exec(call.path);
      if (call.verb === "GET" && member?.[1] && member[2]) {
        const [, channelId, userId] = member;
        return outsiders.has(`${channelId}:${userId}`)
          ? { status: 404, body: { message: "not a member" } }
          : { body: { channel_id: channelId, user_id: userId, roles: "channel_user" } };
      }
      const channelRead = /^\/api\/v4\/channels\/([a-z0-9]+)$/.exec(call.path);
      if (call.verb === "GET" && channelRead?.[1]) {
        const id = channelRead[1];
        const name = directChannels.get(id);
        return { body: name ? { id, type: "D", name } : { id, type: "O", name: "town-square" } };
      }
      if (call.verb === "GET" && call.path === "/api/v4/users/me") {
        return { body: { id: BOT_USER_ID, username: BOT_USERNAME, is_bot: true } };
      }
      return { body: { status: "OK" } };
    },
    { limits: "mattermost" },
  );
}

/** The deployment's Mattermost settings, against `fake`. */
export function mattermostSettings(fake: FakePlatform): Record<string, string> {
  return {
    MATTERMOST_URL: fake.url,
    MATTERMOST_BOT_TOKEN: BOT_TOKEN,
    MATTERMOST_ACTION_SECRET: ACTION_SECRET,
    MATTERMOST_COMMAND_TOKEN: COMMAND_TOKEN,
    MATTERMOST_OUTGOING_TOKEN: HOOK_TOKEN,
  };
}

export type Action = {
  id: string;
  name: string;
  style?: string;
  integration: { url: string; context: Record<string, unknown> };
};
/** A post's buttons. */
export const actionsOf = (post: { body: any }) => post.body.props.attachments[0].actions as Action[];
/** The button named `name`. */
export const action = (post: { body: any }, name: string) => {
  const found = actionsOf(post).find((a) => a.name === name);
  if (!found) throw new Error(`no button ${name}`);
  return found;
};

/** What Mattermost POSTs when someone taps a button (PostActionIntegrationRequest). */
export function tapBody(
  post: { id: string; body: any },
  name: string,
  options: { user?: string; triggerId?: string } = {},
) {
  return {
    user_id: options.user ?? OWNER,
    user_name: "ann",
    channel_id: post.body.channel_id,
    channel_name: "town-square",
    team_id: "team0000000000000000000001",
    team_domain: "acme",
    post_id: post.id,
    trigger_id: options.triggerId ?? Buffer.from(unique("trigger")).toString("base64"),
    type: "button",
    data_source: "",
    context: action(post, name).integration.context,
  };
}

/** The form fields of `/handraise <text>` typed by `user` in `channel`. */
export function slashFields(text: string, channel: string, user = OWNER): Record<string, string> {
  return {
    channel_id: channel,
    channel_name: "town-square",
    command: "/handraise",
    team_domain: "acme",
    team_id: "team0000000000000000000001",
    text,
    trigger_id: Buffer.from(unique("cmd")).toString("base64"),
    user_id: user,
    user_name: "ann",
  };
}
