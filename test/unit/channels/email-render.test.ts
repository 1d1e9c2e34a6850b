/**
 * A mail's subject is a header: one line, read as written whatever the question's header holds.
 */
import { describe, expect, it } from "vitest";
import { renderQuestionMail, renderReminderMail, subjectLine } from "#lib/channels/email/email-render.ts";
import { questionRecord } from "#test/support/records.ts";
import { deployTarget } from "#test/unit/questions/fixtures.ts";

const LINKS = { url: "https://handraise.example.com/a?t=1", choose: [] };

describe("the mail subject", () => {
  it("turns line and paragraph separators into spaces, as it does control characters", () => {
    expect(subjectLine("Deploy\u2028Bcc: x@example.com\u2029now\r\n\tplease")).toBe(
      "Deploy Bcc: x@example.com now please",
    );
  });

  it("drops bidirectional marks, embeddings, overrides and isolates", () => {
    const controls = ["\u061C", "\u200E", "\u200F", "\u202A", "\u202B", "\u202C", "\u202D", "\u202E"];
    const isolates = ["\u2066", "\u2067", "\u2068", "\u2069"];
    for (const control of [...controls, ...isolates]) {
      expect(subjectLine(`Deploy ${control}txt.exe`)).toBe("Deploy txt.exe");
    }
  });

  it("keeps every other character, right-to-left scripts and emoji included", () => {
    expect(subjectLine("  פריסה ✅ — prod  ")).toBe("פריסה ✅ — prod");
  });

  it("is applied to a question's mail and a reminder's alike", () => {
    const record = questionRecord({
      expiresAtMs: Date.UTC(2026, 11, 3, 20, 30),
      questions: [{ ...deployTarget, header: "Deploy\u2028to\u202Egnp.exe" }],
    });
    expect(renderQuestionMail(record, LINKS).subject).toBe("Question for you: Deploy tognp.exe");
    expect(renderReminderMail(record, "Still waiting", LINKS.url).subject).toBe("Reminder: Deploy tognp.exe");
  });
});
