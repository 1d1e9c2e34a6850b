/**
 * parseTextReply: what a chat user can type (the reply rules: numbers, labels, free text, keyed lines, the
 * next unanswered question, skip and /cancel).
 */
import { describe, expect, it } from "vitest";
import { parseTextReply, type Question } from "#lib/questions/index.ts";
import { checks, deployTarget, releaseNote } from "./fixtures.ts";

const all = [deployTarget, checks, releaseNote];

/** Two free-text-friendly questions keyed q1 and q2, as in the contract's "q1: meet at 14:30". */
const meeting: Question[] = [
  {
    id: "q1",
    header: "When",
    question: "When shall we meet?",
    options: [{ label: "Morning" }, { label: "Afternoon" }],
    allowOther: true,
  },
  {
    id: "q2",
    header: "Where",
    question: "Where shall we meet?",
    options: [{ label: "Office" }, { label: "Online" }],
    allowOther: true,
  },
];

describe("parseTextReply: one single-select question", () => {
  it.each([
    ["2", "Production"],
    ["1", "Staging (Recommended)"],
    ["  2  ", "Production"],
    ["02", "Production"],
    ["production", "Production"],
    [" PRODUCTION\n", "Production"],
    ["staging (recommended)", "Staging (Recommended)"],
    ["3", "3"],
    ["0", "0"],
    ["+2", "+2"],
    ["2.0", "2.0"],
    ["-1", "-1"],
    ["Staging", "Staging (Recommended)"],
    ["Stag", "Stag"],
    ["  night-shift ", "night-shift"],
    ["1, 2", "1, 2"],
    ["deploy_target: Production", "deploy_target: Production"],
  ])("reads %j as %j", (text, value) => {
    const reply = parseTextReply([deployTarget], text);

    expect(reply).toEqual({ kind: "answer", answers: { deploy_target: [value] } });
  });

  it.each(["", "   ", "\n\t\n"])("reads the empty text %j as none", (text) => {
    const reply = parseTextReply([deployTarget], text);

    expect(reply).toEqual({ kind: "none" });
  });
});

describe("parseTextReply: one multi-select question", () => {
  it.each([
    ["1, 3", ["Unit", "Lint"]],
    ["1;1\n2", ["Unit", "E2E"]],
    ["Unit, custom", ["Unit", "custom"]],
    ["3, 1", ["Lint", "Unit"]],
    ["lint", ["Lint"]],
    ["2", ["E2E"]],
    ["unit; UNIT, 1", ["Unit"]],
    ["1,,3, ", ["Unit", "Lint"]],
    ["4, 2", ["4", "E2E"]],
    ["smoke tests", ["smoke tests"]],
    ["1\r\n3", ["Unit", "Lint"]],
  ])("reads %j as %j", (text, values) => {
    const reply = parseTextReply([checks], text);

    expect(reply).toEqual({ kind: "answer", answers: { checks: values } });
  });

  it.each([",", " ; , \n ", ""])("reads %j, which yields no value, as none", (text) => {
    const reply = parseTextReply([checks], text);

    expect(reply).toEqual({ kind: "none" });
  });

  describe("with labels that contain commas", () => {
    const tradeoff: Question = {
      id: "tradeoff",
      header: "Trade-off",
      question: "What matters most?",
      options: [{ label: "Fast, cheap" }, { label: "Slow" }, { label: "Careful; thorough" }],
      multiSelect: true,
      allowOther: true,
    };

    it.each([
      ["fast, cheap", ["Fast, cheap"]],
      ["  FAST, CHEAP ", ["Fast, cheap"]],
      ["careful; thorough", ["Careful; thorough"]],
      ["1, 2", ["Fast, cheap", "Slow"]],
      ["Fast, cheap, 2", ["Fast", "cheap", "Slow"]],
    ])("reads %j as %j (the whole text as one option first, then split)", (text, values) => {
      const reply = parseTextReply([tradeoff], text);

      expect(reply).toEqual({ kind: "answer", answers: { tradeoff: values } });
    });
  });
});

describe("parseTextReply: skip and /cancel", () => {
  it.each(["skip", "SKIP", "  Skip \n", "sKiP"])("reads %j as skip", (text) => {
    const reply = parseTextReply([deployTarget], text);

    expect(reply).toEqual({ kind: "skip" });
  });

  it.each(["/cancel", "/CANCEL", "  /Cancel  "])("reads %j as cancel", (text) => {
    const reply = parseTextReply([deployTarget], text);

    expect(reply).toEqual({ kind: "cancel" });
  });

  it.each([
    ["skip it", "skip it"],
    ["cancel", "cancel"],
    ["/skip", "/skip"],
  ])("reads %j as an answer (only the exact words are commands)", (text, value) => {
    const reply = parseTextReply([deployTarget], text);

    expect(reply).toEqual({ kind: "answer", answers: { deploy_target: [value] } });
  });

  it("reads skip and /cancel on several questions too", () => {
    const replies = [parseTextReply(all, " skip "), parseTextReply(all, "/cancel")];

    expect(replies).toEqual([{ kind: "skip" }, { kind: "cancel" }]);
  });

  describe('when an option is labelled "Skip"', () => {
    const step: Question = {
      id: "step",
      header: "Migration",
      question: "What should happen to the failed migration step?",
      options: [{ label: "Retry" }, { label: "Skip" }],
      allowOther: true,
    };

    it.each(["skip", "SKIP", " Skip "])("reads %j as that option", (text) => {
      const reply = parseTextReply([step], text);

      expect(reply).toEqual({ kind: "answer", answers: { step: ["Skip"] } });
    });

    it("still reads /cancel as cancel", () => {
      const reply = parseTextReply([step], "/cancel");

      expect(reply).toEqual({ kind: "cancel" });
    });

    it("reads skip as that option when the question is the first of several", () => {
      const reply = parseTextReply([step, deployTarget], "skip");

      expect(reply).toEqual({ kind: "answer", answers: { step: ["Skip"] } });
    });
  });
});

describe("parseTextReply: several questions by position", () => {
  it("gives each question the line at its position, resolved as for one question", () => {
    const reply = parseTextReply(all, "2\n1, 3\nnight-shift");

    expect(reply).toEqual({
      kind: "answer",
      answers: { deploy_target: ["Production"], checks: ["Unit", "Lint"], release_note: ["night-shift"] },
    });
  });

  it("keeps positions across a blank line, leaving that question out", () => {
    const reply = parseTextReply(all, "2\n\nurgent");

    expect(reply).toEqual({
      kind: "answer",
      answers: { deploy_target: ["Production"], release_note: ["Urgent"] },
    });
  });

  it("keeps positions across a leading blank line", () => {
    const reply = parseTextReply(all, "\n1, 3\nurgent");

    expect(reply).toEqual({
      kind: "answer",
      answers: { checks: ["Unit", "Lint"], release_note: ["Urgent"] },
    });
  });

  it("holds only the questions that got a value", () => {
    const reply = parseTextReply(all, "production");

    expect(reply).toEqual({ kind: "answer", answers: { deploy_target: ["Production"] } });
  });

  it("turns option numbers out of range into free text", () => {
    const reply = parseTextReply(all, "7\n0\n3");

    expect(reply).toEqual({
      kind: "answer",
      answers: { deploy_target: ["7"], checks: ["0"], release_note: ["3"] },
    });
  });

  it("reads 14:30 on a line of its own as a value, not a key", () => {
    const reply = parseTextReply(meeting, "14:30\nOnline");

    expect(reply).toEqual({ kind: "answer", answers: { q1: ["14:30"], q2: ["Online"] } });
  });

  it("reads a clock time whose hour is also a question number as a value (2:30 with two questions)", () => {
    const reply = parseTextReply(meeting, "2:30\nOnline");

    expect(reply).toEqual({ kind: "answer", answers: { q1: ["2:30"], q2: ["Online"] } });
  });

  it("still reads '2: Online' as a keyed line for question 2", () => {
    const reply = parseTextReply(meeting, "2: Online");

    expect(reply).toEqual({ kind: "answer", answers: { q2: ["Online"] } });
  });

  it("reads a URL on a line of its own as a value", () => {
    const reply = parseTextReply(meeting, "Morning\nhttps://meet.example.com/abc");

    expect(reply).toEqual({
      kind: "answer",
      answers: { q1: ["Morning"], q2: ["https://meet.example.com/abc"] },
    });
  });

  it("reads text whose only lines lie beyond the questions as none", () => {
    const reply = parseTextReply(all, "\n\n\nthanks");

    expect(reply).toEqual({ kind: "none" });
  });
});

describe("parseTextReply: several questions with keyed lines", () => {
  it.each([
    ["key: value", "checks: 1, 3"],
    ["key = value", "checks = 1, 3"],
    ["key - value", "checks - 1, 3"],
    ["no spaces around a colon", "checks:1,3"],
    ["no spaces around =", "checks=1,3"],
    ["the key in another case", "CHECKS: 1, 3"],
  ])("reads %s (%j)", (_form, text) => {
    const reply = parseTextReply(all, text);

    expect(reply).toEqual({ kind: "answer", answers: { checks: ["Unit", "Lint"] } });
  });

  it.each([
    ["the question id", "release_note: urgent"],
    ["the id in another case", "Release_Note: urgent"],
    ["the header", "Release note: urgent"],
    ["the header in another case", "RELEASE NOTE = urgent"],
    ["the question text", "What kind of release note?: urgent"],
    ["the question text in another case", "what kind of release note? - urgent"],
    ["the 1-based number", "3: urgent"],
  ])("matches the key against %s", (_name, text) => {
    const reply = parseTextReply(all, text);

    expect(reply).toEqual({ kind: "answer", answers: { release_note: ["Urgent"] } });
  });

  it("matches a key against ids before headers", () => {
    const questions: Question[] = [
      { ...deployTarget, id: "target", header: "checks" },
      { ...checks, id: "checks", header: "Tests" },
    ];

    const reply = parseTextReply(questions, "checks: 2");

    expect(reply).toEqual({ kind: "answer", answers: { checks: ["E2E"] } });
  });

  it("matches a key against headers before question texts", () => {
    const questions: Question[] = [
      { ...deployTarget, id: "first", header: "Which?", question: "Where to deploy?" },
      { ...checks, id: "second", header: "Tests", question: "Which?" },
    ];

    const reply = parseTextReply(questions, "which?: 2");

    expect(reply).toEqual({ kind: "answer", answers: { first: ["Production"] } });
  });

  it("matches a key against question texts before numbers", () => {
    const questions: Question[] = [
      { ...deployTarget, id: "first", question: "Where to deploy?" },
      { ...checks, id: "second", question: "1" },
    ];

    const reply = parseTextReply(questions, "1: 2");

    expect(reply).toEqual({ kind: "answer", answers: { second: ["E2E"] } });
  });

  it("combines keyed lines in any order", () => {
    const text = "release_note: night-shift\ndeploy_target = production\nchecks - unit, e2e";

    const reply = parseTextReply(all, text);

    expect(reply).toEqual({
      kind: "answer",
      answers: { deploy_target: ["Production"], checks: ["Unit", "E2E"], release_note: ["night-shift"] },
    });
  });

  it.each([
    ["q1: meet at 14:30", "meet at 14:30"],
    ["q1: see https://x.y/z", "see https://x.y/z"],
    ["q1: https://x.y/z?a=1", "https://x.y/z?a=1"],
    ["q1 = a = b", "a = b"],
    ["q1 - 10 - 12", "10 - 12"],
  ])("keeps colons, URLs and separators in the value of %j", (line, value) => {
    const reply = parseTextReply(meeting, line);

    expect(reply).toEqual({ kind: "answer", answers: { q1: [value] } });
  });

  it("gives a plain line after a keyed line to the next unanswered question", () => {
    const reply = parseTextReply(all, "release_note: urgent\n1");

    expect(reply).toEqual({
      kind: "answer",
      answers: { deploy_target: ["Staging (Recommended)"], release_note: ["Urgent"] },
    });
  });

  it("mixes keyed lines and positions", () => {
    const reply = parseTextReply(meeting, "Morning\nq2: Online");

    expect(reply).toEqual({ kind: "answer", answers: { q1: ["Morning"], q2: ["Online"] } });
  });

  it("lets a later keyed line replace what a plain line gave its question", () => {
    const reply = parseTextReply(meeting, "Afternoon\nq1: 14:30");

    expect(reply).toEqual({ kind: "answer", answers: { q1: ["14:30"] } });
  });

  it("reads a line whose key names no question as a value at its position", () => {
    const reply = parseTextReply(meeting, "note: bring snacks\nOffice");

    expect(reply).toEqual({ kind: "answer", answers: { q1: ["note: bring snacks"], q2: ["Office"] } });
  });

  it("resolves a keyed value like any typed value: option number, label, or free text", () => {
    const reply = parseTextReply(all, "deploy_target: 2\nchecks: lint, smoke\nrelease_note: 5");

    expect(reply).toEqual({
      kind: "answer",
      answers: { deploy_target: ["Production"], checks: ["Lint", "smoke"], release_note: ["5"] },
    });
  });
});

describe("parseTextReply: plain lines answer the next unanswered question", () => {
  it("after a keyed line, the plain lines answer the questions still open, in order", () => {
    const reply = parseTextReply(all, "checks: 1\n2\nStaging");

    expect(reply).toEqual({
      kind: "answer",
      answers: { checks: ["Unit"], deploy_target: ["Production"], release_note: ["Staging"] },
    });
  });

  it("a keyed line between plain lines leaves the order of the others as it is", () => {
    const reply = parseTextReply(all, "2\nrelease_note: urgent\nlint");

    expect(reply).toEqual({
      kind: "answer",
      answers: { deploy_target: ["Production"], release_note: ["Urgent"], checks: ["Lint"] },
    });
  });

  it("a blank line passes over the next unanswered question, also after a keyed line", () => {
    const reply = parseTextReply(all, "checks: 1\n\nurgent");

    expect(reply).toEqual({ kind: "answer", answers: { checks: ["Unit"], release_note: ["Urgent"] } });
  });

  it("plain lines beyond the last open question are dropped", () => {
    const reply = parseTextReply(meeting, "Morning\nOnline\nsee you");

    expect(reply).toEqual({ kind: "answer", answers: { q1: ["Morning"], q2: ["Online"] } });
  });

  describe("with the answers of earlier messages", () => {
    it("a plain line answers the first question the earlier messages left open", () => {
      const reply = parseTextReply(all, "2", { checks: ["Unit"] });

      expect(reply).toEqual({ kind: "answer", answers: { deploy_target: ["Production"] } });
    });

    it("line by line: each plain line takes the next open question, never one already answered", () => {
      const first = parseTextReply(all, "checks: 1");
      const earlier = first.kind === "answer" ? first.answers : {};
      const second = parseTextReply(all, "2", earlier);
      const third = parseTextReply(all, "Staging", {
        ...earlier,
        ...(second.kind === "answer" ? second.answers : {}),
      });

      expect([first, second, third]).toEqual([
        { kind: "answer", answers: { checks: ["Unit"] } },
        { kind: "answer", answers: { deploy_target: ["Production"] } },
        { kind: "answer", answers: { release_note: ["Staging"] } },
      ]);
    });

    it("a keyed line may still answer a question answered before (a correction)", () => {
      const reply = parseTextReply(all, "deploy_target: 1", { deploy_target: ["Production"] });

      expect(reply).toEqual({ kind: "answer", answers: { deploy_target: ["Staging (Recommended)"] } });
    });

    it("a plain line with every question answered before yields none", () => {
      const earlier = { deploy_target: ["Production"], checks: ["Unit"], release_note: ["Urgent"] };

      expect(parseTextReply(all, "more", earlier)).toEqual({ kind: "none" });
    });
  });
});

describe("parseTextReply: skip and /cancel on any line", () => {
  it.each([
    ["2\n/cancel", "cancel"],
    ["2\n1, 3\n  /CANCEL ", "cancel"],
    ["checks: 1\nskip", "skip"],
    ["2\n Skip \nurgent", "skip"],
  ])("reads %j as %s", (text, kind) => {
    expect(parseTextReply(all, text)).toEqual({ kind });
  });

  it("reads /cancel and skip after the answers of earlier messages", () => {
    expect(parseTextReply(all, "/cancel", { deploy_target: ["Production"] })).toEqual({ kind: "cancel" });
    expect(parseTextReply(all, "skip", { deploy_target: ["Production"] })).toEqual({ kind: "skip" });
  });

  it("reads /cancel on any line of a reply to one question", () => {
    expect(parseTextReply([checks], "1, 3\n/cancel")).toEqual({ kind: "cancel" });
    expect(parseTextReply([deployTarget], "Production\nskip")).toEqual({ kind: "skip" });
  });

  describe('when the question a plain "skip" would answer has an option labelled "Skip"', () => {
    const step: Question = {
      id: "step",
      header: "Migration",
      question: "What should happen to the failed migration step?",
      options: [{ label: "Retry" }, { label: "Skip" }],
      allowOther: true,
    };

    it("answers that option when that question is next", () => {
      expect(parseTextReply([deployTarget, step], "2\nskip")).toEqual({
        kind: "answer",
        answers: { deploy_target: ["Production"], step: ["Skip"] },
      });
    });

    it("skips when the next open question has no such option", () => {
      expect(parseTextReply([step, deployTarget], "retry\nskip")).toEqual({ kind: "skip" });
    });

    it("keeps a keyed skip as a value", () => {
      expect(parseTextReply([step, deployTarget], "step: skip\ndeploy_target: skip")).toEqual({
        kind: "answer",
        answers: { step: ["Skip"], deploy_target: ["skip"] },
      });
    });
  });
});
