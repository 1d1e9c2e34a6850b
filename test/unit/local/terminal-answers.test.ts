/**
 * The terminal as a place to answer (infra/local/terminal-answers.ts): which question a typed line answers
 * in `npm run local` (the oldest one shown there that still waits), and what the person is told as they go.
 */
import { describe, expect, it } from "vitest";
import type { PublishedEvent } from "#infra/local/event-bus.ts";
import { createConsoleQuestions, createTerminalAnswers } from "#infra/local/terminal-answers.ts";
import type { QuestionRecord } from "#lib/questions/question-record.ts";
import { questionRecord } from "../../support/records.ts";

const event = (type: string, record: QuestionRecord): PublishedEvent => ({
  "detail-type": type,
  source: "handraise",
  detail: record as unknown as Record<string, unknown>,
  eventBusName: "local",
});
const onConsole = { channel: "console", chatId: "terminal" };

/** A terminal over `records` (by id), recording what it printed and what it sent to the API. */
function terminal(records: Map<string, QuestionRecord>) {
  const printed: string[] = [];
  const sent: { method: string; path: string; body: unknown }[] = [];
  const shown = createConsoleQuestions(async (id) => records.get(id));
  const answers = createTerminalAnswers({
    pendingQuestion: shown.oldestPending,
    api: async (method, path, body) => {
      sent.push({ method, path, body });
      return { status: 200, json: {} };
    },
    print: (text) => printed.push(text),
    resolvedBy: "console",
  });
  return { shown, answers, printed, sent };
}

describe("npm run local's terminal", () => {
  it("answers the oldest question shown there that still waits; ones shown elsewhere are not its", async () => {
    const first = questionRecord({ id: "ask_a", deliveries: [onConsole] });
    const second = questionRecord({ id: "ask_b", deliveries: [onConsole] });
    const elsewhere = questionRecord({ id: "ask_c", deliveries: [{ channel: "telegram", chatId: "42" }] });
    const records = new Map([first, second, elsewhere].map((r) => [r.id, r]));
    const { shown, answers, sent } = terminal(records);
    for (const record of [elsewhere, first, second]) shown.observe(event("Question Requested", record));

    await answers.onLine("skip");
    expect(sent.at(-1)?.path).toBe("/questions/ask_a/cancel");
    // ask_a ended (answered elsewhere): the next line goes to ask_b.
    records.set("ask_a", { ...first, status: "answered" });
    await answers.onLine("/cancel");
    expect(sent.at(-1)).toEqual({
      method: "POST",
      path: "/questions/ask_b/cancel",
      body: { reason: "cancelled", resolvedBy: "console" },
    });
    shown.observe(event("Question Resolved", second));
    expect(await shown.oldestPending()).toBeUndefined();
  });

  it("a line that answers some questions is echoed and kept; the next gives the rest", async () => {
    const record = questionRecord({ deliveries: [onConsole] });
    const { shown, answers, printed, sent } = terminal(new Map([[record.id, record]]));
    shown.observe(event("Question Requested", record));
    await answers.onLine("2");
    expect(printed.at(-1)).toBe(
      'Recorded: Deploy: Production. Still needed: Checks [checks], Release note [release_note]. Type the next line (or "id: answer").',
    );
    await answers.onLine("1, 3");
    expect(printed.at(-1)).toMatch(
      /^Recorded: Checks: Unit, Lint\. Still needed: Release note \[release_note\]\./,
    );
    await answers.onLine("urgent");
    expect(sent).toEqual([
      {
        method: "POST",
        path: "/questions/ask_1/answer",
        body: {
          answers: { deploy_target: ["Production"], checks: ["Unit", "Lint"], release_note: ["Urgent"] },
          resolvedBy: "console",
        },
      },
    ]);
  });
});
