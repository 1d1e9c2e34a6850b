/**
 * formatToolResult: what the model reads (the results given back to the model): text first,
 * then the JSON of `details`.
 */
import { describe, expect, it } from "vitest";
import { type AskUserResult, formatToolResult } from "#lib/questions/index.ts";
import { askUserResultSchema } from "#lib/questions/schema.ts";
import { checks, deployTarget, releaseNote } from "./fixtures.ts";

const all = [deployTarget, checks, releaseNote];

describe("formatToolResult: answered", () => {
  it("writes one \"<header>: <values joined by ', '>\" line per question, then the JSON", () => {
    const result: AskUserResult = {
      status: "answered",
      answers: {
        deploy_target: ["Production"],
        checks: ["Unit", "E2E"],
        release_note: ["night-shift"],
      },
    };

    const { text, details } = formatToolResult(result, all);

    expect(text.split("\n")).toEqual([
      "Deploy: Production",
      "Checks: Unit, E2E",
      "Release note: night-shift",
      '{"status":"answered","answers":{"deploy_target":["Production"],"checks":["Unit","E2E"],"release_note":["night-shift"]}}',
    ]);
    expect(details).toEqual(result);
  });

  it("writes the lines in question order", () => {
    const result: AskUserResult = {
      status: "answered",
      answers: { release_note: ["Urgent"], deploy_target: ["Staging (Recommended)"] },
    };

    const { text } = formatToolResult(result, [deployTarget, releaseNote]);

    expect(text.split("\n").slice(0, 2)).toEqual(["Deploy: Staging (Recommended)", "Release note: Urgent"]);
  });

  it("ends with JSON that parses back to details, every answer an array", () => {
    const result: AskUserResult = { status: "answered", answers: { deploy_target: ["Production"] } };

    const { text, details } = formatToolResult(result, [deployTarget]);

    expect(JSON.parse(text.split("\n").at(-1) ?? "")).toEqual({
      status: "answered",
      answers: { deploy_target: ["Production"] },
    });
    expect(details).toEqual({ status: "answered", answers: { deploy_target: ["Production"] } });
  });

  it("names who answered in the JSON (resolvedBy), the answer lines unchanged", () => {
    const result: AskUserResult = {
      status: "answered",
      answers: { deploy_target: ["Production"] },
      resolvedBy: "telegram:42",
    };

    const { text } = formatToolResult(result, [deployTarget]);

    expect(text.split("\n")).toEqual([
      "Deploy: Production",
      '{"status":"answered","answers":{"deploy_target":["Production"]},"resolvedBy":"telegram:42"}',
    ]);
    expect(askUserResultSchema.parse(JSON.parse(text.split("\n").at(-1) ?? ""))).toEqual(result);
  });
});

describe("formatToolResult: no_answer", () => {
  it.each([
    ["expired", /did not answer in time/],
    ["cancelled", /cancelled/],
    ["skipped", /skip/],
  ] as const)(
    "for %s: a sentence naming the reason and telling to continue with best judgment, then the JSON",
    (reason, says) => {
      const result: AskUserResult = { status: "no_answer", reason };

      const { text, details } = formatToolResult(result, [deployTarget]);

      const [sentence, json, ...rest] = text.split("\n");
      expect(sentence).toMatch(says);
      expect(sentence).toContain(`reason: ${reason}`);
      expect(sentence).toMatch(/continue with your best judgment/i);
      expect(json).toBe(`{"status":"no_answer","reason":"${reason}"}`);
      expect(rest).toEqual([]);
      expect(details).toEqual({ status: "no_answer", reason });
    },
  );

  it("gives each reason its own sentence", () => {
    const reasons = ["expired", "cancelled", "skipped"] as const;

    const sentences = reasons.map((reason) => formatToolResult({ status: "no_answer", reason }, []).text);

    expect(new Set(sentences).size).toBe(3);
  });
});

describe("formatToolResult: delivery_failed", () => {
  it("says not to ask again, then the JSON", () => {
    const result: AskUserResult = { status: "delivery_failed" };

    const { text, details } = formatToolResult(result, [deployTarget]);

    const [sentence, json, ...rest] = text.split("\n");
    expect(sentence).toMatch(/could not be delivered/);
    expect(sentence).toMatch(/do not (ask it again|retry)/i);
    expect(json).toBe('{"status":"delivery_failed"}');
    expect(rest).toEqual([]);
    expect(details).toEqual({ status: "delivery_failed" });
  });
});
