import { describe, expect, it } from "vitest";
import {
  cutBytes,
  escapeMarkdown,
  renderDialog,
  renderPost,
  retiredPost,
} from "#lib/channels/mattermost/mattermost-render.ts";
import { submissionAnswers } from "#lib/channels/mattermost/mattermost-request.ts";
import { verifyContext } from "#lib/channels/mattermost/mattermost-signature.ts";
import { loadConfig } from "#lib/config.ts";
import type { QuestionRecord } from "#lib/store/question-record.ts";
import { createChannels } from "#lib/wiring.ts";

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
      expect(verifyContext(target.secret, a.integration.context)).toBeDefined();
    }
  });

  it("a retired copy shows the outcome (escaped) and has no buttons", () => {
    const done = retiredPost(
      record([deploy], { status: "answered", answers: { deploy_target: ["*now* @all"] } }),
    );
    expect(done.props).toEqual({ attachments: [] });
    expect(done.message).toContain("**Answered — Deploy to: \\*now\\* @\u200ball**");
  });

  it("dialogs keep Mattermost's byte limits and carry a signed state", () => {
    const long = {
      ...deploy,
      header: "デプロイ先デプロイ先デプ",
      question: "x".repeat(400),
      multiSelect: true as const,
    };
    const dialog = renderDialog(record([long, { ...deploy, id: "b" }]), "form", 0, target);
    expect(Buffer.byteLength(dialog.title)).toBeLessThanOrEqual(24);
    for (const element of dialog.elements) {
      expect(Buffer.byteLength(element.display_name)).toBeLessThanOrEqual(24);
      expect(Buffer.byteLength(element.help_text ?? "")).toBeLessThanOrEqual(150);
    }
    expect(verifyContext(target.secret, JSON.parse(dialog.state))).toMatchObject({ option: "dialog" });
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

describe("Mattermost configuration", () => {
  const base = {
    HANDRAISE_TABLE: "t",
    MATTERMOST_URL: "https://chat.example.com",
    MATTERMOST_BOT_TOKEN: "bot-token",
  };

  it("needs the action secret (≥ 16 characters) and the public URL once the server and bot token are set", () => {
    expect(() => loadConfig(base)).toThrow(/MATTERMOST_ACTION_SECRET.*HANDRAISE_PUBLIC_URL/);
    expect(() =>
      loadConfig({
        ...base,
        MATTERMOST_ACTION_SECRET: "short",
        HANDRAISE_PUBLIC_URL: "https://api.example.com",
      }),
    ).toThrow(/MATTERMOST_ACTION_SECRET/);
    const config = loadConfig({
      ...base,
      MATTERMOST_ACTION_SECRET: "0123456789abcdef",
      HANDRAISE_PUBLIC_URL: "https://api.example.com",
    });
    expect(config.publicUrl).toBe("https://api.example.com");
    expect(createChannels(config).has("mattermost")).toBe(true);
  });

  it("without a server URL the channel is off, and placeholder secrets are not checked", () => {
    const config = loadConfig({
      HANDRAISE_TABLE: "t",
      MATTERMOST_BOT_TOKEN: "x",
      MATTERMOST_ACTION_SECRET: "x",
    });
    expect(createChannels(config).has("mattermost")).toBe(false);
  });
});
