/**
 * The closed-window handler on its own, with a clock: a failed status whose copy is not recorded is a 503 only
 * while the copy could still be on its way; later it is reported once and answered.
 */
import { describe, expect, it } from "vitest";
import { createClosedWindowHandler } from "#lib/channels/whatsapp/whatsapp-window.ts";
import { HttpError } from "#lib/http/http-errors.ts";
import { questionRecord } from "#test/support/records.ts";

const ASKED = 1_000_000;

function setup(nowMs: number) {
  const record = questionRecord({ id: "ask_w", owner: "whatsapp:16505550100", createdAtMs: ASKED });
  const claims = new Set<string>();
  const failures: { message: string; context: unknown }[] = [];
  const handler = createClosedWindowHandler({
    store: {
      findByMessage: async () => undefined,
      get: async () => record,
      addDeliveries: async () => {
        throw new Error("not expected");
      },
      claimEvent: async (key: string) => {
        if (claims.has(key)) return false;
        claims.add(key);
        return true;
      },
      releaseEvent: async (key: string) => {
        claims.delete(key);
      },
    } as never,
    telemetry: {
      failed: (message: string, _error: unknown, context?: unknown) => failures.push({ message, context }),
    },
    now: () => nowMs,
    api: {} as never,
    links: {} as never,
    template: undefined,
  });
  const failure = { messageId: "wamid.NEVER", chatId: "16505550100", callbackData: "question:ask_w" };
  return { handler, failure, failures };
}

describe("a failed status for a copy its question has not recorded", () => {
  it("is a 503 while the copy could still be on its way (Meta sends it again)", async () => {
    const { handler, failure, failures } = setup(ASKED + 60_000);
    const refused = await handler(failure).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HttpError);
    expect((refused as HttpError).statusCode).toBe(503);
    expect(failures).toEqual([]);
  });

  it("later is reported once, naming the question, and answered: no 503 for the rest of its life", async () => {
    const { handler, failure, failures } = setup(ASKED + 10 * 60_000);
    await handler(failure);
    await handler(failure);
    expect(failures).toEqual([
      { message: "whatsapp failed status names no recorded copy", context: { questionId: "ask_w" } },
    ]);
  });
});
