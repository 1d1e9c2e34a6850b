import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { normalizeAskUserArgs } from "#lib/questions/index.ts";
import type { QuestionRecord } from "#lib/questions/question-record.ts";
import { CONTENT_SECURITY_POLICY, PAGE_SCRIPT, PAGE_STYLE } from "#lib/web/answer-page-assets.ts";
import {
  askingKeyName,
  renderFormPage,
  renderMessagePage,
  renderOutcomePage,
  timeLeftText,
} from "#lib/web/answer-page-html.ts";
import { escapeHtml } from "#lib/web/html.ts";

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

describe("who is asking and why, above the questions", () => {
  const context = `Release agent for ${HOSTILE}:\nv1.4 is green.`;
  const asked: QuestionRecord = { ...record, context, askedBy: "api:ops-bot" };
  const form = (r: QuestionRecord) => renderFormPage({ record: r, sig: "s".repeat(43), remainingMs: 60_000 });

  it("shows the context escaped, line break kept, and the asking key's name, before the first question", () => {
    const html = form(asked);
    const shown = `<p class="context" id="context">${escapeHtml(context)}</p>`;
    expect(html).toContain(shown);
    expect(html).toContain('<p class="meta" id="asked-by">Asked by ops-bot</p>');
    expect(html.indexOf(shown)).toBeLessThan(html.indexOf('<fieldset id="question-0"'));
    expect(html).not.toContain("<img");
  });

  it("shows both on the outcome page too, above the answers", () => {
    const html = renderOutcomePage({
      ...asked,
      status: "answered",
      answers: { q: ["B"] },
      resolvedBy: "web:ann",
    });
    const shown = `<p class="context" id="context">${escapeHtml(context)}</p>`;
    expect(html).toContain(shown);
    expect(html).toContain("Asked by ops-bot");
    expect(html.indexOf(shown)).toBeLessThan(html.indexOf("<dl>"));
    expect(renderOutcomePage({ ...asked, status: "expired" })).toContain(shown);
  });

  it("names an API key, but neither the operator's default key nor a run; nothing without a context", () => {
    expect(askingKeyName({ askedBy: "api:ops-bot" })).toBe("ops-bot");
    expect(askingKeyName({ askedBy: "api:default" })).toBeUndefined();
    expect(askingKeyName({ askedBy: "run" })).toBeUndefined();
    expect(askingKeyName({})).toBeUndefined();
    const plain = form({ ...record, askedBy: "run" });
    expect(plain).not.toContain('id="context"');
    expect(plain).not.toContain("Asked by");
  });
});
