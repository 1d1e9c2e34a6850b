/**
 * Mattermost on the local stack: what only the real wiring proves — an agent run asks, the question is
 * delivered, a signed button tap answers, and the Step Functions run resumes (or takes the skip or cancel
 * through its Catch); the same tap twice is settled by DynamoDB's conditional writes. The rest of
 * Mattermost's behaviour runs in process: mattermost.test.ts.
 */
import { StartExecutionCommand } from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type FakePlatform,
  type RecordedCall,
  type Responder,
  startFakePlatform,
} from "./support/fake-platform.ts";
import { singleQuestion as single, unique } from "./support/sample-questions.ts";
import {
  posted,
  replyOf as replyOfRun,
  startTestStack,
  type TestStack,
  waitFor,
} from "./support/test-stack.ts";

const BOT_TOKEN = "mmbottoken0123456789abcdef";
const ACTION_SECRET = "mm-action-secret-for-tests-0123456789";
const COMMAND_TOKEN = "cmdtoken1234567890abcdefgh";
const HOOK_TOKEN = "hooktoken234567890abcdefgh";
/** Mattermost calls the URL in the button; the test plays Mattermost and posts to the stack directly. */
const PUBLIC_URL = "https://handraise.test";
const OWNER = "ownerid0000000000000000001";

let stack: TestStack;
let mattermost: FakePlatform;
/** Each test talks in a channel of its own: a plain message goes to the oldest pending question there. */
let channel = "";
let channels = 0;
let ids = 0;
const newId = (prefix: string) => `${prefix}${String(++ids).padStart(8, "0")}`;

/** Posts the bot created (id → the POST /api/v4/posts body), and users' posts the fake can be asked about. */
const created: { id: string; body: any }[] = [];
interface UserPost {
  channel_id: string;
  user_id: string;
  root_id: string;
  message: string;
  create_at: number;
  type: string;
}
const userPosts = new Map<string, UserPost>();
/** The bot's own account, as `GET /api/v4/users/me` returns it. */
const BOT_USER_ID = "botuserid00000000000000001";
const BOT_USERNAME = "handraise";
/** `<channel id>:<user id>` pairs that are not channel members (everyone else is a member of every channel). */
const outsiders = new Set<string>();
/** Direct channels: id → the name Mattermost gives one (`<user id>__<user id>`); every other is open. */
const directChannels = new Map<string, string>();
/** Per test: answers a call before the fake's usual routes do (an outage, a slow server). */
let fault: ((call: RecordedCall) => ReturnType<Responder> | undefined) | undefined;

beforeAll(async () => {
  mattermost = await startFakePlatform(
    (call) => {
      const faulty = fault?.(call);
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
                create_at: Date.now(),
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
      // Refused like Mattermost past its size limits: every test here runs within them.
    },
    { limits: "mattermost" },
  );
  stack = await startTestStack({
    MATTERMOST_URL: mattermost.url,
    MATTERMOST_BOT_TOKEN: BOT_TOKEN,
    MATTERMOST_ACTION_SECRET: ACTION_SECRET,
    MATTERMOST_COMMAND_TOKEN: COMMAND_TOKEN,
    MATTERMOST_OUTGOING_TOKEN: HOOK_TOKEN,
    HANDRAISE_PUBLIC_URL: PUBLIC_URL,
  });
});
afterAll(async () => {
  await stack?.stop();
  await mattermost?.stop();
});
beforeEach(() => {
  mattermost.calls.length = 0;
  fault = undefined;
  channel = `channel${String(++channels).padStart(4, "0")}`;
});

type Target = { channel: string; chatId: string; threadId?: string };

async function startRun(
  questions: unknown[],
  options: { targets?: Target[]; input?: Record<string, unknown> } = {},
) {
  const sessionKey = unique("mm");
  const targets = options.targets ?? [{ channel: "mattermost", chatId: channel }];
  const before = created.length;
  const { executionArn } = await stack.sfn.send(
    new StartExecutionCommand({
      stateMachineArn: stack.stateMachineArns.agent,
      input: JSON.stringify({
        sessionKey,
        owner: `mattermost:${OWNER}`,
        deliverTo: targets,
        prompt: "test",
        model: {
          provider: "scripted",
          steps: [
            { toolCalls: [{ id: "c1", name: "ask_user", arguments: { questions } }] },
            {
              reply:
                "{{c1.status}}|{{c1.reason}}|{{c1.deploy_target}}{{c1.checks}}{{c1.second}}|{{c1.release_note}}",
            },
          ],
        },
        ...options.input,
      }),
    }),
  );
  const posts = await waitFor(
    async () => (created.length >= before + targets.length ? created.slice(before) : undefined),
    { what: "the question posted to Mattermost" },
  );
  const questionId = (await stack.api("GET", `/questions?sessionKey=${sessionKey}`)).body.questions[0]
    .id as string;
  // The ask function records the posted copies right after posting them.
  await waitFor(
    async () => {
      const record = (await stack.api("GET", `/questions/${questionId}`)).body.question;
      return posted(record) >= targets.length ? true : undefined;
    },
    { what: "the deliveries to be recorded" },
  );
  return {
    executionArn: executionArn as string,
    posts,
    post: posts[0] as (typeof posts)[number],
    questionId,
  };
}

async function send(body: string, headers: Record<string, string>) {
  const response = await fetch(`${stack.httpUrl}/webhooks/mattermost`, { method: "POST", headers, body });
  const text = await response.text();
  stack.responseBodies.push(text);
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}
const sendJson = (body: unknown) => send(JSON.stringify(body), { "content-type": "application/json" });
const sendForm = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
  send(new URLSearchParams(fields).toString(), {
    "content-type": "application/x-www-form-urlencoded",
    ...headers,
  });

type Action = {
  id: string;
  name: string;
  style?: string;
  integration: { url: string; context: Record<string, unknown> };
};
const actionsOf = (post: { body: any }) => post.body.props.attachments[0].actions as Action[];
const action = (post: { body: any }, name: string) => {
  const found = actionsOf(post).find((a) => a.name === name);
  if (!found) throw new Error(`no button ${name}`);
  return found;
};

/** What Mattermost POSTs when someone taps a button (PostActionIntegrationRequest). */
function tapBody(
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
const tap = (
  post: { id: string; body: any },
  name: string,
  options: { user?: string; triggerId?: string } = {},
) => sendJson(tapBody(post, name, options));

const slash = (text: string, token = COMMAND_TOKEN, user = OWNER) =>
  sendForm(
    {
      channel_id: channel,
      channel_name: "town-square",
      command: "/handraise",
      team_domain: "acme",
      team_id: "team0000000000000000000001",
      text,
      trigger_id: Buffer.from(unique("cmd")).toString("base64"),
      user_id: user,
      user_name: "ann",
    },
    { authorization: `Token ${token}` },
  );

/** The reply the run ended with. */
const replyOf = (executionArn: string) => replyOfRun(stack, executionArn);
const patches = () => mattermost.calls.filter((c) => c.path.endsWith("/patch"));

describe("Mattermost end to end", () => {
  it("a button answers and resumes the run; every copy is edited without buttons; a later tap is told it is over", async () => {
    const other = `other${channel}`;
    const { executionArn, posts, questionId } = await startRun([single], {
      targets: [
        { channel: "mattermost", chatId: channel },
        { channel: "mattermost", chatId: other, threadId: "threadroot0000000000000001" },
      ],
    });
    const here = posts.find((p) => p.body.channel_id === channel) as (typeof posts)[number];
    expect(posts.find((p) => p.body.channel_id === other)?.body.root_id).toBe("threadroot0000000000000001");

    const response = await tap(here, "Production");
    expect(response.status).toBe(200);
    expect(response.body.update.props).toEqual({ attachments: [] });
    expect(response.body.update.message).toContain("Answered — Deploy to: Production");
    expect(await replyOf(executionArn)).toBe("answered||Production|");

    const edits = patches();
    expect(edits.map((e) => e.path).sort()).toEqual(posts.map((p) => `/api/v4/posts/${p.id}/patch`).sort());
    for (const edit of edits) {
      expect(edit.body.props).toEqual({ attachments: [] });
      expect(edit.body.message).toContain("Answered — Deploy to: Production");
      expect(edit.body.message).not.toContain("Answer in browser");
    }

    const late = await tap(here, "Staging (Recommended)");
    expect(late.status).toBe(200);
    expect(late.body.ephemeral_text).toBe("This question has already been answered\\.");
    expect((await stack.api("GET", `/questions/${questionId}`)).body.question.answers).toEqual({
      deploy_target: ["Production"],
    });
  });

  it("Skip → skipped; /handraise cancel → cancelled, told privately", async () => {
    const skipped = await startRun([single]);
    const skip = await tap(skipped.post, "Skip");
    expect(skip.body.update.message).toContain("Skipped\\.");
    expect(await replyOf(skipped.executionArn)).toBe("no_answer|skipped||");

    const cancelled = await startRun([single]);
    const response = await slash("cancel");
    expect(response).toEqual({ status: 200, body: { response_type: "ephemeral", text: "Cancelled\\." } });
    expect(await replyOf(cancelled.executionArn)).toBe("no_answer|cancelled||");
    expect((await slash("cancel")).body.text).toBe("No question is waiting for you here\\.");
  });

  it("the same tap delivered twice resumes the run once, and both get a 200", async () => {
    const { executionArn, post } = await startRun([single]);
    const body = tapBody(post, "Production");
    const responses = await Promise.all([sendJson(body), sendJson(body)]);
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    expect(responses.filter((r) => r.body.update !== undefined)).toHaveLength(1);
    expect(responses.filter((r) => Object.keys(r.body).length === 0)).toHaveLength(1);
    expect(await replyOf(executionArn)).toBe("answered||Production|");
    expect(patches()).toHaveLength(1);
  });
});
