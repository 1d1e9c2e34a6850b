/**
 * "Still needed": what a reply that answers some questions but not all is told — one sentence for every chat
 * and the terminal (infra/local/terminal-answers.ts), echoing what it recorded.
 */
import { describe, expect, it } from "vitest";
import { outcomeReplyText, stillNeededText } from "#lib/channels/replies.ts";
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
