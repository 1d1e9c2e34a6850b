/**
 * The local stack's event pattern matching (EventBridge rules, Lambda event filtering on the table's
 * stream), held to AWS's rules for the forms serverless.yml uses.
 */
import { describe, expect, it } from "vitest";
import { matchesPattern } from "#infra/local/event-bridge.ts";

const matches = (event: unknown, pattern: unknown) => matchesPattern(event, pattern, (value) => value);

describe("event pattern matching", () => {
  it("matches `exists` on a leaf value, present or absent", () => {
    const record = { dynamodb: { NewImage: { votedAtMs: { N: "5" } } } };
    expect(matches(record, { dynamodb: { NewImage: { votedAtMs: { N: [{ exists: true }] } } } })).toBe(true);
    expect(matches(record, { dynamodb: { NewImage: { notify: { M: [{ exists: true }] } } } })).toBe(false);
    expect(matches(record, { dynamodb: { NewImage: { votedAtMs: { S: [{ exists: false }] } } } })).toBe(true);
    expect(matches(record, { dynamodb: { NewImage: { votedAtMs: { N: [{ exists: false }] } } } })).toBe(
      false,
    );
  });

  it("matches nothing with `exists` on a map attribute, as AWS, which matches `exists` only on leaves", () => {
    const record = { dynamodb: { NewImage: { votedAtMs: { N: "5" }, notify: { M: { url: { S: "x" } } } } } };
    for (const exists of [true, false]) {
      expect(matches(record, { dynamodb: { NewImage: { votedAtMs: [{ exists }] } } }), `${exists}`).toBe(
        false,
      );
      expect(matches(record, { dynamodb: { NewImage: { notify: { M: [{ exists }] } } } }), `${exists}`).toBe(
        false,
      );
    }
  });

  it("matches listed values and nested objects of them", () => {
    const event = { source: "aws.states", detail: { status: "SUCCEEDED" } };
    expect(matches(event, { source: ["aws.states"], detail: { status: ["SUCCEEDED", "FAILED"] } })).toBe(
      true,
    );
    expect(matches(event, { detail: { status: ["FAILED"] } })).toBe(false);
  });
});
