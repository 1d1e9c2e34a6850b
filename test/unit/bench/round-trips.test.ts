import { describe, expect, it } from "vitest";
import { longestChain, type RoundTrip, shapeOf } from "../../../bench/lib/round-trips.ts";

const call = (label: string, startedAt: number, answeredAt: number): RoundTrip => ({
  kind: "aws",
  label,
  startedAt,
  answeredAt,
});

describe("round trips before a response", () => {
  it("counts calls sent side by side as one step, calls sent after an answer as the next", () => {
    const calls = [
      call("PutItem", 0, 2),
      call("GetItem", 0.1, 1.5),
      call("UpdateItem", 2.1, 3),
      call("SendTaskSuccess", 3.2, 4),
    ];
    expect(longestChain(calls)).toBe(3);
    expect(shapeOf(calls)).toBe("PutItem ∥ GetItem → UpdateItem → SendTaskSuccess");
  });

  it("counts a chain of calls each waiting for the one before", () => {
    const calls = [call("A", 0, 1), call("B", 1, 2), call("C", 2, 3), call("D", 3, 4), call("E", 4, 5)];
    expect(longestChain(calls)).toBe(5);
    expect(longestChain([])).toBe(0);
    expect(shapeOf([])).toBe("(none)");
  });
});
