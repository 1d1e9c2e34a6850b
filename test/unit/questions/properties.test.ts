/**
 * Property tests of the pure domain over arbitrary input (Lifecycle guarantee 6, bad input): a model's
 * arguments, a chat user's text and an answer envelope can be anything; the domain answers with its own
 * errors, never with a crash.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  InvalidAnswerError,
  normalizeAskUserArgs,
  parseTextReply,
  ToolInputError,
  validateAnswers,
} from "#lib/questions/index.ts";
import { MAX_ANSWER_VALUE_UNITS, MAX_ANSWERS_BYTES } from "#lib/questions/schema.ts";
import { checks, deployTarget, releaseNote } from "./fixtures.ts";

const all = [deployTarget, checks, releaseNote];

/** Arguments that are almost right: random JSON mixed into the places the schema looks at. */
const nearlyValidArgs = fc.record(
  {
    questions: fc.oneof(
      fc.jsonValue(),
      fc.array(
        fc.record(
          {
            id: fc.oneof(fc.string(), fc.constantFrom("a", "deploy_target", "q2"), fc.jsonValue()),
            header: fc.oneof(fc.string(), fc.jsonValue()),
            question: fc.oneof(fc.string(), fc.jsonValue()),
            options: fc.oneof(
              fc.jsonValue(),
              fc.array(
                fc.record(
                  { label: fc.oneof(fc.string(), fc.jsonValue()), description: fc.jsonValue() },
                  { requiredKeys: [] },
                ),
                { maxLength: 6 },
              ),
            ),
            multiSelect: fc.jsonValue(),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 5 },
      ),
    ),
    timeoutSeconds: fc.oneof(fc.jsonValue(), fc.integer(), fc.double()),
  },
  { requiredKeys: [] },
);

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe("normalizeAskUserArgs over arbitrary input", () => {
  it("throws nothing but ToolInputError (with at least one issue) for any JSON value", () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), nearlyValidArgs, fc.anything()), (args) => {
        const error = thrownBy(() => normalizeAskUserArgs(args));
        if (error === undefined) return;
        expect(error).toBeInstanceOf(ToolInputError);
        expect((error as ToolInputError).issues.length).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });

  it("accepts every well-formed call, with 1-3 questions, 2-4 options and a timeout clamped to [30, 3600]", () => {
    const label = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,20}$/).filter((l) => !/^other/i.test(l.trim()));
    const question = (index: number) =>
      fc.record({
        id: fc.constant(`q${index}`),
        header: fc.stringMatching(/^\S[^\n]{0,30}$/),
        question: fc.stringMatching(/^\S.{0,80}$/),
        options: fc
          .uniqueArray(label, {
            minLength: 2,
            maxLength: 4,
            selector: (l) => l.trim().toLowerCase(),
          })
          .map((labels) => labels.map((l) => ({ label: l }))),
        multiSelect: fc.boolean(),
      });
    const args = fc.record({
      questions: fc
        .integer({ min: 1, max: 3 })
        .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => question(i)))),
      timeoutSeconds: fc.integer({ min: -100_000, max: 100_000 }),
    });
    fc.assert(
      fc.property(args, (raw) => {
        const request = normalizeAskUserArgs(raw);
        expect(request.questions).toHaveLength(raw.questions.length);
        for (const q of request.questions) {
          expect(q.options.length).toBeGreaterThanOrEqual(2);
          expect(q.options.length).toBeLessThanOrEqual(4);
          expect(q.allowOther).toBe(true);
        }
        expect(request.timeoutSeconds).toBeGreaterThanOrEqual(30);
        expect(request.timeoutSeconds).toBeLessThanOrEqual(3600);
      }),
      { numRuns: 500 },
    );
  });
});

describe("parseTextReply over arbitrary text", () => {
  const anyText = fc.oneof(
    fc.string({ unit: "grapheme", maxLength: 200 }),
    fc.string({ unit: "binary", maxLength: 200 }),
    fc
      .array(
        fc.constantFrom(
          "1",
          "2",
          ",",
          ";",
          "\n",
          ":",
          "=",
          "-",
          " ",
          "skip",
          "/cancel",
          "deploy_target",
          "Unit",
          "💥",
          "\u0000",
        ),
      )
      .map((parts) => parts.join("")),
  );

  it("never throws and always returns one of its four kinds, for every question shape", () => {
    fc.assert(
      fc.property(fc.constantFrom([deployTarget], [checks], all), anyText, (questions, text) => {
        const reply = parseTextReply(questions, text);
        expect(["answer", "skip", "cancel", "none"]).toContain(reply.kind);
        if (reply.kind === "answer") {
          for (const values of Object.values(reply.answers)) expect(Array.isArray(values)).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("handles huge texts (1 MB, unicode) without throwing", () => {
    const huge = "💥 1, 2; Unit\n".repeat(80_000);
    for (const questions of [[deployTarget], [checks], all]) {
      expect(["answer", "skip", "cancel", "none"]).toContain(parseTextReply(questions, huge).kind);
    }
  });
});

describe("validateAnswers over arbitrary envelopes", () => {
  it("throws nothing but InvalidAnswerError, and whatever it accepts fits the size limits", () => {
    const envelope = fc.oneof(
      fc.anything(),
      fc.dictionary(
        fc.constantFrom("deploy_target", "checks", "release_note", "other"),
        fc.array(fc.string({ unit: "grapheme", maxLength: 50 }), { maxLength: 5 }),
      ),
    );
    fc.assert(
      fc.property(envelope, (answers) => {
        const error = thrownBy(() => validateAnswers(all, answers));
        if (error !== undefined) {
          expect(error).toBeInstanceOf(InvalidAnswerError);
          return;
        }
        const canonical = validateAnswers(all, answers);
        expect(new TextEncoder().encode(JSON.stringify(canonical)).length).toBeLessThanOrEqual(
          MAX_ANSWERS_BYTES,
        );
      }),
      { numRuns: 2000 },
    );
  });
});

describe("answer size limits (far below Step Functions' 256 KiB output)", () => {
  it("a value of exactly MAX_ANSWER_VALUE_UNITS is accepted; one unit more is too_long", () => {
    const atLimit = "x".repeat(MAX_ANSWER_VALUE_UNITS);
    expect(validateAnswers([deployTarget], { deploy_target: [atLimit] })).toEqual({
      deploy_target: [atLimit],
    });
    const error = thrownBy(() => validateAnswers([deployTarget], { deploy_target: [`${atLimit}x`] }));
    expect(error).toBeInstanceOf(InvalidAnswerError);
    expect(error).toMatchObject({ reason: "too_long", questionId: "deploy_target" });
  });

  it("many values that each fit but together exceed MAX_ANSWERS_BYTES are too_long", () => {
    const values = Array.from({ length: 20 }, (_, i) => `${i}-${"é".repeat(1000)}`);
    const error = thrownBy(() =>
      validateAnswers(all, { deploy_target: ["Staging"], checks: values, release_note: ["Urgent"] }),
    );
    expect(error).toBeInstanceOf(InvalidAnswerError);
    expect(error).toMatchObject({ reason: "too_long", questionId: undefined });
    expect((error as Error).message).toContain(String(MAX_ANSWERS_BYTES));
  });
});
