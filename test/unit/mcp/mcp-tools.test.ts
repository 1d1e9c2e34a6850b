/** The MCP tools' refusals, with in-memory use cases: what a busy session tells the model. */
import { describe, expect, it } from "vitest";
import type { AskQuestion } from "#lib/app/ask-question.ts";
import { SessionBusyError } from "#lib/app/errors.ts";
import type { ResolveQuestion } from "#lib/app/resolve-question.ts";
import type { ApiKey } from "#lib/auth/api-keys.ts";
import { createMcpTools } from "#lib/mcp/mcp-tools.ts";
import { deployTarget } from "../questions/fixtures.ts";

const key: ApiKey = { name: "agent", scope: "ask" };
const asker = { owner: "web:alice", deliverTo: [] };

function toolsRefusing(error: Error) {
  return createMcpTools({
    askQuestion: (async () => {
      throw error;
    }) as unknown as AskQuestion,
    resolve: {} as ResolveQuestion,
    waitForQuestion: async () => {
      throw new Error("not waited on");
    },
    waitSeconds: 1,
    telemetry: { internalError: () => undefined },
  });
}

describe("MCP tools", () => {
  it("a busy session: SESSION_BUSY with the pending question's id, in the text and the structured error", async () => {
    const result = await toolsRefusing(new SessionBusyError("ask_waiting")).call(
      "ask_user",
      { questions: [deployTarget] },
      asker,
      key,
    );
    const error = {
      code: "SESSION_BUSY",
      message:
        'Question "ask_waiting" is already waiting for an answer in this session. Wait for it to end before asking again.',
      pendingQuestionId: "ask_waiting",
    };
    expect(result).toEqual({
      content: [{ type: "text", text: `${error.message}\n${JSON.stringify({ error })}` }],
      structuredContent: { error },
      isError: true,
    });
  });

  it("a busy session whose question the key may not see: SESSION_BUSY without naming it", async () => {
    const result = await toolsRefusing(new SessionBusyError(undefined)).call(
      "ask_user",
      { questions: [deployTarget] },
      asker,
      key,
    );
    expect(result.structuredContent).toEqual({
      error: {
        code: "SESSION_BUSY",
        message:
          "Another question is already waiting for an answer in this session. Wait for it to end before asking again.",
      },
    });
  });
});
