/** Every platform's rendering of the answer page's link: present on a pending question, on every shape. */
import { describe, expect, it } from "vitest";
import { browserEntry, isLoopbackUrl } from "#lib/channels/answer-in-browser.ts";
import { createConsoleChannel } from "#lib/channels/console-channel.ts";
import { decodeControl } from "#lib/channels/control-codec.ts";
import { ownLinkMessage, renderComponents } from "#lib/channels/discord/discord-render.ts";
import { renderPost, retiredPost } from "#lib/channels/mattermost/mattermost-render.ts";
import { replies } from "#lib/channels/replies.ts";
import { renderBlocks, renderOwnLink, renderRetiredBlocks } from "#lib/channels/slack/slack-render.ts";
import { answerUrlOf, renderKeyboard, renderText } from "#lib/channels/telegram/telegram-render.ts";
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
  it("Telegram: a ANSWER_URL button before Skip on every shape, kept when the keyboard is drawn again", () => {
    for (const questions of SHAPES) {
      const keyboard = renderKeyboard(record(questions), new Set(), ANSWER_URL);
      expect(keyboard.at(-2)).toEqual([{ text: "Answer in browser", url: ANSWER_URL }]);
      expect(keyboard.at(-1)?.[0]?.text).toBe("Skip");
      expect(answerUrlOf(keyboard)).toBe(ANSWER_URL);
      expect(renderText(record(questions), ANSWER_URL)).not.toContain(ANSWER_URL);
    }
    expect(answerUrlOf(renderKeyboard(record([single])))).toBeUndefined();
  });

  it("Telegram: a link to this machine goes into the text (Telegram refuses such a button)", () => {
    expect(isLoopbackUrl(LOCAL)).toBe(true);
    expect(isLoopbackUrl("http://localhost:3000/x")).toBe(true);
    expect(isLoopbackUrl(ANSWER_URL)).toBe(false);
    const keyboard = renderKeyboard(record([single]), new Set(), LOCAL);
    expect(keyboard.flat().some((button) => "url" in button)).toBe(false);
    expect(renderText(record([single]), LOCAL)).toMatch(
      new RegExp(`\\n\\nAnswer in browser: ${LOCAL.replace(/[?.]/g, "\\$&")}$`),
    );
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
    expect(renderOwnLink(ANSWER_URL)).toEqual({
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

  it("Mattermost: a Markdown link in the message; none once retired", () => {
    const target = { url: "https://api.example.com/webhooks/mattermost", secret: "s".repeat(16) };
    for (const questions of SHAPES) {
      expect(renderPost(record(questions), target, ANSWER_URL).message).toMatch(
        /\n\n\[Answer in browser\]\(https:\/\/api\.example\.com\/answer\/ask_1\?sig=s{43}\)$/,
      );
    }
    expect(renderPost(record([single]), target).message).not.toContain("Answer in browser");
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
