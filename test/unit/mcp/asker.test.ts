/**
 * Who an MCP request asks, and what the person is told of who asks and why: the headers, else the
 * deployment's defaults (lib/mcp/asker.ts).
 */
import { describe, expect, it } from "vitest";
import { askerOf } from "#lib/mcp/asker.ts";

const defaults = { owner: "web:alice", deliverTo: undefined };

describe("askerOf: the context", () => {
  it("is the deployment's default when the request sends no X-Handraise-Context", () => {
    expect(askerOf({}, { ...defaults, context: " The release agent " })).toEqual({
      owner: "web:alice",
      deliverTo: [],
      context: "The release agent",
    });
    expect(askerOf({}, defaults)).toEqual({ owner: "web:alice", deliverTo: [] });
  });

  it("is the request's header, percent-decoded, over the default", () => {
    const header = encodeURIComponent("Release agent for <bob>:\nv1.4 — green");
    expect(askerOf({ "x-handraise-context": header }, { ...defaults, context: "Default" })).toMatchObject({
      context: "Release agent for <bob>:\nv1.4 — green",
    });
    // Plain ASCII without % reads as it is.
    expect(askerOf({ "x-handraise-context": "CI job 42" }, defaults)).toMatchObject({ context: "CI job 42" });
  });

  it("names the header when its value breaks the rules", () => {
    expect(askerOf({ "x-handraise-context": "%20%20" }, defaults)).toEqual({
      problem: "X-Handraise-Context: context must not be empty or blank.",
    });
    expect(askerOf({ "x-handraise-context": "100%" }, defaults)).toEqual({
      problem: "X-Handraise-Context: not valid percent-encoding (write a % sign as %25).",
    });
  });
});
