/** Every platform's rendering of the answer page's link: present on a pending question, on every shape. */
import { describe, expect, it } from "vitest";
import { browserEntry, isLoopbackUrl } from "#lib/channels/answer-in-browser.ts";
import { createConsoleChannel } from "#lib/channels/console-channel.ts";
import { decodeControl } from "#lib/channels/control-codec.ts";
import { ownLinkMessage, renderComponents } from "#lib/channels/discord/discord-render.ts";
import { renderPost, retiredPost } from "#lib/channels/mattermost/mattermost-render.ts";
import { replies } from "#lib/channels/replies.ts";
import {
  renderBlocks,
  renderRetiredBlocks,
  renderOwnLink as slackOwnLink,
} from "#lib/channels/slack/slack-render.ts";
import { isPrivateChatOf } from "#lib/channels/telegram/telegram-channel.ts";
import { renderKeyboard, renderOwnLink, renderPrompt } from "#lib/channels/telegram/telegram-render.ts";
import type { Question } from "#lib/questions/index.ts";
import type { QuestionRecord } from "#lib/questions/question-record.ts";
import { type AnswerLinks, NO_ANSWER_LINKS } from "#lib/web/answer-link.ts";

const single: Question = {
  id: "deploy_target",
  header: "Deploy to",
  question: "Where?",
  options: [{ label: "Staging" }, { label: "Production" }],
  allowOther: true,
};
const multi: Question = { ...single, id: "checks", multiSelect: true };
const record = (questions: Question[]): QuestionRecord => ({
  id: "ask_1",
  status: "pending",
  questions,
  owner: "web:ann",
  deliveries: [],
  createdAtMs: 0,
  expiresAtMs: 1,
});
const ANSWER_URL = `https://api.example.com/answer/ask_1?sig=${"s".repeat(43)}`;
const LOCAL = `http://127.0.0.1:3000/answer/ask_1?sig=${"s".repeat(43)}`;
const SHAPES = [[single], [multi], [single, multi]];

describe("the Answer in browser link", () => {
  it("Telegram, a private copy: its answerer's link as a URL button before Skip on every shape", () => {
    for (const questions of SHAPES) {
      const drawn = renderPrompt(record(questions), 0, { kind: "link", url: ANSWER_URL });
      const keyboard = drawn.reply_markup.inline_keyboard;
      expect(keyboard.at(-2)).toEqual([{ text: "Answer in browser", url: ANSWER_URL }]);
      expect(keyboard.at(-1)?.[0]?.text).toBe("Skip");
      expect(drawn.text).not.toContain(ANSWER_URL);
    }
  });

  it("Telegram, a shared copy: a callback button of the browser control before Skip, no link anywhere", () => {
    for (const questions of SHAPES) {
      for (const step of questions.map((_, i) => i)) {
        const drawn = renderPrompt(record(questions), step, { kind: "control" });
        const row = drawn.reply_markup.inline_keyboard.at(-2) ?? [];
        expect(row).toHaveLength(1);
        const control = row[0] && "callback_data" in row[0] ? decodeControl(row[0].callback_data) : undefined;
        expect(row[0]?.text).toBe("Answer in browser");
        expect(control).toMatchObject({ kind: "browser", questionId: "ask_1", questionIndex: step });
        expect(JSON.stringify(drawn)).not.toContain("/answer/");
      }
    }
    const none = renderKeyboard(record([single]));
    expect(none.flat().map((b) => b.text)).not.toContain("Answer in browser");
  });

  it("Telegram: a link to this machine goes into the text (Telegram refuses such a button)", () => {
    expect(isLoopbackUrl(LOCAL)).toBe(true);
    expect(isLoopbackUrl("http://localhost:3000/x")).toBe(true);
    expect(isLoopbackUrl(ANSWER_URL)).toBe(false);
    const drawn = renderPrompt(record([single]), 0, { kind: "link", url: LOCAL });
    expect(drawn.reply_markup.inline_keyboard.flat().some((button) => "url" in button)).toBe(false);
    expect(drawn.text).toMatch(new RegExp(`\\n\\nAnswer in browser: ${LOCAL.replace(/[?.]/g, "\\$&")}$`));
  });

  it("Telegram: a chat is the answerer's private chat exactly when its id is their user id", () => {
    const target = (chatId: string) => ({ channel: "telegram", chatId });
    expect(isPrivateChatOf(target("42"), "telegram:42")).toBe(true);
    expect(isPrivateChatOf({ ...target("42"), threadId: "7" }, "telegram:42")).toBe(true);
    expect(isPrivateChatOf(target("42"), "telegram:43")).toBe(false);
    expect(isPrivateChatOf(target("-1001234567890"), "telegram:-1001234567890")).toBe(false);
    expect(isPrivateChatOf(target("42"), "slack:T1:42")).toBe(false);
    expect(isPrivateChatOf(target("42"), "web:42")).toBe(false);
  });

  it("Telegram: the own-link message in the private chat — the sentence, the link as a button or in the text", () => {
    expect(renderOwnLink(ANSWER_URL)).toEqual({
      text: "Your own link to answer in a browser. It works for you alone: do not share it.",
      reply_markup: { inline_keyboard: [[{ text: "Answer in browser", url: ANSWER_URL }]] },
      protect_content: true,
    });
    const local = renderOwnLink(LOCAL);
    expect(local.reply_markup).toBeUndefined();
    expect(local.text).toMatch(new RegExp(`\\n\\nAnswer in browser: ${LOCAL.replace(/[?.]/g, "\\$&")}$`));
  });

  it("Slack, a private copy: a button with its answerer's url (a tap Handraise ignores), before Skip; none once retired", () => {
    for (const questions of SHAPES) {
      const blocks = renderBlocks(record(questions), { kind: "link", url: ANSWER_URL });
      const elements = blocks.find((block) => block.type === "actions")?.elements as Record<
        string,
        unknown
      >[];
      expect(elements.at(-2)).toEqual({
        type: "button",
        action_id: "hr_link",
        text: { type: "plain_text", text: "Answer in browser" },
        url: ANSWER_URL,
      });
      expect(elements.at(-1)).toMatchObject({ text: { text: "Skip" } });
    }
    expect(JSON.stringify(renderBlocks(record([single])))).not.toContain("Answer in browser");
    expect(JSON.stringify(renderRetiredBlocks(record([single])))).not.toContain(ANSWER_URL);
  });

  it("Slack, a shared copy: the browser control (no url) before Skip; the tapper's own link comes in an ephemeral message", () => {
    for (const questions of SHAPES) {
      const blocks = renderBlocks(record(questions), { kind: "control" });
      const elements = blocks.find((block) => block.type === "actions")?.elements as Record<
        string,
        unknown
      >[];
      const browser = elements.at(-2) as Record<string, unknown>;
      expect(browser).toEqual({
        type: "button",
        action_id: "w|0|0|ask_1",
        text: { type: "plain_text", text: "Answer in browser" },
        value: "w|0|0|ask_1",
      });
      expect(decodeControl(browser.action_id as string)).toMatchObject({
        kind: "browser",
        questionId: "ask_1",
      });
      expect(elements.at(-1)).toMatchObject({ text: { text: "Skip" } });
      expect(JSON.stringify(blocks)).not.toContain("/answer/");
    }
    expect(slackOwnLink(ANSWER_URL)).toEqual({
      text: replies.yourOwnLink,
      blocks: [
        { type: "section", text: { type: "mrkdwn", text: replies.yourOwnLink } },
        {
          type: "actions",
          elements: [
            {
              type: "button",
              action_id: "hr_link",
              text: { type: "plain_text", text: "Answer in browser" },
              url: ANSWER_URL,
            },
          ],
        },
      ],
    });
  });

  it("Discord, a private copy: a link button (style 5, no custom_id) with its answerer's url, before Skip", () => {
    for (const questions of SHAPES) {
      const rows = renderComponents(record(questions), { kind: "link", url: ANSWER_URL });
      const last = rows.at(-1)?.components as Record<string, unknown>[];
      expect(last.at(-2)).toEqual({ type: 2, style: 5, label: "Answer in browser", url: ANSWER_URL });
      expect(last.at(-1)).toMatchObject({ label: "Skip" });
      expect(last.length).toBeLessThanOrEqual(5);
    }
    expect(JSON.stringify(renderComponents(record([single])))).not.toContain("Answer in browser");
  });

  it("Discord, a shared copy: a button (style 2) whose custom_id is the browser control, before Skip; the tapper's own link comes in a reply", () => {
    for (const [index, questions] of SHAPES.entries()) {
      // The last shape drawn at its second step: Back is there too, and the row still fits Discord's 5.
      const step = index === SHAPES.length - 1 ? 1 : 0;
      const rows = renderComponents(record(questions), { kind: "control" }, step);
      const last = rows.at(-1)?.components as Record<string, unknown>[];
      expect(last.at(-2)).toEqual({
        type: 2,
        style: 2,
        label: "Answer in browser",
        custom_id: `w|${step}|0|ask_1`,
      });
      expect(decodeControl(`w|${step}|0|ask_1`)).toMatchObject({ kind: "browser", questionId: "ask_1" });
      expect(last.at(-1)).toMatchObject({ label: "Skip" });
      expect(last.length).toBeLessThanOrEqual(5);
      expect(JSON.stringify(rows)).not.toContain("/answer/");
    }
    expect(ownLinkMessage(ANSWER_URL)).toEqual({
      content: replies.yourOwnLink,
      components: [
        { type: 1, components: [{ type: 2, style: 5, label: "Answer in browser", url: ANSWER_URL }] },
      ],
      allowed_mentions: { parse: [] },
    });
  });

  it("Mattermost: a private copy's link in the message, a shared copy's button before Skip; none once retired", () => {
    const target = { url: "https://api.example.com/webhooks/mattermost", secret: "s".repeat(16) };
    const names = (post: ReturnType<typeof renderPost>) =>
      (post.props.attachments[0]?.actions ?? []).map((a) => a.name);
    for (const questions of SHAPES) {
      const link = renderPost(record(questions), target, { kind: "link", url: ANSWER_URL });
      expect(link.message).toMatch(
        /\n\n\[Answer in browser\]\(https:\/\/api\.example\.com\/answer\/ask_1\?sig=s{43}\)$/,
      );
      expect(names(link)).not.toContain("Answer in browser");
      const shared = renderPost(record(questions), target, { kind: "control" });
      expect(JSON.stringify(shared)).not.toContain("/answer/");
      expect(names(shared).slice(-2)).toEqual(["Answer in browser", "Skip"]);
    }
    expect(JSON.stringify(renderPost(record([single]), target))).not.toContain("Answer in browser");
    expect(retiredPost({ ...record([single]), status: "expired" }).message).not.toContain(
      "Answer in browser",
    );
  });

  it("the terminal (a private target): the answerer's own link, printed under the prompt", async () => {
    let printed = "";
    const made: (string | undefined)[] = [];
    const channel = createConsoleChannel(
      (text) => {
        printed += text;
      },
      {
        isOn: async () => true,
        urlFor: async (_question, answerer) => {
          made.push(answerer);
          return ANSWER_URL;
        },
      },
    );
    const delivery = await channel.deliver(
      record([single, multi]),
      { channel: "console", chatId: "terminal" },
      "console:ops",
    );
    expect(printed).toContain(`\nAnswer in browser: ${ANSWER_URL}\n`);
    expect(made).toEqual(["console:ops"]);
    expect(delivery.privateTo).toBe("console:ops");
  });
});

describe("what a copy offers for the answer page", () => {
  const links: AnswerLinks = {
    isOn: async () => true,
    urlFor: async (question, answerer = question.owner) => `https://x.test/${question.id}/${answerer}`,
  };
  it("a private copy: the link of the person it was posted to, never the owner's", async () => {
    expect(await browserEntry(links, record([single]), "slack:T1:U2")).toEqual({
      kind: "link",
      url: "https://x.test/ask_1/slack:T1:U2",
    });
  });
  it("a shared copy: the control, which carries no link; nothing when the page is off", async () => {
    expect(await browserEntry(links, record([single]), undefined)).toEqual({ kind: "control" });
    expect(await browserEntry(NO_ANSWER_LINKS, record([single]), undefined)).toEqual({ kind: "none" });
    expect(await browserEntry(NO_ANSWER_LINKS, record([single]), "web:ann")).toEqual({ kind: "none" });
  });
});
