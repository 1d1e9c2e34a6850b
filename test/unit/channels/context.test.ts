/**
 * The question's context (who is asking and why) above the questions of a one-question prompt on every
 * chat surface, escaped for each one's markup, and nothing where a question has none. The steppers (several
 * questions) and the retired copies are held to it through each platform's webhook in
 * test/integration/<platform>.test.ts.
 */
import { describe, expect, it } from "vitest";
import { createConsoleChannel } from "#lib/channels/console-channel.ts";
import { promptContent } from "#lib/channels/discord/discord-render.ts";
import { renderPost } from "#lib/channels/mattermost/mattermost-render.ts";
import { renderBlocks, renderText } from "#lib/channels/slack/slack-render.ts";
import { renderQuestionCard } from "#lib/channels/teams/teams-render.ts";
import { renderPrompt } from "#lib/channels/telegram/telegram-render.ts";
import { questionRecord } from "../../support/records.ts";
import { deployTarget } from "../questions/fixtures.ts";

const CONTEXT = "Release agent for <alice> & *ops*:\n# v1.4 _passed_";
const withContext = questionRecord({ questions: [deployTarget], context: CONTEXT });
const without = questionRecord({ questions: [deployTarget] });
const ACTION_TARGET = { url: "https://api.example.com/webhooks/mattermost", secret: "s".repeat(32) };

describe("the context above a one-question prompt", () => {
  it("Telegram: plain text, as written, between the first line and the question", () => {
    expect(renderPrompt(withContext, 0).text).toContain(`Question for you:\n\n${CONTEXT}\n\nDeploy\n`);
    expect(renderPrompt(without, 0).text).toMatch(/^Question for you:\n\nDeploy\n/);
  });

  it("Slack: in the prompt's section and its text, & < > escaped", () => {
    const shown = "Release agent for &lt;alice&gt; &amp; *ops*:\n# v1.4 _passed_";
    const [section] = renderBlocks(withContext);
    expect(section).toEqual({
      type: "section",
      text: { type: "mrkdwn", text: expect.stringContaining(`Question for you:\n\n${shown}\n\nDeploy\n`) },
    });
    expect(renderText(withContext)).toContain(shown);
    expect(renderText(without)).toMatch(/^Question for you:\n\nDeploy\n/);
  });

  it("Discord: Markdown escaped, a heading marker at a line's start too", () => {
    const shown = "Release agent for <alice\\> & \\*ops\\*:\n\\# v1.4 \\_passed\\_";
    expect(promptContent(withContext)).toContain(`Question for you:\n\n${shown}\n\nDeploy\n`);
    expect(promptContent(without)).toMatch(/^Question for you:\n\nDeploy\n/);
  });

  it("Mattermost: Markdown escaped", () => {
    const shown = "Release agent for \\<alice\\> \\& \\*ops\\*:\n\\# v1\\.4 \\_passed\\_";
    expect(renderPost(withContext, ACTION_TARGET).message).toContain(
      `Question for you:\n\n${shown}\n\nDeploy\n`,
    );
    expect(renderPost(without, ACTION_TARGET).message).toMatch(/^Question for you:\n\nDeploy\n/);
  });

  it("Teams: the card's first TextBlock, escaped, each line a paragraph", () => {
    const card = renderQuestionCard(withContext) as { body: { text?: string }[] };
    expect(card.body[0]).toEqual({
      type: "TextBlock",
      text: "Release agent for <alice> & \\*ops\\*:\n\n\\# v1.4 \\_passed\\_",
      wrap: true,
    });
    expect(card.body[1]?.text).toBe("Deploy");
    expect((renderQuestionCard(without) as { body: { text?: string }[] }).body[0]?.text).toBe("Deploy");
  });

  it("the terminal: printed under the first line, as written", async () => {
    let printed = "";
    const terminal = createConsoleChannel((text) => {
      printed += text;
    });
    await terminal.deliver(withContext, { channel: "console", chatId: "terminal" }, "console:ops");
    expect(printed).toContain(`[ask_1] Question for you:\n\n${CONTEXT}\n\nDeploy\n`);
  });
});
