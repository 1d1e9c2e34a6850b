/**
 * askUserToolDefinitions: the tool in OpenAI, Anthropic and Bedrock Converse formats, with the model guidance,
 * and a JSON Schema that agrees with normalizeAskUserArgs. docs/ask-user.md ("What the model is told") names where
 * they may differ: the uniqueness rules, which JSON Schema cannot express, and text lengths, which JSON
 * Schema counts in code points where the contract counts UTF-16 units — both in the lenient direction (the
 * schema accepts, normalize rejects); and two in the strict direction: `maxLength` counts the surrounding
 * whitespace the contract trims before it counts (a question or description at its limit, padded), and the
 * schema has no `null` where normalize reads null for an optional field as absent.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { askUserToolDefinitions, normalizeAskUserArgs, ToolInputError } from "#lib/questions/index.ts";
import { typeProblems } from "../../support/json-schema.ts";
import { issuesOf, oneQuestionArgs, questionArgs, withOptions } from "./fixtures.ts";

const definitions = askUserToolDefinitions;

/** Each provider format with where it keeps its name, description and JSON Schema. */
const formats = [
  {
    provider: "openai",
    name: definitions.openai.function.name,
    description: definitions.openai.function.description,
    schema: definitions.openai.function.parameters,
  },
  {
    provider: "anthropic",
    name: definitions.anthropic.name,
    description: definitions.anthropic.description,
    schema: definitions.anthropic.input_schema,
  },
  {
    provider: "bedrock",
    name: definitions.bedrock.toolSpec.name,
    description: definitions.bedrock.toolSpec.description,
    schema: definitions.bedrock.toolSpec.inputSchema.json,
  },
];

/** ajv in strict mode: a schema keyword it does not know, or a type mismatch in the schema, fails compile. */
function compile(schema: object): (data: unknown) => boolean {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  const validate = ajv.compile(schema);
  return (data) => validate(data) === true;
}

const validators = formats.map((format) => ({ provider: format.provider, validate: compile(format.schema) }));

function normalizeAccepts(args: unknown): boolean {
  try {
    normalizeAskUserArgs(args);
    return true;
  } catch (error) {
    if (error instanceof ToolInputError) return false;
    throw error;
  }
}

const options2 = [{ label: "Staging" }, { label: "Production" }];

/** Argument sets that both the providers' JSON Schema and normalizeAskUserArgs accept. */
const accepted: [string, unknown][] = [
  ["a minimal call", oneQuestionArgs()],
  ["three questions", { questions: ["a", "b", "c"].map((id) => questionArgs({ id })) }],
  ["four options", withOptions({ label: "A" }, { label: "B" }, { label: "C" }, { label: "D" })],
  ["ids a and q2", { questions: [questionArgs({ id: "a" }), questionArgs({ id: "q2" })] }],
  ["an id of 64 characters", oneQuestionArgs({ id: `q${"_".repeat(63)}` })],
  ["multiSelect true", oneQuestionArgs({ multiSelect: true })],
  ["multiSelect false", oneQuestionArgs({ multiSelect: false })],
  ["a description", withOptions({ label: "Staging", description: "safe" }, { label: "Production" })],
  ["a blank description", withOptions({ label: "Staging", description: "  " }, { label: "Production" })],
  ["timeoutSeconds 60", { ...oneQuestionArgs(), timeoutSeconds: 60 }],
  ["timeoutSeconds 5 (clamped later)", { ...oneQuestionArgs(), timeoutSeconds: 5 }],
  ["timeoutSeconds -1 (clamped later)", { ...oneQuestionArgs(), timeoutSeconds: -1 }],
  ["a long header (cut later)", oneQuestionArgs({ header: "Deployment target" })],
  ["a header with surrounding spaces", oneQuestionArgs({ header: "  Deploy  " })],
  ["a label of 64 units", withOptions({ label: "x".repeat(64) }, { label: "Production" })],
  ["a label of 64 units with spaces around", withOptions({ label: `  ${"x".repeat(64)} ` }, { label: "B" })],
  ["a label of 32 emoji", withOptions({ label: "😀".repeat(32) }, { label: "Production" })],
  ["the label Others", withOptions({ label: "Others" }, { label: "Production" })],
  ["the label Other team", withOptions({ label: "Other team" }, { label: "Production" })],
  ["the same labels in two questions", { questions: [questionArgs({ id: "a" }), questionArgs({ id: "b" })] }],
  ["a question of 1,000 units", oneQuestionArgs({ question: "q".repeat(1000) })],
  ["a question of 500 emoji (1,000 units)", oneQuestionArgs({ question: "😀".repeat(500) })],
  ["a description of 200 units", withOptions({ label: "A", description: "d".repeat(200) }, { label: "B" })],
  [
    "a description of 100 emoji (200 units)",
    withOptions({ label: "A", description: "😀".repeat(100) }, { label: "B" }),
  ],
];

/** Argument sets that both reject. */
const rejected: [string, unknown][] = [
  ["a string", "deploy"],
  ["null", null],
  ["an array", [questionArgs()]],
  ["no questions key", { timeoutSeconds: 60 }],
  ["zero questions", { questions: [] }],
  ["four questions", { questions: ["a", "b", "c", "d"].map((id) => questionArgs({ id })) }],
  ["questions as a string", { questions: "Where?" }],
  ["an unknown root key", { ...oneQuestionArgs(), reason: "x" }],
  ["an unknown question key", oneQuestionArgs({ priority: 1 })],
  ["an unknown option key", withOptions({ label: "Staging", value: "stg" }, { label: "Production" })],
  ["a secret flag", oneQuestionArgs({ secret: true })],
  ["allowOther given", oneQuestionArgs({ allowOther: true })],
  ["the id Deploy Target", oneQuestionArgs({ id: "Deploy Target" })],
  ["the id 9lives", oneQuestionArgs({ id: "9lives" })],
  ["the id _x", oneQuestionArgs({ id: "_x" })],
  ["an id of 65 characters", oneQuestionArgs({ id: `q${"_".repeat(64)}` })],
  ["the id with spaces", oneQuestionArgs({ id: " deploy_target " })],
  ["a missing id", { questions: [{ header: "Deploy", question: "Where?", options: options2 }] }],
  ["an empty header", oneQuestionArgs({ header: "" })],
  ["a blank header", oneQuestionArgs({ header: "   " })],
  ["a blank question", oneQuestionArgs({ question: "\n" })],
  ["a null header", oneQuestionArgs({ header: null })],
  ["one option", withOptions({ label: "Staging" })],
  ["five options", withOptions(...["A", "B", "C", "D", "E"].map((label) => ({ label })))],
  ["an option as a string", withOptions("Staging", { label: "Production" })],
  ["a blank label", withOptions({ label: "  " }, { label: "Production" })],
  ["a label of 65 units", withOptions({ label: "x".repeat(65) }, { label: "Production" })],
  ["the label Other", withOptions({ label: "Staging" }, { label: "Other" })],
  ["the label other…", withOptions({ label: "Staging" }, { label: "other…" })],
  ["the label Other...", withOptions({ label: "Staging" }, { label: " Other... " })],
  ["a numeric description", withOptions({ label: "Staging", description: 1 }, { label: "Production" })],
  ["multiSelect as a string", oneQuestionArgs({ multiSelect: "true" })],
  ["timeoutSeconds 1.5", { ...oneQuestionArgs(), timeoutSeconds: 1.5 }],
  ['timeoutSeconds "60"', { ...oneQuestionArgs(), timeoutSeconds: "60" }],
  ["a question of 1,001 units", oneQuestionArgs({ question: "q".repeat(1001) })],
  ["a question of 1,001 units with spaces around", oneQuestionArgs({ question: ` ${"q".repeat(1001)} ` })],
  ["a description of 201 units", withOptions({ label: "A", description: "d".repeat(201) }, { label: "B" })],
];

/**
 * The deliberate divergence (docs/ask-user.md, "What the model is told"): valid by the schema, refused by
 * normalizeAskUserArgs. Never the other way round.
 */
const schemaAcceptsNormalizeRejects: [string, unknown, string][] = [
  [
    "a repeated question id (uniqueness cannot be said in JSON Schema)",
    { questions: [questionArgs({ id: "deploy_target" }), questionArgs({ id: "deploy_target" })] },
    "questions.1.id",
  ],
  [
    "labels equal ignoring case and spaces (uniqueness cannot be said in JSON Schema)",
    withOptions({ label: "Staging" }, { label: " staging " }),
    "questions.0.options.1.label",
  ],
  [
    "a label of 33 emoji: 66 UTF-16 units, 33 code points",
    withOptions({ label: "Staging" }, { label: "😀".repeat(33) }),
    "questions.0.options.1.label",
  ],
  [
    "a label of 63 letters and an emoji: 65 UTF-16 units, 64 code points",
    withOptions({ label: `${"a".repeat(63)}😀` }, { label: "Production" }),
    "questions.0.options.0.label",
  ],
  [
    "a question of 501 emoji: 1,002 UTF-16 units, 501 code points",
    oneQuestionArgs({ question: "😀".repeat(501) }),
    "questions.0.question",
  ],
  [
    "a question of 999 letters and an emoji: 1,001 UTF-16 units, 1,000 code points",
    oneQuestionArgs({ question: `${"a".repeat(999)}😀` }),
    "questions.0.question",
  ],
  [
    "a description of 101 emoji: 202 UTF-16 units, 101 code points",
    withOptions({ label: "A", description: "😀".repeat(101) }, { label: "B" }),
    "questions.0.options.0.description",
  ],
  [
    "a description of 199 letters and an emoji: 201 UTF-16 units, 200 code points",
    withOptions({ label: "A", description: `${"a".repeat(199)}😀` }, { label: "B" }),
    "questions.0.options.0.description",
  ],
];

/**
 * The deliberate divergences the other way (docs/ask-user.md, "What the model is told"). The contract trims
 * before it counts, JSON Schema's `maxLength` cannot, so text at its limit with whitespace around it is valid
 * for normalizeAskUserArgs only; a provider that enforces the schema makes the model drop the padding. And
 * `null` for an optional field: normalize reads it as absent, the schema gives the field its type alone
 * (some providers refuse a type array or a `null` branch), so a provider that enforces it never sends null.
 */
const schemaRejectsNormalizeAccepts: [string, unknown][] = [
  ["multiSelect null", oneQuestionArgs({ multiSelect: null })],
  ["a null description", withOptions({ label: "Staging", description: null }, { label: "Production" })],
  ["timeoutSeconds null", { ...oneQuestionArgs(), timeoutSeconds: null }],
  ["a question of 1,000 units with spaces around", oneQuestionArgs({ question: ` ${"q".repeat(1000)}\n` })],
  [
    "a description of 200 units with spaces around",
    withOptions({ label: "A", description: `  ${"d".repeat(200)}` }, { label: "B" }),
  ],
];

describe("askUserToolDefinitions: the three formats", () => {
  it.each(formats)('names the $provider tool "ask_user"', ({ name }) => {
    expect(name).toBe("ask_user");
  });

  it("wraps OpenAI's definition as a function tool", () => {
    expect(definitions.openai.type).toBe("function");
  });

  it("shares one JSON Schema and one description across the three formats", () => {
    const [openai, anthropic, bedrock] = formats;

    expect(anthropic?.schema).toEqual(openai?.schema);
    expect(bedrock?.schema).toEqual(openai?.schema);
    expect(anthropic?.description).toBe(openai?.description);
    expect(bedrock?.description).toBe(openai?.description);
  });

  it("gives the question text and option descriptions their maxLength (1,000 and 200)", () => {
    const question = (definitions.anthropic.input_schema as any).properties.questions.items;
    const description = question.properties.options.items.properties.description;

    expect(question.properties.question).toMatchObject({ type: "string", maxLength: 1000 });
    expect(description).toMatchObject({ type: "string", maxLength: 200 });
  });

  it("types multiSelect as an optional boolean, and each optional field by its own type alone", () => {
    const question = (definitions.anthropic.input_schema as any).properties.questions.items;
    const option = question.properties.options.items;

    expect(question.properties.multiSelect).toEqual({
      type: "boolean",
      description: expect.any(String),
    });
    expect(question.required).not.toContain("multiSelect");
    expect(option.properties.description.type).toBe("string");
    expect((definitions.anthropic.input_schema as any).properties.timeoutSeconds.type).toBe("integer");
  });

  it.each(formats)("has no type array and no null type anywhere in the $provider schema", ({ schema }) => {
    expect(typeProblems(schema)).toEqual([]);
  });

  it("describes an object with exactly questions and an optional timeoutSeconds", () => {
    const schema = definitions.anthropic.input_schema;

    expect(schema).toMatchObject({
      type: "object",
      required: ["questions"],
      additionalProperties: false,
    });
    expect(Object.keys(schema.properties as object).sort()).toEqual(["questions", "timeoutSeconds"]);
  });

  it.each([
    [
      "ask only when blocked on the user's decision",
      /ask only when you are blocked on a decision that genuinely belongs to the user/i,
    ],
    ["never ask permission or to confirm a plan", /never to ask permission to proceed or to confirm a plan/i],
    ["one question per call", /one question per call unless the answers must come together/i],
    ["every choice in options", /put every choice in options/i],
    ["recommended first", /the recommended one first with " \(Recommended\)" after its label/i],
    ["multiSelect only when several", /use multiSelect only when several options may be chosen/i],
    ["never add Other", /never add an "Other" option/i],
    ["on no_answer continue with best judgment", /no_answer, continue with your best judgment/i],
  ])("carries the model guidance: %s", (_rule, text) => {
    expect.soft(definitions.openai.function.description).toMatch(text);
    expect.soft(definitions.anthropic.description).toMatch(text);
    expect(definitions.bedrock.toolSpec.description).toMatch(text);
  });
});

describe("askUserToolDefinitions: JSON Schema and normalizeAskUserArgs agree", () => {
  describe.each(validators)("with the $provider schema", ({ validate }) => {
    it.each(accepted)("both accept %s", (_name, args) => {
      const verdicts = { schema: validate(args), normalize: normalizeAccepts(args) };

      expect(verdicts).toEqual({ schema: true, normalize: true });
    });

    it.each(rejected)("both reject %s", (_name, args) => {
      const verdicts = { schema: validate(args), normalize: normalizeAccepts(args) };

      expect(verdicts).toEqual({ schema: false, normalize: false });
    });

    it.each(schemaAcceptsNormalizeRejects)(
      "deliberately differ on %s: schema accepts, normalize rejects with a ToolInputError",
      (_name, args, path) => {
        const valid = validate(args);
        const issues = issuesOf(args);

        expect(valid).toBe(true);
        expect(issues.map((issue) => issue.path)).toEqual([path]);
      },
    );

    it.each(schemaRejectsNormalizeAccepts)(
      "deliberately differ on %s: normalize accepts, the schema's maxLength counts the whitespace",
      (_name, args) => {
        const verdicts = { schema: validate(args), normalize: normalizeAccepts(args) };

        expect(verdicts).toEqual({ schema: false, normalize: true });
      },
    );
  });

  it("never disagree on generated arguments, except in the documented lenient direction (property)", () => {
    fc.assert(
      fc.property(argumentsArbitrary(), (args) => {
        const issues = normalizeAccepts(args) ? [] : issuesOf(args);

        for (const { validate } of validators) {
          // normalize reads null as absent, the schema has no null: it judges the arguments without them.
          const valid = validate(withoutNullFields(args));
          // Rejected by the schema → rejected by normalize; accepted by the schema → only documented refusals.
          if (!valid) expect(issues.length).toBeGreaterThan(0);
          else expect(issues.filter((issue) => !isDocumentedDivergence(args, issue.path))).toEqual([]);
        }
      }),
      { numRuns: 500 },
    );
  });
});

/** The arguments with every object field whose value is null left out (what normalize reads them as). */
function withoutNullFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNullFields);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).flatMap(([key, field]) =>
      field === null ? [] : [[key, withoutNullFields(field)]],
    ),
  );
}

/** Follows a dot-joined issue path into the arguments. */
function at(args: unknown, path: string): unknown {
  return path
    .split(".")
    .reduce<unknown>(
      (value, key) =>
        typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined,
      args,
    );
}

/** The contract's length limits, in UTF-16 units after trimming, by the issue path they are reported at. */
const LENGTH_LIMITS: [RegExp, number][] = [
  [/^questions\.\d+\.options\.\d+\.label$/, 64],
  [/^questions\.\d+\.question$/, 1000],
  [/^questions\.\d+\.options\.\d+\.description$/, 200],
];

/**
 * Uniqueness (an earlier equal id or label), or a text over its limit in UTF-16 units but within it in code
 * points (what JSON Schema counts).
 */
function isDocumentedDivergence(args: unknown, path: string): boolean {
  const id = /^questions\.(\d+)\.id$/.exec(path);
  if (id) {
    const index = Number(id[1]);
    const earlier = (at(args, "questions") as unknown[]).slice(0, index);
    return earlier.some((question) => at(question, "id") === at(args, path));
  }
  const limit = LENGTH_LIMITS.find(([pattern]) => pattern.test(path))?.[1];
  const value = at(args, path);
  if (limit !== undefined && typeof value === "string") {
    const text = value.trim();
    if (text.length > limit && [...text].length <= limit) return true;
  }
  const label = /^(questions\.\d+\.options)\.(\d+)\.label$/.exec(path);
  if (label?.[1] && label[2]) {
    const text = String(at(args, path)).trim();
    const earlier = (at(args, label[1]) as unknown[]).slice(0, Number(label[2]));
    return earlier.some((option) => {
      const other = at(option, "label");
      return typeof other === "string" && other.trim().toLowerCase() === text.toLowerCase();
    });
  }
  return false;
}

/**
 * JSON argument sets near the contract's boundaries: each value well-formed most of the time, with wrong
 * values, wrong types, extra keys and duplicates mixed in, so both sides see many valid and invalid calls.
 */
function argumentsArbitrary(): fc.Arbitrary<unknown> {
  /** Mostly `good`, sometimes `bad`. */
  const mostly = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<unknown>) =>
    fc.oneof({ weight: 20, arbitrary: good as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: bad });
  const chunk = fc.constantFrom("a", "Z", " ", "\t", "\n", "😀", "部", "…", ".", "-", "1");
  const freeString = (maxLength: number) =>
    fc.array(chunk, { minLength: 1, maxLength }).map((chunks) => chunks.join(""));
  const id = mostly(
    fc.constantFrom("deploy_target", "a", "q2", "checks", "release_note"),
    fc.constantFrom("Deploy Target", "9lives", "_x", " a ", "", 7, null),
  );
  const text = mostly(
    fc.oneof(fc.constantFrom("Deploy", "  Where?  ", "Deployment target", "🚀 launch"), freeString(20)),
    fc.constantFrom("", "   ", "\n", 3, null),
  );
  /** Near each length limit, in letters and in emoji; never padded (the strict-direction case above). */
  const nearLimit = (limit: number) =>
    fc.constantFrom(
      "x".repeat(limit),
      "x".repeat(limit + 1),
      "😀".repeat(limit / 2),
      "😀".repeat(limit / 2 + 1),
      `${"a".repeat(limit - 1)}😀`,
      `${"a".repeat(limit - 2)}😀`,
    );
  const questionText = fc.oneof({ weight: 10, arbitrary: text }, { weight: 1, arbitrary: nearLimit(1000) });
  const label = fc.oneof(
    {
      weight: 16,
      arbitrary: fc
        .tuple(fc.string({ minLength: 1, maxLength: 8 }), freeString(20))
        .map(([a, b]) => `L${a}${b}`),
    },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        "Staging",
        " staging ",
        "Others",
        "Blue, green",
        "x".repeat(64),
        "x".repeat(65),
        ` ${"x".repeat(64)} `,
        "😀".repeat(32),
        "😀".repeat(33),
        `${"a".repeat(63)}😀`,
        `${"a".repeat(62)}😀`,
      ),
    },
    {
      weight: 1,
      arbitrary: fc.oneof(freeString(70), fc.constantFrom("Other", "other…", "Other...", "", "  ", 5, null)),
    },
  );
  const extraKey = fc.oneof(
    { weight: 30, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom("extra", "secret", "sensitive", "allowOther", "value") },
  );
  const withExtra = (object: fc.Arbitrary<Record<string, unknown>>) =>
    fc.tuple(object, extraKey).map(([value, key]) => (key === undefined ? value : { ...value, [key]: true }));
  const option = mostly(
    withExtra(
      fc.record(
        {
          label,
          description: mostly(
            fc.oneof(
              { weight: 10, arbitrary: fc.constantFrom("safe", " ", "", null) },
              { weight: 1, arbitrary: nearLimit(200) },
            ),
            fc.constantFrom(1, false),
          ),
        },
        { requiredKeys: ["label"] },
      ),
    ),
    fc.constantFrom("Staging", null, []),
  );
  const question = mostly(
    withExtra(
      fc.record(
        {
          id,
          header: text,
          question: questionText,
          options: mostly(
            fc.array(option, { minLength: 2, maxLength: 4 }),
            fc.array(option, { maxLength: 6 }),
          ),
          multiSelect: mostly(fc.constantFrom(true, false, null), fc.constantFrom("true", 1)),
        },
        { requiredKeys: ["id", "header", "question", "options"] },
      ),
    ),
    fc.constantFrom("Where?", null),
  );
  const timeoutSeconds = mostly(
    fc.oneof(fc.integer({ min: -100, max: 100_000 }), fc.constantFrom(null, Number.MAX_SAFE_INTEGER)),
    fc.constantFrom(1.5, "60", true, 2 ** 53, -(2 ** 53)),
  );
  const root = mostly(
    withExtra(
      fc.record(
        {
          questions: mostly(
            fc.array(question, { minLength: 1, maxLength: 3 }),
            fc.array(question, { maxLength: 5 }),
          ),
          timeoutSeconds,
        },
        { requiredKeys: ["questions"] },
      ),
    ),
    fc.oneof(fc.constantFrom({}, null, "deploy"), fc.jsonValue()),
  );
  // Only JSON reaches the tool: normalize every generated value through a JSON round trip.
  return root.map((value) => JSON.parse(JSON.stringify(value) ?? "null"));
}
