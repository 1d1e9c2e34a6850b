import { describe, expect, it } from "vitest";
import type { MattermostApi } from "#lib/channels/mattermost/mattermost-api.ts";
import { createMattermostChannel, isDirectChannelWith } from "#lib/channels/mattermost/mattermost-channel.ts";
import {
  cutBytes,
  escapeMarkdown,
  renderDialog,
  renderPost,
  retiredPost,
} from "#lib/channels/mattermost/mattermost-render.ts";
import { submissionAnswers } from "#lib/channels/mattermost/mattermost-request.ts";
import { verifyControl, verifyDialogState } from "#lib/channels/mattermost/mattermost-signature.ts";
import type { QuestionRecord } from "#lib/questions/question-record.ts";
import type { AnswerLinks } from "#lib/web/answer-link.ts";

const target = { url: "https://api.example.com/webhooks/mattermost", secret: "mm-action-secret-0123456789" };
const record = (
  questions: QuestionRecord["questions"],
  extra: Partial<QuestionRecord> = {},
): QuestionRecord => ({
  id: "ask_1",
  status: "pending",
  questions,
  owner: "mattermost:u1",
  deliveries: [],
  createdAtMs: 0,
  expiresAtMs: 1,
  ...extra,
});
const deploy = {
  id: "deploy_target",
  header: "Deploy to",
  question: "Where should it go?",
  options: [{ label: "Staging" }, { label: "Production" }],
  allowOther: true as const,
};

describe("Mattermost rendering", () => {
  it("escapes Markdown and defuses mentions in user-supplied text", () => {
    expect(escapeMarkdown("**bold** _x_ [link](http://a) `code` <b> @channel ~town | a # 1. ok")).toBe(
      "\\*\\*bold\\*\\* \\_x\\_ \\[link\\]\\(http://a\\) \\`code\\` \\<b\\> @\u200bchannel \\~town \\| a \\# 1\\. ok",
    );
  });

  it("cuts dialog fields by UTF-8 bytes without splitting a character", () => {
    expect(cutBytes("Deploy to", 24)).toBe("Deploy to");
    const cut = cutBytes("デプロイ先を選んでくださいね", 24);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(24);
    expect(cut.endsWith("…")).toBe(true);
  });

  it("one single-select question: option buttons, Other…, Skip, each with a verifiable context", () => {
    const post = renderPost(record([deploy]), target);
    const actions = post.props.attachments[0]?.actions ?? [];
    expect(actions.map((a) => [a.id, a.name])).toEqual([
      ["option0", "Staging"],
      ["option1", "Production"],
      ["other", "Other…"],
      ["skip", "Skip"],
    ]);
    for (const a of actions) {
      expect(a.integration.url).toBe(target.url);
      expect(verifyControl(target.secret, a.integration.context)).toBeDefined();
    }
  });

  it("several questions: one step at a time — its progress and prompt, its controls, Back from step 2, the draft's choice marked", () => {
    const checks = {
      id: "checks",
      header: "Checks",
      question: "Which checks?",
      options: [{ label: "Unit" }, { label: "Lint" }],
      multiSelect: true as const,
      allowOther: true as const,
    };
    const three = record([deploy, checks, { ...deploy, id: "again", header: "Again" }], {
      draft: { deploy_target: ["Production"], checks: ["Unit"] },
    });
    const first = renderPost(three, target, undefined, 0);
    expect(first.message).toMatch(/^\*\*1 of 3\*\*\n\n/);
    expect(first.message).toContain("Deploy to");
    expect(first.message).not.toContain("Which checks?");
    const controls = (post: typeof first) =>
      (post.props.attachments[0]?.actions ?? []).map((a) => [
        a.name,
        verifyControl(target.secret, a.integration.context)?.kind,
        a.style,
      ]);
    expect(controls(first)).toEqual([
      ["Staging", "option", undefined],
      ["Production", "option", "primary"],
      ["Other…", "other", undefined],
      ["Skip", "skip", undefined],
    ]);
    const second = renderPost(three, target, undefined, 1);
    expect(second.message).toMatch(/^\*\*2 of 3\*\*\n\n/);
    expect(second.message).toContain("Which checks?");
    expect(controls(second)).toEqual([
      ["Choose one or more…", "choose", "primary"],
      ["Back", "back", undefined],
      ["Skip", "skip", undefined],
    ]);
    expect(
      (second.props.attachments[0]?.actions ?? []).map(
        (a) => verifyControl(target.secret, a.integration.context)?.questionIndex,
      ),
    ).toEqual([1, 1, 1]);
  });

  it("a retired copy shows the outcome (escaped) and has no buttons", () => {
    const done = retiredPost(
      record([deploy], { status: "answered", answers: { deploy_target: ["*now* @all"] } }),
    );
    expect(done.props).toEqual({ attachments: [] });
    expect(done.message).toContain("**Answered — Deploy to: \\*now\\* @\u200ball**");
  });

  it("dialogs keep Mattermost's byte limits and carry a signed state naming their control and post", () => {
    const long = {
      ...deploy,
      id: "checks",
      header: "デプロイ先デプロイ先デプ",
      question: "x".repeat(400),
      multiSelect: true as const,
    };
    const control = { kind: "choose" as const, questionId: "ask_1", questionIndex: 1, optionIndex: 0 };
    const opened = { control, postId: "p1", userId: "u1", channelId: "c1", issuedAtMs: 1_700_000_000_000 };
    const dialog = renderDialog(record([deploy, long]), opened, target);
    expect(Buffer.byteLength(dialog.title)).toBeLessThanOrEqual(24);
    expect(dialog.elements.map((e) => [e.name, e.type, e.multiselect])).toEqual([
      ["checks", "select", true],
      // A textarea: a `text` element takes at most 150 characters.
      ["checks:other", "textarea", undefined],
    ]);
    expect(dialog.elements.find((e) => e.type === "textarea")?.max_length).toBe(3000);
    for (const element of dialog.elements) {
      expect(Buffer.byteLength(element.display_name)).toBeLessThanOrEqual(24);
    }
    expect(verifyDialogState(target.secret, dialog.state)).toEqual(opened);
  });

  it("a submission becomes answers: chosen labels first, then the own answer; blanks and odd names dropped", () => {
    // As JSON.parse delivers it: "__proto__" is an own key there, and must not become one of ours.
    const submission = JSON.parse(
      '{"checks:other":" custom ","checks":["Unit","Lint"],"deploy_target":"","deploy_target:other":"",' +
        '"__proto__":["x"],"Bad":"x","flag":true}',
    );
    const answers = submissionAnswers(submission);
    expect(answers).toEqual({ checks: ["Unit", "Lint", " custom "] });
    expect(Object.getPrototypeOf(answers)).toBe(Object.prototype);
  });
});

describe("Mattermost: which copy carries the answerer's link", () => {
  it("a shared copy's Answer in browser button carries the signed browser control, and no link", () => {
    const post = renderPost(record([deploy]), target, { kind: "control" });
    const button = post.props.attachments[0]?.actions?.find((a) => a.name === "Answer in browser");
    expect(verifyControl(target.secret, button?.integration.context)).toEqual({
      kind: "browser",
      questionId: "ask_1",
      questionIndex: 0,
      optionIndex: 0,
    });
    expect(JSON.stringify(post)).not.toContain("/answer/");
  });

  it("a direct channel is private only between the bot and that one user", () => {
    const bot = "bot0000000000000000000000a";
    const ann = "ann0000000000000000000000a";
    const bob = "bob0000000000000000000000a";
    expect(isDirectChannelWith({ type: "D", name: `${ann}__${bot}` }, bot, ann)).toBe(true);
    expect(isDirectChannelWith({ type: "D", name: `${bot}__${ann}` }, bot, ann)).toBe(true);
    // Two people's direct channel (a bot allowed to post there), another person's, or not direct at all.
    expect(isDirectChannelWith({ type: "D", name: `${ann}__${bob}` }, bot, ann)).toBe(false);
    expect(isDirectChannelWith({ type: "D", name: `${bob}__${bot}` }, bot, ann)).toBe(false);
    expect(isDirectChannelWith({ type: "G", name: `${ann}__${bot}` }, bot, ann)).toBe(false);
    expect(isDirectChannelWith({ type: "O", name: `${ann}__${bot}` }, bot, ann)).toBe(false);
    expect(isDirectChannelWith({ type: "D", name: `${ann}__${bot}__${bob}` }, bot, ann)).toBe(false);
    expect(isDirectChannelWith({ type: "D", name: `${ann}__${ann}` }, ann, ann)).toBe(false);
  });

  const BOT = "bot0000000000000000000000a";
  const links: AnswerLinks = {
    isOn: async () => true,
    urlFor: async (question, answerer = question.owner) =>
      `https://h.example/answer/${question.id}?as=${answerer}`,
  };
  const unconfirmed: string[] = [];
  function channelWith(channelInfo: (id: string) => Promise<{ id: string; type: string; name: string }>) {
    const posts: any[] = [];
    const api = {
      getMe: async () => ({ id: BOT, username: "handraise" }),
      getChannel: channelInfo,
      createPost: async (post: unknown) => {
        posts.push(post);
        return { id: "p1", channel_id: "c" };
      },
    } as unknown as MattermostApi;
    const channel = createMattermostChannel(
      api,
      { url: target.url, secret: async () => target.secret },
      links,
      (error) => unconfirmed.push(`mattermost: ${(error as Error).message}`),
    );
    return { channel, posts };
  }

  it("deliver: the bot's direct channel with the answerer → their link and privateTo", async () => {
    const { channel, posts } = channelWith(async (id) => ({ id, type: "D", name: `${BOT}__u9` }));
    const delivery = await channel.deliver(
      record([deploy]),
      { channel: "mattermost", chatId: "dm1" },
      "mattermost:u9",
    );
    expect(delivery).toMatchObject({ chatId: "dm1", messageId: "p1", privateTo: "mattermost:u9" });
    expect(posts[0].message).toContain(
      "[Answer in browser](https://h.example/answer/ask_1?as=mattermost:u9)",
    );
    expect(JSON.stringify(posts[0].props)).not.toContain("Answer in browser");
  });

  it("deliver: a channel, another person's direct channel, an API error → the button, no link", async () => {
    const cases: [(id: string) => Promise<{ id: string; type: string; name: string }>, string][] = [
      [async (id) => ({ id, type: "O", name: "town-square" }), "mattermost:u9"],
      [async (id) => ({ id, type: "D", name: `${BOT}__u8` }), "mattermost:u9"],
      [async () => ({ id: "elsewhere", type: "D", name: `${BOT}__u9` }), "mattermost:u9"],
      [
        async () => {
          throw new Error("403");
        },
        "mattermost:u9",
      ],
      [async (id) => ({ id, type: "D", name: `${BOT}__u9` }), "teams:u9"],
    ];
    unconfirmed.length = 0;
    for (const [info, answerer] of cases) {
      const { channel, posts } = channelWith(info);
      const delivery = await channel.deliver(
        record([deploy]),
        { channel: "mattermost", chatId: "c1" },
        answerer,
      );
      expect(delivery).not.toHaveProperty("privateTo");
      expect(JSON.stringify(posts[0])).not.toContain("/answer/");
      const names = posts[0].props.attachments[0].actions.map((a: { name: string }) => a.name);
      expect(names).toContain("Answer in browser");
    }
    // Only the failed read is reported (an operator sees why a direct channel got no link).
    expect(unconfirmed).toEqual(["mattermost: 403"]);
  });
});
