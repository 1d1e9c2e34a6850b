/**
 * The message catalog (lib/validation-messages.ts): the sentence for each kind of zod issue, read from the
 * schema that raised it, and how every boundary lists and summarizes problems.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  describeIssue,
  fieldOf,
  type InputIssue,
  issuesOf,
  ruleMessage,
  summarize,
  unknownFieldMessage,
} from "#lib/validation-messages.ts";
import * as z from "#lib/zod.ts";

/** The zod library's own wording, which no sentence may carry. */
const LIBRARY_WORDING = /expected|received|Invalid input|nonoptional|Unrecognized|NaN/;

/** The problems `schema` finds in `value`, as the boundaries list them. */
function problems(schema: z.ZodMiniType, value: unknown, prefix: PropertyKey[] = []): InputIssue[] {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error(`expected ${JSON.stringify(value)} to be refused`);
  return issuesOf(parsed.error.issues, { prefix });
}

const target = z.strictObject({
  channel: z.string().check(z.minLength(1), z.maxLength(32)),
  chatId: z.string().check(z.minLength(1), z.maxLength(256)),
  threadId: z.optional(z.string()),
});
const body = z.strictObject({
  questions: z.unknown(),
  owner: z.string(),
  deliverTo: z._default(z.array(target).check(z.maxLength(10)), []),
  sessionKey: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
  multiSelect: z.optional(z.boolean()),
  reason: z.optional(z.enum(["cancelled", "skipped"])),
  notify: z.optional(z.strictObject({ url: z.url() })),
  labels: z.optional(z.array(z.string()).check(z.minLength(2), z.maxLength(4))),
  code: z.optional(z.string().check(z.regex(/^[a-z]+$/))),
});
const timeoutMs = z.coerce.number().check(z.int(), z.gte(0), z.lte(25_000));

describe("the sentence for each kind of problem", () => {
  it.each<[string, z.ZodMiniType, unknown, InputIssue[]]>([
    [
      "a missing field, also one of any type",
      body,
      {},
      [
        { path: "questions", message: "questions is required" },
        { path: "owner", message: "owner is required" },
      ],
    ],
    [
      "a value of the wrong type",
      body,
      { questions: 1, owner: 7, multiSelect: "yes" },
      [
        { path: "owner", message: "owner must be a string" },
        { path: "multiSelect", message: "multiSelect must be true or false" },
      ],
    ],
    [
      "a list of objects, told what each must hold and how many there may be",
      body,
      { questions: 1, owner: "o", deliverTo: "telegram:1" },
      [{ path: "deliverTo", message: "deliverTo must be a list of at most 10 {channel, chatId} objects" }],
    ],
    [
      "an item of a list",
      body,
      { questions: 1, owner: "o", deliverTo: [1] },
      [{ path: "deliverTo.0", message: "each item of deliverTo must be a {channel, chatId} object" }],
    ],
    [
      "a field inside an item: its own name, the path says where",
      body,
      { questions: 1, owner: "o", deliverTo: [{ channel: "", chatId: "x".repeat(257) }] },
      [
        { path: "deliverTo.0.channel", message: "channel must not be empty" },
        { path: "deliverTo.0.chatId", message: "chatId must be at most 256 characters long" },
      ],
    ],
    [
      "a list too short or too long: its whole range",
      body,
      { questions: 1, owner: "o", labels: ["a"] },
      [{ path: "labels", message: "labels must have 2 to 4 items" }],
    ],
    [
      "a value that is not one of a few",
      body,
      { questions: 1, owner: "o", reason: "later" },
      [{ path: "reason", message: "reason must be cancelled or skipped" }],
    ],
    [
      "a URL that is not one, and a pattern broken",
      body,
      { questions: 1, owner: "o", notify: { url: "nope" }, code: "A1" },
      [
        { path: "notify.url", message: "url must be a URL" },
        { path: "code", message: "code is not in the form this field takes" },
      ],
    ],
    [
      "the input itself of the wrong type",
      body,
      [],
      [{ path: "", message: "the input must be a {questions, owner} object" }],
    ],
    [
      "a discriminated union's tag",
      z.object({
        model: z.discriminatedUnion("provider", [
          z.object({ provider: z.literal("scripted") }),
          z.object({ provider: z.literal("openai") }),
        ]),
      }),
      { model: { provider: "gemini" } },
      [{ path: "model.provider", message: "provider must be scripted or openai" }],
    ],
  ])("%s", (_, schema, value, expected) => {
    expect(problems(schema, value)).toEqual(expected);
  });

  it.each(["abc", "1.5", "-1", "25001", "1e9", "Infinity"])(
    "a whole number out of its range (timeoutMs=%s) is told the whole range, whatever broke it",
    (value) => {
      expect(problems(z.strictObject({ timeoutMs }), { timeoutMs: value }, ["query"])).toEqual([
        { path: "query.timeoutMs", message: "timeoutMs must be a whole number from 0 to 25000" },
      ]);
    },
  );

  it("numbers with one bound, or none", () => {
    const schema = z.object({
      atLeast: z.optional(z.int().check(z.gte(1))),
      atMost: z.optional(z.number().check(z.lte(5))),
      any: z.optional(z.number()),
      above: z.optional(z.number().check(z.gt(0))),
    });
    expect(problems(schema, { atLeast: 0, atMost: 6, any: "x", above: 0 })).toEqual([
      { path: "atLeast", message: "atLeast must be a whole number of at least 1" },
      { path: "atMost", message: "atMost must be a number of at most 5" },
      { path: "any", message: "any must be a number" },
      { path: "above", message: "above must be a number greater than 0" },
    ]);
  });

  it("a schema's own sentence wins; ruleMessage makes it name whichever field it sits at", () => {
    const seconds = z.int({ error: ruleMessage("must be a whole number of seconds") });
    const schema = z.object({
      afterSeconds: seconds,
      reminders: z.array(seconds),
      fixed: z.string({ error: "fixed must be text, as the contract says" }),
    });
    expect(problems(schema, { afterSeconds: 1.5, reminders: [1, "2"], fixed: 3 })).toEqual([
      { path: "afterSeconds", message: "afterSeconds must be a whole number of seconds" },
      { path: "reminders.1", message: "each item of reminders must be a whole number of seconds" },
      { path: "fixed", message: "fixed must be text, as the contract says" },
    ]);
  });

  it("never uses the schema library's wording, for any kind of problem", () => {
    const values: unknown[] = [
      {},
      [],
      null,
      "text",
      { questions: 1, owner: 1, deliverTo: [null, { channel: 1, chatId: [], extra: 1 }], sessionKey: "" },
      { questions: 1, owner: "o", multiSelect: 1, reason: 1, notify: { url: 1 }, labels: [1], code: "" },
      { questions: 1, owner: "o", labels: "x".repeat(9), notify: "x", unknown: 1, other: 2 },
    ];
    for (const value of values) {
      for (const problem of problems(body, value)) expect(problem.message).not.toMatch(LIBRARY_WORDING);
    }
    for (const value of [NaN, "NaN", {}, 1.5, -1]) {
      for (const problem of problems(z.object({ timeoutMs }), { timeoutMs: value })) {
        expect(problem.message).not.toMatch(LIBRARY_WORDING);
      }
    }
  });
});

describe("for any value of any field", () => {
  it("every problem is a sentence naming its field, without the library's wording (property)", () => {
    const fields = [
      "questions",
      "owner",
      "deliverTo",
      "sessionKey",
      "multiSelect",
      "reason",
      "notify",
      "labels",
    ];
    // Keys from a fixed set: an unknown field's name is said back, and a random one could be "expected".
    const anything = fc.anything({ key: fc.constantFrom(...fields, "channel", "chatId", "url", "extra") });
    const value = fc.oneof(
      anything,
      fc.dictionary(fc.constantFrom(...fields, "extra"), anything, { maxKeys: 6 }),
      fc.record({ questions: fc.constant(1), owner: fc.constant("o"), deliverTo: fc.array(anything) }),
    );
    fc.assert(
      fc.property(value, (input) => {
        const parsed = body.safeParse(input);
        if (parsed.success) return;
        for (const problem of issuesOf(parsed.error.issues)) {
          expect(problem.message).not.toMatch(LIBRARY_WORDING);
          const field =
            problem.path
              .split(".")
              .filter((s) => s !== "" && !/^\d+$/.test(s))
              .at(-1) ?? "the input";
          expect(problem.message, problem.path).toContain(field);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("unknown fields", () => {
  it("are each a problem at its own path, saying whose field it is not", () => {
    const value = {
      questions: 1,
      owner: "o",
      timeout: 5,
      deliverTo: [{ channel: "c", chatId: "1", color: 1 }],
    };
    expect(problems(body, value)).toEqual([
      { path: "deliverTo.0.color", message: "color is not a field of deliverTo" },
      { path: "timeout", message: "timeout is not a field of this request" },
    ]);
  });

  it("of a query string are query parameters", () => {
    expect(
      problems(z.strictObject({ timeoutMs: z.optional(timeoutMs) }), { timeout: "5", x: "" }, ["query"]),
    ).toEqual([
      { path: "query.timeout", message: "timeout is not a query parameter of this route" },
      { path: "query.x", message: "x is not a query parameter of this route" },
    ]);
  });

  it("are worded by the caller when its contract has its own sentence", () => {
    const parsed = body.safeParse({ questions: 1, owner: "o", secret: true });
    const issues = parsed.success
      ? []
      : issuesOf(parsed.error.issues, { unknownField: (_, key) => `no "${key}"` });
    expect(issues).toEqual([{ path: "secret", message: 'no "secret"' }]);
  });

  it("unknownFieldMessage names the object by its last name", () => {
    expect(unknownFieldMessage([], "a")).toBe("a is not a field of this request");
    expect(unknownFieldMessage(["escalate", "deliverTo", 0], "a")).toBe("a is not a field of deliverTo");
  });
});

describe("listing and summarizing", () => {
  it("a size problem beside a type problem at the same path is left out", () => {
    const schema = z.object({ labels: z.array(z.string()).check(z.maxLength(2)) });
    expect(problems(schema, { labels: "abc" }).map((problem) => problem.path)).toEqual(["labels"]);
  });

  it("fieldOf: the last name, an item of a list, the input itself", () => {
    expect(fieldOf(["deliverTo", 0, "channel"])).toBe("channel");
    expect(fieldOf(["remindAfterSeconds", 2])).toBe("each item of remindAfterSeconds");
    expect(fieldOf([])).toBe("the input");
  });

  it("a problem is its sentence, with where it is only when the field name alone does not say", () => {
    expect(describeIssue({ path: "owner", message: "owner is required" })).toBe("owner is required");
    expect(describeIssue({ path: "query.limit", message: "limit must be …" })).toBe("limit must be …");
    expect(describeIssue({ path: "", message: "the input must be an object" })).toBe(
      "the input must be an object",
    );
    expect(describeIssue({ path: "deliverTo.0.channel", message: "channel is required." })).toBe(
      "channel is required (at deliverTo.0.channel)",
    );
    expect(describeIssue({ path: "notify.url", message: "notify.url must be https." })).toBe(
      "notify.url must be https",
    );
  });

  it("a summary: what was read, the first problem, and how many more; never the field name twice", () => {
    const issues = [
      { path: "questions.0.id", message: "id must start with a lowercase letter" },
      { path: "timeoutSeconds", message: "timeoutSeconds must be a whole number of seconds" },
      { path: "owner", message: "owner is required" },
    ];
    expect(summarize("Invalid request", issues)).toBe(
      "Invalid request: id must start with a lowercase letter (at questions.0.id), and 2 more problems.",
    );
    expect(summarize("Invalid request", issues.slice(1, 2))).toBe(
      "Invalid request: timeoutSeconds must be a whole number of seconds.",
    );
    expect(summarize("Invalid request", issues.slice(1))).toMatch(/, and 1 more problem\.$/);
    expect(summarize("Invalid request", [])).toBe("Invalid request.");
  });
});
