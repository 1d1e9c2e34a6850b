import { describe, expect, it } from "vitest";
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
    ).toEqual([1, 1, 0]);
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
    const dialog = renderDialog(record([deploy, long]), { control, postId: "p1" }, target);
    expect(Buffer.byteLength(dialog.title)).toBeLessThanOrEqual(24);
    expect(dialog.elements.map((e) => [e.name, e.type, e.multiselect])).toEqual([
      ["checks", "select", true],
      ["checks:other", "text", undefined],
    ]);
    for (const element of dialog.elements) {
      expect(Buffer.byteLength(element.display_name)).toBeLessThanOrEqual(24);
    }
    expect(verifyDialogState(target.secret, dialog.state)).toEqual({ control, postId: "p1" });
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
