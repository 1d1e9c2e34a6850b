/**
 * "Still needed": what a reply that answers some questions but not all is told — one sentence for every chat
 * and the terminal (infra/local/terminal-answers.ts), echoing what it recorded.
 */
import { describe, expect, it } from "vitest";
import type { InvalidReason } from "#lib/app/inbound-outcome.ts";
import {
  answerLinkLine,
  invalidText,
  outcomeReplyText,
  reminderText,
  replies,
  stillNeededText,
  toldByCopies,
  withCancelCommand,
} from "#lib/channels/replies.ts";
import { validateAnswers } from "#lib/questions/answers.ts";
import { InvalidAnswerError } from "#lib/questions/errors.ts";
import { renderPromptText } from "#lib/questions/index.ts";
import { questionRecord } from "../../support/records.ts";
import { checks, deployTarget, releaseNote } from "../questions/fixtures.ts";

const questions = [deployTarget, checks, releaseNote];

describe("stillNeededText", () => {
  it("echoes what was recorded, by header and values, then names what is still needed by header and id", () => {
    expect(stillNeededText(questions, { deploy_target: ["Production"] }, [checks, releaseNote])).toBe(
      "Recorded: Deploy: Production. Still needed: Checks [checks], Release note [release_note].",
    );
  });

  it("lists several recorded answers in the prompt's order, whatever order they came in", () => {
    const recorded = { release_note: ["Urgent"], checks: ["Unit", "Lint"] };
    expect(stillNeededText(questions, recorded, [deployTarget])).toBe(
      "Recorded: Checks: Unit, Lint; Release note: Urgent. Still needed: Deploy [deploy_target].",
    );
  });

  it("says only what is still needed when nothing was recorded", () => {
    expect(stillNeededText(questions, {}, [checks])).toBe("Still needed: Checks [checks].");
  });
});

describe("outcomeReplyText of an incomplete reply", () => {
  it("is the Still needed sentence with what this reply recorded", () => {
    const record = questionRecord();
    const text = outcomeReplyText({
      kind: "incomplete",
      record,
      recorded: { deploy_target: ["Production"] },
      missing: [checks],
    });
    expect(text).toBe("Recorded: Deploy: Production. Still needed: Checks [checks].");
  });
});

/** The contract's refusal of `answers` (lib/questions/answers.ts), as lib/app reports it. */
function refusal(answers: unknown): InvalidReason {
  try {
    validateAnswers(questions, answers);
  } catch (error) {
    if (!(error instanceof InvalidAnswerError)) throw error;
    return {
      kind: "answer_refused",
      problem: error.reason,
      questionId: error.questionId,
      contractMessage: error.message,
    };
  }
  throw new Error("the answers were accepted");
}

describe("reasons → sentences: lib/app says why, the catalog says it", () => {
  it.each<[string, InvalidReason, string]>([
    ["a control that does not fit", { kind: "control_mismatch" }, replies.controlDoesNotFit],
    [
      "an option number of the only question",
      { kind: "no_such_option", question: deployTarget, typed: "3", several: false },
      "There is no option 3 — type a number 1–2 or your own answer.",
    ],
    [
      "an option number of one of several questions",
      { kind: "no_such_option", question: checks, typed: "7", several: true },
      "Checks [checks]: there is no option 7 — type a number 1–3 or your own answer.",
    ],
    [
      "an option number as long as a message (its start says enough)",
      { kind: "no_such_option", question: deployTarget, typed: "9".repeat(4000), several: false },
      `There is no option ${"9".repeat(23)}… — type a number 1–2 or your own answer.`,
    ],
    [
      "a blank answer",
      refusal({ deploy_target: [" "], checks: ["Unit"], release_note: ["Urgent"] }),
      'question "deploy_target" has a blank answer',
    ],
    [
      "an answer that is too long",
      refusal({ deploy_target: ["x".repeat(5000)], checks: ["Unit"], release_note: ["Urgent"] }),
      'question "deploy_target" has an answer longer than 4000 characters',
    ],
    [
      "two answers to a single-select question",
      refusal({ deploy_target: ["a", "b"], checks: ["Unit"], release_note: ["Urgent"] }),
      'question "deploy_target" takes one answer, got 2',
    ],
    [
      "a question id the prompt does not have",
      refusal({ nope: ["a"] }),
      '"nope" is not one of this request\'s question ids',
    ],
  ])("%s", (_, reason, sentence) => {
    expect(invalidText(reason)).toBe(sentence);
    expect(outcomeReplyText({ kind: "invalid", record: questionRecord(), reason })).toBe(sentence);
  });

  it("a reminder is how long is left, from the data the timer hands over", () => {
    expect(reminderText({ leftMs: 0 })).toBe("Still waiting for your answer — 0 s left");
    expect(reminderText({ leftMs: 90 * 60_000 })).toBe("Still waiting for your answer — 90 min left");
  });
});

describe("the words renderers add to a prompt", () => {
  it("the typed-reply hint names the platform's own cancel command; nothing else changes", () => {
    const prompt = renderPromptText([deployTarget]);
    const withCommand = withCancelCommand(prompt, "/handraise");
    expect(withCommand).toBe(prompt.replace(/\/cancel to cancel\.$/, "/handraise cancel to cancel."));
    expect(withCommand.endsWith("Reply skip to skip, /handraise cancel to cancel.")).toBe(true);
    // Only the hint's last words: "/cancel to cancel." written elsewhere by the model stays as written.
    expect(withCancelCommand("/cancel to cancel. Or not", "/handraise")).toBe("/cancel to cancel. Or not");
  });

  it("the answer page's link as a line of text", () => {
    expect(answerLinkLine("http://127.0.0.1:3000/answer/ask_1?t=x")).toBe(
      "Answer in browser: http://127.0.0.1:3000/answer/ask_1?t=x",
    );
  });
});

describe("a close the run no longer waits for", () => {
  const answered = questionRecord({
    questions: [deployTarget],
    status: "answered",
    answers: { deploy_target: ["Production"] },
  });
  const skipped = questionRecord({ questions: [deployTarget], status: "cancelled", reason: "skipped" });
  const noQuorum = questionRecord({ questions: [deployTarget], status: "no_quorum", quorum: 2 });

  it("an answer, a skip, a cancel or a vote that closed: the one sentence, whatever the outcome", () => {
    for (const record of [answered, skipped, { ...skipped, reason: "cancelled" as const }, noQuorum]) {
      const outcome = { kind: "resolved" as const, record, notWaiting: true as const };
      expect(outcomeReplyText(outcome)).toBe("Recorded, but the run that asked no longer waits for it.");
      expect(outcomeReplyText(outcome)).toBe(replies.recordedNotWaiting);
      expect(toldByCopies(outcome)).toBe(false);
    }
  });

  it("a run that took it (or was left to the stream's retry): the usual reply, told by the copies", () => {
    expect(outcomeReplyText({ kind: "resolved", record: answered })).toBe(replies.gotIt);
    expect(outcomeReplyText({ kind: "resolved", record: skipped })).toBe(replies.skipped);
    expect(toldByCopies({ kind: "resolved", record: answered })).toBe(true);
    expect(toldByCopies({ kind: "ended", record: answered })).toBe(false);
  });
});
