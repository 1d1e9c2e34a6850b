/**
 * normalizeAskUserArgs: the shape check, the canonical form, the rules after trimming (lengths included),
 * duplicates, the timeout, and ToolInputError with its error body.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizeAskUserArgs, ToolInputError } from "#lib/questions/index.ts";
import { MAX_DESCRIPTION_UNITS, MAX_QUESTION_UNITS } from "#lib/questions/schema.ts";
import { issuePathsOf, issuesOf, oneQuestionArgs, questionArgs, withOptions } from "./fixtures.ts";

/** The header the normalizer keeps for a raw header. */
function headerOf(header: string): string | undefined {
  return normalizeAskUserArgs(oneQuestionArgs({ header })).questions[0]?.header;
}

/** The labels the normalizer keeps for raw labels. */
function labelsOf(...labels: string[]): string[] | undefined {
  const options = labels.map((label) => ({ label }));
  return normalizeAskUserArgs(withOptions(...options)).questions[0]?.options.map((option) => option.label);
}

describe("normalizeAskUserArgs: canonical form", () => {
  it("returns the canonical request of a minimal valid call, with allowOther and the default timeout", () => {
    const args = oneQuestionArgs();

    const request = normalizeAskUserArgs(args);

    expect(request).toEqual({
      questions: [
        {
          id: "deploy_target",
          header: "Deploy",
          question: "Where should this release go?",
          options: [{ label: "Staging" }, { label: "Production" }],
          allowOther: true,
        },
      ],
      timeoutSeconds: 900,
    });
  });

  it("trims the question and every label", () => {
    const args = oneQuestionArgs({
      question: "  Where should this release go?\n",
      options: [{ label: "  Staging (Recommended) " }, { label: "\tProduction" }],
    });

    const [question] = normalizeAskUserArgs(args).questions;

    expect(question?.question).toBe("Where should this release go?");
    expect(question?.options).toEqual([{ label: "Staging (Recommended)" }, { label: "Production" }]);
  });

  it("keeps a description trimmed when it is not blank, and drops blank, empty and null descriptions", () => {
    const args = withOptions(
      { label: "Staging", description: "  safe to try  " },
      { label: "Production", description: "   " },
      { label: "Canary", description: "" },
      { label: "Dev", description: null },
    );

    const [question] = normalizeAskUserArgs(args).questions;

    expect(question?.options).toEqual([
      { label: "Staging", description: "safe to try" },
      { label: "Production" },
      { label: "Canary" },
      { label: "Dev" },
    ]);
    expect(question?.options[1]).not.toHaveProperty("description");
  });

  it("keeps multiSelect: true", () => {
    const args = oneQuestionArgs({ multiSelect: true });

    const [question] = normalizeAskUserArgs(args).questions;

    expect(question?.multiSelect).toBe(true);
  });

  it.each([
    ["false", false],
    ["null", null],
  ])("drops multiSelect: %s (kept only when strictly true)", (_name, multiSelect) => {
    const args = oneQuestionArgs({ multiSelect });

    const [question] = normalizeAskUserArgs(args).questions;

    expect(question).not.toHaveProperty("multiSelect");
  });

  it("marks every canonical question allowOther: true (free text is always allowed)", () => {
    const args = {
      questions: [
        questionArgs({ id: "a" }),
        questionArgs({ id: "b", multiSelect: true }),
        questionArgs({ id: "c" }),
      ],
    };

    const request = normalizeAskUserArgs(args);

    expect(request.questions.map((q) => q.allowOther)).toEqual([true, true, true]);
  });

  it("keeps the questions in the order given", () => {
    const args = {
      questions: [questionArgs({ id: "b" }), questionArgs({ id: "a" }), questionArgs({ id: "c" })],
    };

    const request = normalizeAskUserArgs(args);

    expect(request.questions.map((q) => q.id)).toEqual(["b", "a", "c"]);
  });

  it("does not modify the arguments it was given", () => {
    const args = oneQuestionArgs({ header: "  Deployment target  ", multiSelect: false });
    const before = structuredClone(args);

    normalizeAskUserArgs(args);

    expect(args).toEqual(before);
  });
});

describe("normalizeAskUserArgs: header cut to 12 UTF-16 units", () => {
  it.each([
    ["the contract's example", "Deployment target", "Deployment t"],
    ["surrounding spaces trimmed before the cut", "   Deployment target  ", "Deployment t"],
    ["trimmed again after the cut", "Deployments target", "Deployments"],
    ["exactly 12 units kept", "Release note", "Release note"],
    ["a short header kept", "Deploy", "Deploy"],
    ["an emoji whose pair straddles the cut is dropped whole", "abcdefghijk🚀", "abcdefghijk"],
    ["an emoji dropped at the cut, then the space before it trimmed", "Deploy now 🚀", "Deploy now"],
    ["an emoji ending exactly at unit 12 kept", "abcdefghij🚀", "abcdefghij🚀"],
    ["six emoji (12 units) kept of seven", "🚀🚀🚀🚀🚀🚀🚀", "🚀🚀🚀🚀🚀🚀"],
    ["an emoji inside the first 12 units kept", "Deploy 🚀 now", "Deploy 🚀 no"],
    ["CJK (one unit each) cut at 12 characters", "部署目标环境选择确认一下吧", "部署目标环境选择确认一下"],
    [
      "an astral CJK character straddling the cut dropped whole",
      "部署目标环境选择确认一𠀀",
      "部署目标环境选择确认一",
    ],
    ["an astral CJK character ending at unit 12 kept", "部署目标环境选择确认𠀀", "部署目标环境选择确认𠀀"],
  ])("%s: %j → %j", (_name, header, expected) => {
    const kept = headerOf(header);

    expect(kept).toBe(expected);
  });

  it("never splits a surrogate pair, never exceeds 12 units and is always a trimmed prefix of the trimmed input", () => {
    const piece = fc.constantFrom("a", "Z", " ", "\t", "🚀", "😀", "部", "𠀀", "é", "-");
    const header = fc
      .array(piece, { minLength: 1, maxLength: 20 })
      .map((pieces) => pieces.join(""))
      .filter((text) => text.trim() !== "");

    fc.assert(
      fc.property(header, (raw) => {
        const kept = headerOf(raw) ?? "";

        const trimmedInput = raw.trim();
        expect(kept.length).toBeLessThanOrEqual(12);
        expect(kept).toBe(kept.trim());
        expect(trimmedInput.startsWith(kept)).toBe(true);
        expect(kept).not.toMatch(/[\uD800-\uDBFF]$/);
        if (trimmedInput.length <= 12) expect(kept).toBe(trimmedInput);
        else expect(kept.length).toBeGreaterThanOrEqual(1);
      }),
    );
  });
});

describe("normalizeAskUserArgs: id", () => {
  it.each(["deploy_target", "a", "q2", "release_note_2"])("accepts the id %j as given", (id) => {
    const args = oneQuestionArgs({ id });

    const [question] = normalizeAskUserArgs(args).questions;

    expect(question?.id).toBe(id);
  });

  it.each(["Deploy Target", "9lives", "_x", " deploy_target ", "deploy-target", "deployTarget", ""])(
    "rejects the id %j at questions.0.id (matched without trimming)",
    (id) => {
      const args = oneQuestionArgs({ id });

      const issues = issuesOf(args);

      expect(issues).toEqual([{ path: "questions.0.id", message: expect.stringContaining("id") }]);
    },
  );

  it.each([
    ["a number", 7],
    ["null", null],
  ])("rejects an id that is %s", (_name, id) => {
    const args = oneQuestionArgs({ id });

    const paths = issuePathsOf(args);

    expect(paths).toEqual(["questions.0.id"]);
  });

  it("takes an id of 64 characters and refuses one of 65, naming the limit", () => {
    const longest = `q${"_".repeat(63)}`;
    expect(normalizeAskUserArgs(oneQuestionArgs({ id: longest })).questions[0]?.id).toBe(longest);

    const issues = issuesOf(oneQuestionArgs({ id: `${longest}x` }));

    expect(issues).toEqual([{ path: "questions.0.id", message: "id must be at most 64 characters" }]);
  });

  it("rejects a missing id, saying it is required", () => {
    const { id: _id, ...question } = questionArgs();

    const issues = issuesOf({ questions: [question] });

    expect(issues).toEqual([{ path: "questions.0.id", message: "id is required" }]);
  });
});

describe("normalizeAskUserArgs: header and question", () => {
  it.each(["", "   ", "\n\t "])("rejects the blank header %j at questions.0.header", (header) => {
    const args = oneQuestionArgs({ header });

    const issues = issuesOf(args);

    expect(issues).toEqual([{ path: "questions.0.header", message: expect.stringMatching(/header/) }]);
  });

  it.each(["", "   ", "\n"])("rejects the blank question %j at questions.0.question", (question) => {
    const args = oneQuestionArgs({ question });

    const issues = issuesOf(args);

    expect(issues).toEqual([{ path: "questions.0.question", message: expect.stringMatching(/question/) }]);
  });

  it.each([
    ["header", 12],
    ["header", null],
    ["question", ["Where?"]],
    ["question", null],
  ])("rejects a %s that is not a string (%j)", (field, value) => {
    const args = oneQuestionArgs({ [field]: value });

    const paths = issuePathsOf(args);

    expect(paths).toEqual([`questions.0.${field}`]);
  });
});

describe("normalizeAskUserArgs: labels", () => {
  it("accepts a label of exactly 64 UTF-16 units", () => {
    const label = "x".repeat(64);

    const labels = labelsOf(label, "Production");

    expect(labels).toEqual([label, "Production"]);
  });

  it("rejects a label of 65 UTF-16 units at its path", () => {
    const args = withOptions({ label: "Staging" }, { label: "x".repeat(65) });

    const issues = issuesOf(args);

    expect(issues).toEqual([{ path: "questions.0.options.1.label", message: expect.stringContaining("64") }]);
  });

  it("accepts a label of 64 units with surrounding spaces, and keeps it trimmed", () => {
    const label = "y".repeat(64);

    const labels = labelsOf(`   ${label}  `, "Production");

    expect(labels).toEqual([label, "Production"]);
  });

  it("counts UTF-16 units: 32 emoji (64 units) are fine", () => {
    const label = "😀".repeat(32);

    const labels = labelsOf(label, "Production");

    expect(labels).toEqual([label, "Production"]);
  });

  it.each([
    ["33 emoji (66 units, 33 code points)", "😀".repeat(33)],
    ["63 letters and an emoji (65 units, 64 code points)", `${"a".repeat(63)}😀`],
  ])("counts UTF-16 units: rejects %s", (_name, label) => {
    const args = withOptions({ label }, { label: "Production" });

    const paths = issuePathsOf(args);

    expect(paths).toEqual(["questions.0.options.0.label"]);
  });

  it.each(["", "   ", "\n"])("rejects the blank label %j", (label) => {
    const args = withOptions({ label: "Staging" }, { label });

    const paths = issuePathsOf(args);

    expect(paths).toEqual(["questions.0.options.1.label"]);
  });

  it.each(["Other", "other", "OTHER", "Other…", "other…", "Other...", "other...", "  Other  ", " oThEr... "])(
    "rejects the label %j, saying free text is added automatically",
    (label) => {
      const args = withOptions({ label: "Staging" }, { label });

      const issues = issuesOf(args);

      expect(issues).toEqual([
        { path: "questions.0.options.1.label", message: expect.stringMatching(/free text.*automatically/) },
      ]);
    },
  );

  it.each(["Others", "Other team", "Another", "Other options first"])(
    "accepts %j (only a bare Other is refused)",
    (label) => {
      const labels = labelsOf("Staging", label);

      expect(labels).toEqual(["Staging", label]);
    },
  );

  it.each([
    ["a number", 5],
    ["null", null],
  ])("rejects a label that is %s", (_name, label) => {
    const args = withOptions({ label: "Staging" }, { label });

    const paths = issuePathsOf(args);

    expect(paths).toEqual(["questions.0.options.1.label"]);
  });

  it("rejects a description that is not a string", () => {
    const args = withOptions({ label: "Staging", description: 3 }, { label: "Production" });

    const paths = issuePathsOf(args);

    expect(paths).toEqual(["questions.0.options.0.description"]);
  });
});

describe("normalizeAskUserArgs: question text and option descriptions have length limits", () => {
  /** The question text the normalizer keeps for a raw one. */
  const questionOf = (question: string) =>
    normalizeAskUserArgs(oneQuestionArgs({ question })).questions[0]?.question;
  /** The description the normalizer keeps for a raw one (on the first option). */
  const descriptionOf = (description: string) =>
    normalizeAskUserArgs(withOptions({ label: "Staging", description }, { label: "Production" })).questions[0]
      ?.options[0]?.description;

  it("exports the limits: 1,000 UTF-16 units for a question, 200 for a description", () => {
    expect({ MAX_QUESTION_UNITS, MAX_DESCRIPTION_UNITS }).toEqual({
      MAX_QUESTION_UNITS: 1000,
      MAX_DESCRIPTION_UNITS: 200,
    });
  });

  it.each([
    ["1,000 letters", "q".repeat(1000)],
    ["500 emoji (1,000 units)", "😀".repeat(500)],
  ])("accepts a question of %s", (_name, question) => {
    expect(questionOf(question)).toBe(question);
  });

  it("counts after trimming: 1,000 units with surrounding whitespace are fine, and kept trimmed", () => {
    const question = "q".repeat(1000);

    expect(questionOf(`  ${question}\n\t`)).toBe(question);
  });

  it("rejects a question of 1,001 units at its path, naming the limit", () => {
    const args = {
      questions: [questionArgs({ id: "a" }), questionArgs({ id: "b", question: "q".repeat(1001) })],
    };

    const issues = issuesOf(args);

    expect(issues).toEqual([
      { path: "questions.1.question", message: "question must be at most 1000 characters after trimming" },
    ]);
  });

  it.each([
    ["501 emoji (1,002 units, 501 code points)", "😀".repeat(501)],
    ["999 letters and an emoji (1,001 units, 1,000 code points)", `${"a".repeat(999)}😀`],
  ])("counts UTF-16 units: rejects a question of %s", (_name, question) => {
    const paths = issuePathsOf(oneQuestionArgs({ question }));

    expect(paths).toEqual(["questions.0.question"]);
  });

  it.each([
    ["200 letters", "d".repeat(200)],
    ["100 emoji (200 units)", "😀".repeat(100)],
  ])("accepts a description of %s", (_name, description) => {
    expect(descriptionOf(description)).toBe(description);
  });

  it("counts a description after trimming: 200 units with surrounding whitespace are fine, and kept trimmed", () => {
    const description = "d".repeat(200);

    expect(descriptionOf(` ${description}  `)).toBe(description);
  });

  it("rejects a description of 201 units at its path, naming the limit", () => {
    const args = withOptions({ label: "Staging" }, { label: "Production", description: "d".repeat(201) });

    const issues = issuesOf(args);

    expect(issues).toEqual([
      {
        path: "questions.0.options.1.description",
        message: "description must be at most 200 characters after trimming",
      },
    ]);
  });

  it.each([
    ["101 emoji (202 units, 101 code points)", "😀".repeat(101)],
    ["199 letters and an emoji (201 units, 200 code points)", `${"a".repeat(199)}😀`],
  ])("counts UTF-16 units: rejects a description of %s", (_name, description) => {
    const paths = issuePathsOf(withOptions({ label: "Staging", description }, { label: "Production" }));

    expect(paths).toEqual(["questions.0.options.0.description"]);
  });

  it("reports every text over its limit together with the other problems of the call", () => {
    const args = {
      questions: [
        questionArgs({
          id: "a",
          question: "q".repeat(1001),
          options: [
            { label: "A", description: "d".repeat(201) },
            { label: "B", description: "d".repeat(201) },
          ],
        }),
        questionArgs({ id: "a", header: "" }),
      ],
    };

    const paths = issuePathsOf(args);

    expect(paths).toEqual(
      [
        "questions.0.question",
        "questions.0.options.0.description",
        "questions.0.options.1.description",
        "questions.1.header",
        "questions.1.id",
      ].sort(),
    );
  });
});

describe("normalizeAskUserArgs: counts and types", () => {
  it.each([
    ["no question", []],
    ["four questions", ["a", "b", "c", "d"].map((id) => questionArgs({ id }))],
    ["a string", "Where?"],
    ["an object with a length", { length: 9 }],
    ["null", null],
  ])("rejects questions as %s at path questions, once", (_name, questions) => {
    const paths = issuePathsOf({ questions });

    expect(paths).toEqual(["questions"]);
  });

  it("rejects missing questions, saying they are required", () => {
    const issues = issuesOf({ timeoutSeconds: 60 });

    expect(issues).toEqual([{ path: "questions", message: "questions is required" }]);
  });

  it("accepts one, two and three questions", () => {
    const three = { questions: ["a", "b", "c"].map((id) => questionArgs({ id })) };

    const counts = [1, 2, 3].map(
      (n) => normalizeAskUserArgs({ questions: three.questions.slice(0, n) }).questions.length,
    );

    expect(counts).toEqual([1, 2, 3]);
  });

  it.each([
    ["one option", [{ label: "Staging" }]],
    ["five options", ["A", "B", "C", "D", "E"].map((label) => ({ label }))],
    ["no options", []],
    ["an object", { label: "Staging" }],
    ["a string", "abcde"],
  ])("rejects %s at questions.0.options, once", (_name, options) => {
    const paths = issuePathsOf(oneQuestionArgs({ options }));

    expect(paths).toEqual(["questions.0.options"]);
  });

  it("accepts two, three and four options", () => {
    const labels = ["A", "B", "C", "D"];

    const counts = [2, 3, 4].map(
      (n) =>
        normalizeAskUserArgs(withOptions(...labels.slice(0, n).map((label) => ({ label })))).questions[0]
          ?.options.length,
    );

    expect(counts).toEqual([2, 3, 4]);
  });

  it.each([
    ["a string", "Production"],
    ["null", null],
    ["an array", [{ label: "Production" }]],
  ])("rejects an option that is %s at its own path", (_name, option) => {
    const paths = issuePathsOf(withOptions({ label: "Staging" }, option));

    expect(paths).toEqual(["questions.0.options.1"]);
  });

  it.each([
    ["a string", "true"],
    ["a number", 1],
  ])("rejects multiSelect as %s", (_name, multiSelect) => {
    const paths = issuePathsOf(oneQuestionArgs({ multiSelect }));

    expect(paths).toEqual(["questions.0.multiSelect"]);
  });

  it.each([
    ["a string", "not an object"],
    ["null", null],
    ["an array", [questionArgs()]],
    ["a number", 42],
    ["undefined", undefined],
  ])("rejects arguments that are %s at the empty path", (_name, args) => {
    const issues = issuesOf(args);

    expect(issues).toEqual([{ path: "", message: expect.stringContaining("object") }]);
  });

  it.each([
    ["a question that is a string", ["Where?"]],
    ["a question that is null", [null]],
  ])("rejects %s at questions.0", (_name, questions) => {
    const paths = issuePathsOf({ questions });

    expect(paths).toEqual(["questions.0"]);
  });
});

describe("normalizeAskUserArgs: unknown keys and secrets", () => {
  it("rejects an unknown key at the root at its own path", () => {
    const args = { ...oneQuestionArgs(), reason: "need a target" };

    const issues = issuesOf(args);

    expect(issues).toEqual([{ path: "reason", message: expect.stringContaining('"reason"') }]);
  });

  it("rejects an unknown key in a question at its own path", () => {
    const args = { questions: [questionArgs({ id: "a" }), questionArgs({ id: "b", priority: "high" })] };

    const issues = issuesOf(args);

    expect(issues).toEqual([
      { path: "questions.1.priority", message: expect.stringContaining('"priority"') },
    ]);
  });

  it("rejects an unknown key in an option at its own path", () => {
    const args = withOptions({ label: "Staging" }, { label: "Production", value: "prod" });

    const issues = issuesOf(args);

    expect(issues).toEqual([
      { path: "questions.0.options.1.value", message: expect.stringContaining('"value"') },
    ]);
  });

  it("reports each unknown key of one object separately", () => {
    const args = { ...oneQuestionArgs(), foo: 1, bar: 2 };

    const paths = issuePathsOf(args);

    expect(paths).toEqual(["bar", "foo"]);
  });

  it("rejects allowOther in the arguments (it is added, never given)", () => {
    const args = oneQuestionArgs({ allowOther: true });

    const paths = issuePathsOf(args);

    expect(paths).toEqual(["questions.0.allowOther"]);
  });

  it.each([
    ["a question", oneQuestionArgs({ secret: true }), "questions.0.secret"],
    ["a question", oneQuestionArgs({ isPassword: true }), "questions.0.isPassword"],
    [
      "an option",
      withOptions({ label: "Token" }, { label: "Key", sensitive: true }),
      "questions.0.options.1.sensitive",
    ],
    ["the arguments", { ...oneQuestionArgs(), credential: true }, "credential"],
  ])(
    "rejects a secret/credential flag on %s, saying credentials never go through questions",
    (_where, args, path) => {
      const issues = issuesOf(args);

      expect(issues).toEqual([{ path, message: expect.stringMatching(/credentials/) }]);
    },
  );
});

describe("normalizeAskUserArgs: null means absent", () => {
  it("treats null timeoutSeconds, multiSelect and description as absent", () => {
    const args = {
      questions: [
        questionArgs({
          multiSelect: null,
          options: [{ label: "Staging", description: null }, { label: "Production" }],
        }),
      ],
      timeoutSeconds: null,
    };

    const request = normalizeAskUserArgs(args);

    expect(request).toEqual({
      questions: [
        {
          id: "deploy_target",
          header: "Deploy",
          question: "Where should this release go?",
          options: [{ label: "Staging" }, { label: "Production" }],
          allowOther: true,
        },
      ],
      timeoutSeconds: 900,
    });
  });

  it.each([
    ["questions", { questions: null }, "questions"],
    ["options", oneQuestionArgs({ options: null }), "questions.0.options"],
    ["label", withOptions({ label: null }, { label: "Production" }), "questions.0.options.0.label"],
  ])("does not accept null for the required %s", (_field, args, path) => {
    const paths = issuePathsOf(args);

    expect(paths).toEqual([path]);
  });
});

describe("normalizeAskUserArgs: timeoutSeconds", () => {
  it.each([
    ["1.5", 1.5],
    ['"60"', "60"],
    ["true", true],
    ["an object", { seconds: 60 }],
  ])("rejects timeoutSeconds %s (an integer is required)", (_name, timeoutSeconds) => {
    const args = { ...oneQuestionArgs(), timeoutSeconds };

    const issues = issuesOf(args);

    expect(issues).toEqual([{ path: "timeoutSeconds", message: expect.stringContaining("timeoutSeconds") }]);
  });

  it("defaults to 900 when absent", () => {
    const request = normalizeAskUserArgs(oneQuestionArgs());

    expect(request.timeoutSeconds).toBe(900);
  });

  it.each([
    [5, 30],
    [9999, 3600],
    [-1, 30],
    [0, 30],
    [29, 30],
    [30, 30],
    [60, 60],
    [3600, 3600],
    [3601, 3600],
  ])("clamps %i to %i", (given, expected) => {
    const args = { ...oneQuestionArgs(), timeoutSeconds: given };

    const request = normalizeAskUserArgs(args);

    expect(request.timeoutSeconds).toBe(expected);
  });

  it.each([
    ["the default into a lower ceiling", { minTimeoutSeconds: 60, maxTimeoutSeconds: 600 }, undefined, 600],
    ["the default up to a higher floor", { minTimeoutSeconds: 1000 }, undefined, 1000],
    ["the default unchanged inside a raised ceiling", { maxTimeoutSeconds: 86_400 }, undefined, 900],
    ["a value below a custom floor", { minTimeoutSeconds: 60, maxTimeoutSeconds: 600 }, 10, 60],
    ["a value above a custom ceiling", { minTimeoutSeconds: 60, maxTimeoutSeconds: 600 }, 7200, 600],
    ["a value inside custom limits", { minTimeoutSeconds: 60, maxTimeoutSeconds: 600 }, 300, 300],
    ["9999 under a raised ceiling", { maxTimeoutSeconds: 86_400 }, 9999, 9999],
    ["a year under the Step Functions ceiling", { maxTimeoutSeconds: 31_536_000 }, 31_536_000, 31_536_000],
  ])("clamps %s", (_name, limits, timeoutSeconds, expected) => {
    const args = timeoutSeconds === undefined ? oneQuestionArgs() : { ...oneQuestionArgs(), timeoutSeconds };

    const request = normalizeAskUserArgs(args, limits);

    expect(request.timeoutSeconds).toBe(expected);
  });
});

describe("normalizeAskUserArgs: duplicates", () => {
  it("rejects a repeated question id at the path of the second occurrence, naming the id", () => {
    const args = {
      questions: [questionArgs({ id: "deploy_target" }), questionArgs({ id: "deploy_target" })],
    };

    const issues = issuesOf(args);

    expect(issues).toEqual([{ path: "questions.1.id", message: expect.stringContaining('"deploy_target"') }]);
  });

  it("reports every later repetition of an id", () => {
    const args = {
      questions: [questionArgs({ id: "a" }), questionArgs({ id: "a" }), questionArgs({ id: "a" })],
    };

    const paths = issuePathsOf(args);

    expect(paths).toEqual(["questions.1.id", "questions.2.id"]);
  });

  it("rejects labels equal after trim and lowercase at the second label, naming the question and the label", () => {
    const args = withOptions({ label: "Staging" }, { label: " staging " });

    const issues = issuesOf(args);

    expect(issues).toEqual([
      {
        path: "questions.0.options.1.label",
        message: expect.stringMatching(/"deploy_target".*"staging"/),
      },
    ]);
  });

  it("rejects a repeated label in a later question at that question's path", () => {
    const args = {
      questions: [
        questionArgs({ id: "a" }),
        questionArgs({ id: "b", options: [{ label: "Unit" }, { label: "E2E" }, { label: "UNIT" }] }),
      ],
    };

    const paths = issuePathsOf(args);

    expect(paths).toEqual(["questions.1.options.2.label"]);
  });

  it("allows the same label in two different questions", () => {
    const args = {
      questions: [
        questionArgs({ id: "a", options: [{ label: "Yes" }, { label: "No" }] }),
        questionArgs({ id: "b", options: [{ label: "Yes" }, { label: "No" }] }),
      ],
    };

    const request = normalizeAskUserArgs(args);

    expect(request.questions.map((q) => q.options.map((o) => o.label))).toEqual([
      ["Yes", "No"],
      ["Yes", "No"],
    ]);
  });

  it("does not treat labels that differ inside as duplicates", () => {
    const labels = labelsOf("Staging", "Stag ing", "Staging 2");

    expect(labels).toEqual(["Staging", "Stag ing", "Staging 2"]);
  });
});

describe("normalizeAskUserArgs: every problem reported", () => {
  it("reports all the problems of one call, each at its path", () => {
    const args = {
      questions: [
        {
          id: "Bad Id",
          header: "  ",
          question: "",
          options: [{ label: "Other", secret: true }],
          extra: 1,
        },
        questionArgs({ id: "b", options: [{ label: "x".repeat(65) }, { label: "Yes" }, { label: "yes" }] }),
        questionArgs({ id: "b", multiSelect: "yes" }),
      ],
      timeoutSeconds: 1.5,
      foo: 1,
    };

    const paths = issuePathsOf(args);

    expect(paths).toEqual(
      [
        "foo",
        "questions.0.extra",
        "questions.0.header",
        "questions.0.id",
        "questions.0.options",
        "questions.0.options.0.label",
        "questions.0.options.0.secret",
        "questions.0.question",
        "questions.1.options.0.label",
        "questions.1.options.2.label",
        "questions.2.id",
        "questions.2.multiSelect",
        "timeoutSeconds",
      ].sort(),
    );
  });

  it("reports a shape problem and a duplicate together", () => {
    const args = {
      questions: [questionArgs({ id: "a" }), questionArgs({ id: "a", header: "" })],
      timeoutSeconds: "60",
    };

    const paths = issuePathsOf(args);

    expect(paths).toEqual(["questions.1.header", "questions.1.id", "timeoutSeconds"]);
  });

  it("reports too many questions together with problems outside that array", () => {
    const args = {
      questions: ["a", "b", "c", "d"].map((id) => questionArgs({ id })),
      timeoutSeconds: "60",
      foo: true,
    };

    const paths = issuePathsOf(args);

    expect(paths).toEqual(expect.arrayContaining(["foo", "questions", "timeoutSeconds"]));
  });
});

describe("ToolInputError", () => {
  const args = { ...oneQuestionArgs({ id: "Bad" }), timeoutSeconds: "60" };

  function thrown(): ToolInputError {
    try {
      normalizeAskUserArgs(args);
    } catch (error) {
      if (error instanceof ToolInputError) return error;
    }
    throw new Error("expected a ToolInputError");
  }

  it('is an Error named "ToolInputError" carrying .issues with a path and message each', () => {
    const error = thrown();

    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("ToolInputError");
    expect(error.issues).toEqual([
      { path: "questions.0.id", message: expect.any(String) },
      { path: "timeoutSeconds", message: expect.any(String) },
    ]);
  });

  it("has a message naming the first problem, where it is, and how many more there are", () => {
    const error = thrown();

    expect(error.message).toMatch(
      /^Invalid ask_user arguments: id must .+ \(at questions\.0\.id\), and 1 more problem\.$/,
    );
  });

  it('has the error body {error:{code:"INVALID_ARGUMENT", message, issues:[{path, message}]}}', () => {
    const error = thrown();

    const body = JSON.parse(JSON.stringify(error.toErrorBody()));

    expect(body).toEqual({
      error: {
        code: "INVALID_ARGUMENT",
        message: error.message,
        issues: [
          { path: "questions.0.id", message: error.issues[0]?.message },
          { path: "timeoutSeconds", message: error.issues[1]?.message },
        ],
      },
    });
  });

  it("gives the model a sentence to fix the call, then the error body as JSON", () => {
    const error = thrown();

    const [sentence, json] = error.toToolErrorText().split("\n");

    expect(sentence).toContain(error.message);
    expect(sentence).toMatch(/call ask_user again/);
    expect(JSON.parse(json ?? "")).toEqual(error.toErrorBody());
  });

  it("is thrown by normalizeAskUserArgs for invalid arguments", () => {
    expect(() => normalizeAskUserArgs({ questions: [] })).toThrow(ToolInputError);
  });
});
