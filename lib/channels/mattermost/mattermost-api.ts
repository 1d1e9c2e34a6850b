import { PlatformApiError } from "../platform-api-error.ts";
import {
  createPlatformHttp,
  messageOf,
  type PlatformApiOptions,
  retryAfterHeaderMs,
} from "../platform-http.ts";

/** An interactive message button (legacy attachment actions: every Mattermost version renders them). */
export interface PostAction {
  id: string;
  type: "button";
  name: string;
  style?: "default" | "primary" | "danger";
  integration: { url: string; context: Record<string, unknown> };
}

export interface Attachment {
  fallback?: string;
  text?: string;
  actions?: PostAction[];
}

export interface PostContent {
  message: string;
  props: { attachments: Attachment[] };
}

export interface NewPost extends PostContent {
  channel_id: string;
  root_id?: string;
}

export interface MattermostPost {
  id: string;
  channel_id: string;
  user_id?: string;
  /** The thread's root post; "" at the top level. */
  root_id?: string;
  /** What was written (Markdown). */
  message?: string;
  /** Epoch ms. */
  create_at?: number;
  /** "" for what a person wrote; `system_*` for joins, header changes and other system messages. */
  type?: string;
}

/** A user's membership of a channel (`GET /channels/{channel_id}/members/{user_id}`). */
export interface ChannelMember {
  channel_id: string;
  user_id: string;
}

/** A channel as `GET /channels/{channel_id}` describes it (the fields Handraise reads). */
export interface MattermostChannelInfo {
  id: string;
  /** `O` public, `P` private, `G` group message, `D` direct message between two users. */
  type: string;
  /** A direct channel's is `<user id>__<user id>` of its two members. */
  name: string;
}

export interface MattermostUser {
  id: string;
  username: string;
}

export interface DialogElement {
  display_name: string;
  name: string;
  type: "text" | "textarea" | "select";
  optional?: boolean;
  multiselect?: boolean;
  help_text?: string;
  placeholder?: string;
  max_length?: number;
  options?: { text: string; value: string }[];
}

export interface Dialog {
  callback_id: string;
  title: string;
  introduction_text?: string;
  elements: DialogElement[];
  submit_label: string;
  notify_on_cancel: boolean;
  state: string;
}

export interface OpenDialogRequest {
  trigger_id: string;
  /** Where Mattermost posts the submission: the webhook. */
  url: string;
  dialog: Dialog;
}

/** The REST calls Handraise makes, as the bot account. */
export interface MattermostApi {
  createPost(post: NewPost): Promise<MattermostPost>;
  /** Replaces the message and the props (so `attachments: []` drops the buttons). */
  patchPost(postId: string, patch: PostContent): Promise<void>;
  getPost(postId: string): Promise<MattermostPost>;
  /** Fails (404) when the user is not a member of the channel, or the bot may not read the channel. */
  getChannelMember(channelId: string, userId: string): Promise<ChannelMember>;
  /** Fails (404, 403) when there is no such channel or the bot may not read it. */
  getChannel(channelId: string): Promise<MattermostChannelInfo>;
  /** The bot's own account. */
  getMe(): Promise<MattermostUser>;
  /** Opens an interactive dialog for the user whose tap produced `trigger_id` (valid for a few seconds). */
  openDialog(request: OpenDialogRequest): Promise<void>;
}

/**
 * REST API v4 of a Mattermost server (`<url>/api/v4/...`, `Authorization: Bearer <bot token>`, JSON). Any
 * non-2xx answer or a timeout is a PlatformApiError naming the call, never the token. Rate limiting is the
 * server's choice (off by default); when on, a 429 names its wait in `Retry-After`. POST (a post, a dialog)
 * is the one verb not sent twice.
 */
export function createMattermostApi(
  options: Omit<PlatformApiOptions, "apiBase"> & { url: string },
): MattermostApi {
  const base = `${options.url.replace(/\/+$/, "")}/api/v4`;
  const http = createPlatformHttp(
    {
      platform: "mattermost",
      retryAfterMs: (reply, nowMs) => retryAfterHeaderMs(reply.headers, nowMs),
      describe: messageOf,
    },
    { now: options.now, ...options.http },
  );

  async function call<T>(verb: "GET" | "POST" | "PUT", path: string, body?: unknown): Promise<T> {
    const token = await options.botToken();
    const reply = await http.send({
      name: `${verb} ${path.replace(/\/[A-Za-z0-9]{20,}(?=\/|$)/g, "/{id}")}`,
      method: verb,
      url: `${base}${path}`,
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      ...(body !== undefined && { body }),
      idempotent: verb !== "POST",
    });
    return reply.body as T;
  }

  const postPath = (postId: string) => `/posts/${encodeURIComponent(postId)}`;

  return {
    async createPost(post) {
      const created = await call<MattermostPost | undefined>("POST", "/posts", post);
      if (typeof created?.id !== "string" || created.id === "") {
        throw new PlatformApiError("mattermost", "POST /posts", 200, "the response has no post id");
      }
      return created;
    },
    async patchPost(postId, patch) {
      await call("PUT", `${postPath(postId)}/patch`, patch);
    },
    async getPost(postId) {
      const post = await call<MattermostPost | undefined>("GET", postPath(postId));
      if (typeof post?.id !== "string") {
        throw new PlatformApiError("mattermost", "GET /posts/{id}", 200, "the response is not a post");
      }
      return post;
    },
    async getChannelMember(channelId, userId) {
      const member = await call<ChannelMember | undefined>(
        "GET",
        `/channels/${encodeURIComponent(channelId)}/members/${encodeURIComponent(userId)}`,
      );
      if (typeof member?.user_id !== "string" || typeof member.channel_id !== "string") {
        const name = "GET /channels/{id}/members/{id}";
        throw new PlatformApiError("mattermost", name, 200, "the response is not a channel member");
      }
      return member;
    },
    async getChannel(channelId) {
      const channel = await call<MattermostChannelInfo | undefined>(
        "GET",
        `/channels/${encodeURIComponent(channelId)}`,
      );
      if (
        typeof channel?.id !== "string" ||
        typeof channel.type !== "string" ||
        typeof channel.name !== "string"
      ) {
        throw new PlatformApiError("mattermost", "GET /channels/{id}", 200, "the response is not a channel");
      }
      return channel;
    },
    async getMe() {
      const user = await call<MattermostUser | undefined>("GET", "/users/me");
      if (typeof user?.id !== "string" || typeof user.username !== "string" || user.username === "") {
        throw new PlatformApiError("mattermost", "GET /users/me", 200, "the response is not a user");
      }
      return user;
    },
    async openDialog(request) {
      await call("POST", "/actions/dialogs/open", request);
    },
  };
}
