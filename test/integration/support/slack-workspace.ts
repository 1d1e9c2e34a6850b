/**
 * A Slack workspace as the app sees it, for the Slack tests in process (slack.test.ts) and on the local stack
 * (slack-e2e.test.ts): what the fake Slack answers (the app's IMs included), and the requests Slack sends
 * the webhook — events, interactions, slash commands — signed and dated by the clock the test gives.
 */
import type { FakeReply, RecordedCall } from "./fake-platform.ts";
import { slackSignature } from "./signing.ts";

export const SIGNING_SECRET = "5d41402abc4b2a76b9719d911017c592";
export const BOT_TOKEN = "xoxb-test-0000-token";
export const TEAM = "T061EG9R6";
export const OWNER = "U2147483697";
export const BOT_USER = "U0BOT";

/** A Block Kit element of a posted message's actions. */
export interface Element {
  type: string;
  action_id: string;
  value?: string;
  url?: string;
  text?: { text: string };
}
export const elements = (call: RecordedCall): Element[] =>
  (call.body.blocks as { type: string; elements?: Element[] }[])
    .filter((block) => block.type === "actions")
    .flatMap((block) => block.elements ?? []);
export function control(call: RecordedCall, label: string): Element {
  const found = elements(call).find((e) => e.text?.text === label);
  if (!found) throw new Error(`no control ${label}`);
  return found;
}

/** A message's state with `values` (option positions) ticked in `checkboxes`, as Slack sends it with a tap. */
export const ticked = (checkboxes: Element, values: string[]) => ({
  values: {
    [`block-of-${checkboxes.action_id}`]: {
      [checkboxes.action_id]: {
        type: "checkboxes",
        selected_options: values.map((value) => ({ text: { type: "plain_text", text: value }, value })),
      },
    },
  },
});

export interface SendOptions {
  timestamp?: number;
  secret?: string;
  /** Sign this body but send another one. */
  sendBody?: string;
  unsigned?: boolean;
  headers?: Record<string, string>;
}

export interface SlackWorkspaceOptions {
  /** The channel a request is in unless it says another (each test talks in one of its own). */
  channel: () => string;
  /** The next number of the test's channel ids (an IM's id is one too, with a D). */
  nextNumber: () => number;
  /** Epoch ms: the clock requests are signed and dated by. */
  now: () => number;
  /** Delivers a request to the stack's Slack webhook. */
  post: (body: string, headers: Record<string, string>) => Promise<{ status: number; text: string }>;
}

export function slackWorkspace(options: SlackWorkspaceOptions) {
  let seq = 100;
  const nextTs = () => `1700000000.${String(++seq).padStart(6, "0")}`;
  const nowSeconds = () => Math.floor(options.now() / 1000);

  /** The app's IMs (direct conversations) the fake Slack knows: IM id → the user it is with. */
  const ims = new Map<string, string>();
  /** A new IM of the app with `user`, as Slack would open it. */
  function newIm(user: string): string {
    const id = `D${String(options.nextNumber()).padStart(9, "0")}`;
    ims.set(id, user);
    return id;
  }
  /** The IM a post to a user id lands in (chat.postMessage with `channel: U…` answers with the IM's id). */
  const imOfUser = (user: string) => [...ims].find(([, withUser]) => withUser === user)?.[0] ?? newIm(user);

  /** What the fake Slack answers. */
  function fakeSlack(call: RecordedCall): FakeReply {
    switch (call.method) {
      case "chat.postMessage": {
        const channel = String(call.body.channel);
        const posted = /^[UW]/.test(channel) ? imOfUser(channel) : channel;
        return { body: { ok: true, channel: posted, ts: nextTs(), message: {} } };
      }
      case "conversations.info": {
        // Slack's read methods take their arguments in the query string.
        const id = call.query.channel ?? "";
        if (ims.has(id)) return { body: { ok: true, channel: { id, is_im: true, user: ims.get(id) } } };
        if (id.startsWith("C"))
          return { body: { ok: true, channel: { id, is_channel: true, is_im: false } } };
        return { body: { ok: false, error: "channel_not_found" } };
      }
      case "chat.update":
        return { body: { ok: true, channel: call.body.channel, ts: call.body.ts } };
      case "chat.postEphemeral":
        return { body: { ok: true, message_ts: nextTs() } };
      case "views.open":
        return { body: { ok: true, view: { id: `V${++seq}` } } };
      default:
        return { body: { ok: false, error: "unknown_method" } };
    }
  }

  // ── Signed requests, as Slack sends them ──────────────────────────────────────────────────────────

  async function send(body: string, contentType: string, sendOptions: SendOptions = {}) {
    const timestamp = String(sendOptions.timestamp ?? nowSeconds());
    const signature = slackSignature(sendOptions.secret ?? SIGNING_SECRET, timestamp, body);
    const response = await options.post(sendOptions.sendBody ?? body, {
      "content-type": contentType,
      ...(!sendOptions.unsigned && {
        "x-slack-request-timestamp": timestamp,
        "x-slack-signature": signature,
      }),
      ...sendOptions.headers,
    });
    let json: any;
    try {
      json = JSON.parse(response.text);
    } catch {
      json = undefined;
    }
    return { status: response.status, text: response.text, json };
  }

  const postEvent = (envelope: unknown, sendOptions?: SendOptions) =>
    send(JSON.stringify(envelope), "application/json", sendOptions);
  const postInteraction = (payload: unknown, sendOptions?: SendOptions) =>
    send(
      `payload=${encodeURIComponent(JSON.stringify(payload))}`,
      "application/x-www-form-urlencoded",
      sendOptions,
    );
  const postCommand = (text: string, commandOptions: { user?: string; channel?: string } = {}) =>
    send(
      new URLSearchParams({
        token: "legacy",
        team_id: TEAM,
        team_domain: "acme",
        channel_id: commandOptions.channel ?? options.channel(),
        channel_name: "dev",
        user_id: commandOptions.user ?? OWNER,
        user_name: "ann",
        command: "/handraise",
        text,
        response_url: "https://hooks.slack.com/commands/T/1/x",
        trigger_id: `${++seq}.47445629121.803a0bc887a14d10d2c447fce8b6703c`,
      }).toString(),
      "application/x-www-form-urlencoded",
    );

  function messageEvent(
    text: string,
    eventOptions: { user?: string; threadTs?: string; eventId?: string; channelType?: string } = {},
  ) {
    const ts = nextTs();
    return {
      token: "legacy",
      team_id: TEAM,
      api_app_id: "A0PNCHHK2",
      type: "event_callback",
      event_id: eventOptions.eventId ?? `Ev${++seq}`,
      event_time: nowSeconds(),
      authorizations: [{ enterprise_id: null, team_id: TEAM, user_id: BOT_USER, is_bot: true }],
      event: {
        type: "message",
        channel: options.channel(),
        channel_type: eventOptions.channelType ?? "channel",
        user: eventOptions.user ?? OWNER,
        text,
        ts,
        ...(eventOptions.threadTs !== undefined && {
          thread_ts: eventOptions.threadTs,
          parent_user_id: BOT_USER,
        }),
        team: TEAM,
      },
    };
  }

  function tap(
    element: Element,
    messageTs: string,
    tapOptions: { user?: string; state?: unknown; channel?: string } = {},
  ) {
    const channel = tapOptions.channel ?? options.channel();
    return {
      type: "block_actions",
      user: { id: tapOptions.user ?? OWNER, username: "ann", team_id: TEAM },
      api_app_id: "A0PNCHHK2",
      token: "legacy",
      container: { type: "message", message_ts: messageTs, channel_id: channel, is_ephemeral: false },
      trigger_id: `${++seq}.738474920.8088930838d88f008e0`,
      team: { id: TEAM, domain: "acme" },
      channel: { id: channel, name: "dev" },
      message: { type: "message", ts: messageTs, user: BOT_USER, blocks: [] },
      state: tapOptions.state ?? { values: {} },
      response_url: "https://hooks.slack.com/actions/T/1/x",
      actions: [
        {
          type: element.type,
          block_id: "b",
          action_id: element.action_id,
          ...(element.value !== undefined && { value: element.value }),
          action_ts: `${nowSeconds()}.${++seq}`,
        },
      ],
    };
  }

  function submit(view: { callback_id: string; private_metadata: string }, values: unknown, user = OWNER) {
    return {
      type: "view_submission",
      team: { id: TEAM, domain: "acme" },
      user: { id: user, username: "ann", team_id: TEAM },
      api_app_id: "A0PNCHHK2",
      token: "legacy",
      trigger_id: `${++seq}.738474920.8088930838d88f008e0`,
      view: {
        id: "V0MODAL",
        type: "modal",
        callback_id: view.callback_id,
        private_metadata: view.private_metadata,
        hash: "1.abc",
        state: { values },
      },
    };
  }

  return {
    newIm,
    imOfUser,
    fakeSlack,
    send,
    postEvent,
    postInteraction,
    postCommand,
    messageEvent,
    tap,
    submit,
  };
}
