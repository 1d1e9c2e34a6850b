/**
 * Mattermost on the local stack: what only the real wiring proves — an agent run asks, the question is
 * delivered, a signed button tap answers, and the Step Functions run resumes (or takes the skip or cancel
 * through its Catch); the same tap twice is settled by DynamoDB's conditional writes. The rest of
 * Mattermost's behaviour runs in process: mattermost.test.ts.
 */
import { StartExecutionCommand } from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { FakePlatform } from "./support/fake-platform.ts";
import {
  COMMAND_TOKEN,
  created,
  mattermostSettings,
  OWNER,
  slashFields,
  startFakeMattermost,
  tapBody,
} from "./support/mattermost-fake.ts";
import { singleQuestion as single, unique } from "./support/sample-questions.ts";
import {
  posted,
  replyOf as replyOfRun,
  startTestStack,
  type TestStack,
  waitFor,
} from "./support/test-stack.ts";

/** Mattermost calls the URL in the button; the test plays Mattermost and posts to the stack directly. */
const PUBLIC_URL = "https://handraise.test";

let stack: TestStack;
let mattermost: FakePlatform;
/** Each test talks in a channel of its own: a plain message goes to the oldest pending question there. */
let channel = "";
let channels = 0;

beforeAll(async () => {
  mattermost = await startFakeMattermost({ now: Date.now, fault: () => undefined });
  stack = await startTestStack({ ...mattermostSettings(mattermost), HANDRAISE_PUBLIC_URL: PUBLIC_URL });
});
afterAll(async () => {
  await stack?.stop();
  await mattermost?.stop();
});
beforeEach(() => {
  mattermost.calls.length = 0;
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

const tap = (
  post: { id: string; body: any },
  name: string,
  options: { user?: string; triggerId?: string } = {},
) => sendJson(tapBody(post, name, options));

const slash = (text: string, token = COMMAND_TOKEN, user = OWNER) =>
  sendForm(slashFields(text, channel, user), { authorization: `Token ${token}` });

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
