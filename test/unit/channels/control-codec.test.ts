import { describe, expect, it } from "vitest";
import { type Control, controlAction, decodeControl, encodeControl } from "#lib/channels/control-codec.ts";

const longestId = "q".repeat(48);

describe("control codec", () => {
  const controls: Control[] = [
    { kind: "option", questionId: "ask_1", questionIndex: 1, optionIndex: 3 },
    { kind: "toggle", questionId: "ask_1", questionIndex: 0, optionIndex: 2, selected: true },
    { kind: "toggle", questionId: "ask_1", questionIndex: 0, optionIndex: 2, selected: false },
    { kind: "done", questionId: "ask_1", questionIndex: 2, optionIndex: 0 },
    { kind: "choose", questionId: "ask_1", questionIndex: 2, optionIndex: 0 },
    { kind: "other", questionId: "ask_1", questionIndex: 1, optionIndex: 0 },
    { kind: "form", questionId: "ask_1", questionIndex: 0, optionIndex: 0 },
    { kind: "back", questionId: longestId, questionIndex: 2, optionIndex: 0 },
    { kind: "skip", questionId: "ask_1", questionIndex: 0, optionIndex: 0 },
  ];

  it.each(controls)("$kind round-trips", (control) => {
    expect(decodeControl(encodeControl(control))).toEqual(control);
  });

  it("fits every platform's limit: Telegram's 64 bytes of callback_data with the longest question id", () => {
    const longest = encodeControl({
      kind: "toggle",
      questionId: longestId,
      questionIndex: 2,
      optionIndex: 3,
      selected: true,
    });
    expect(Buffer.byteLength(longest)).toBeLessThanOrEqual(64);
  });

  it.each([
    "",
    "o|1|0",
    "z|0|0|ask_1",
    "t2|0|0|ask_1",
    "o|x|0|ask_1",
    "o|0|0|ask 1",
    `o|0|0|${"q".repeat(49)}`,
    "hr|o|0|0",
  ])("refuses %j (not one of ours)", (data) => {
    expect(decodeControl(data)).toBeUndefined();
  });

  it("maps each control to the pipeline's action; Done and a select carry the chosen options", () => {
    const of = (control: Omit<Control, "questionId">, chosen?: number[]) =>
      controlAction({ questionId: "ask_1", ...control }, chosen);
    expect(of({ kind: "option", questionIndex: 1, optionIndex: 2 })).toEqual({
      type: "option",
      questionIndex: 1,
      optionIndex: 2,
    });
    expect(of({ kind: "done", questionIndex: 1, optionIndex: 0 }, [2, 0, 2])).toEqual({
      type: "choose",
      questionIndex: 1,
      optionIndexes: [2, 0, 2],
    });
    expect(of({ kind: "back", questionIndex: 2, optionIndex: 0 })).toEqual({
      type: "back",
      questionIndex: 2,
    });
    expect(of({ kind: "form", questionIndex: 0, optionIndex: 0 })).toEqual({
      type: "other",
      questionIndex: 0,
    });
    expect(of({ kind: "skip", questionIndex: 0, optionIndex: 0 })).toEqual({ type: "skip" });
  });
});
