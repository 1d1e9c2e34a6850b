import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { normalizeAskUserArgs } from "#lib/questions/index.ts";
import type { QuestionRecord } from "#lib/questions/question-record.ts";
import { CONTENT_SECURITY_POLICY, PAGE_SCRIPT, PAGE_STYLE } from "#lib/web/answer-page-assets.ts";
import {
  escapeHtml,
  renderFormPage,
  renderMessagePage,
  renderOutcomePage,
  timeLeftText,
} from "#lib/web/answer-page-html.ts";

const HOSTILE = `<img src=x onerror=alert(1)>"'&`;
const { questions } = normalizeAskUserArgs({
  questions: [
    {
      id: "q",
      header: "<b>h</b>",
      question: HOSTILE,
      options: [{ label: HOSTILE.slice(0, 30), description: HOSTILE }, { label: "B" }],
    },
  ],
});
const record: QuestionRecord = {
  id: "ask_1",
  status: "pending",
  questions,
  owner: "web:ann",
  deliveries: [],
  createdAtMs: 0,
  expiresAtMs: 1000,
};

describe("the answer page's HTML", () => {
  it("escapes & < > \" ' in every text of a question, as text and in attributes", () => {
    expect(escapeHtml(HOSTILE)).toBe("&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;");
    const html = renderFormPage({
      record,
      sig: "s".repeat(43),
      remainingMs: 60_000,
      state: { picked: { q: ['"><script>'] }, text: { q: HOSTILE } },
    });
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<b>h");
    expect(html).not.toContain('"><script>');
    expect(html).toContain(`value="${escapeHtml(HOSTILE)}"`);
    const answered = renderOutcomePage({
      ...record,
      status: "answered",
      answers: { q: [HOSTILE] },
      resolvedBy: "web:ann",
    });
    expect(answered).not.toContain("<img");
    expect(answered).toContain(`<dd class="answer">${escapeHtml(HOSTILE)}</dd>`);
  });

  it("carries exactly one inline script and one inline style, which the policy allows by hash", () => {
    const html = renderFormPage({ record, sig: "s".repeat(43), remainingMs: 1 });
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(html.match(/<style>/g)).toHaveLength(1);
    // No inline style attribute or event handler in any tag (the policy would refuse both).
    expect(html).not.toMatch(/<[^>]*\s(style|on[a-z]+)=/);
    const hash = (text: string) => createHash("sha256").update(text).digest("base64");
    expect(CONTENT_SECURITY_POLICY).toContain(`script-src 'sha256-${hash(PAGE_SCRIPT)}'`);
    expect(CONTENT_SECURITY_POLICY).toContain(`style-src 'sha256-${hash(PAGE_STYLE)}'`);
    expect(renderMessagePage({ title: "T", text: "x" })).not.toContain("<script>");
  });

  it("words the outcome of every way a question ends", () => {
    const titled = (r: Partial<QuestionRecord>) =>
      /<h1>(.*)<\/h1>/.exec(renderOutcomePage({ ...record, ...r }))?.[1];
    expect(titled({ status: "answered", answers: { q: ["B"] }, resolvedBy: "web:ann" })).toBe("Answered");
    expect(titled({ status: "answered", answers: { q: ["B"] }, resolvedBy: "telegram:42" })).toBe(
      "Answered elsewhere",
    );
    expect(titled({ status: "cancelled", reason: "skipped" })).toBe("Skipped");
    expect(titled({ status: "cancelled", reason: "cancelled" })).toBe("Cancelled");
    expect(titled({ status: "expired" })).toBe("Expired");
    expect(titled({ status: "delivery_failed" })).toBe("Ended");
  });

  it("says the time left in minutes, hours and minutes, or less than a minute", () => {
    expect(timeLeftText(59_999)).toBe("less than a minute");
    expect(timeLeftText(14 * 60_000 + 59_000)).toBe("14 min");
    expect(timeLeftText(125 * 60_000)).toBe("2 h 5 min");
  });
});
