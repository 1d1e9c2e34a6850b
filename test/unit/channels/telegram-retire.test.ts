/**
 * Retiring a Telegram copy is idempotent: the webhook edits a voter's tapped copy at once and the stream
 * consumer makes the same edit a moment later, which Telegram refuses as "message is not modified".
 */
import { describe, expect, it } from "vitest";
import { PlatformApiError } from "#lib/channels/platform-api-error.ts";
import type { TelegramApi } from "#lib/channels/telegram/telegram-api.ts";
import { createTelegramChannel } from "#lib/channels/telegram/telegram-channel.ts";
import { questionRecord } from "../../support/records.ts";

const delivery = { channel: "telegram", chatId: "43", messageId: "77", privateTo: "telegram:43" };

function refusing(message: string): TelegramApi {
  return {
    async call() {
      throw new PlatformApiError("telegram", "editMessageText", 400, message);
    },
  } as unknown as TelegramApi;
}

describe("the Telegram channel's retire", () => {
  it("is done when the copy already shows the edit", async () => {
    const api = refusing("Bad Request: message is not modified: specified new message content is the same");
    await expect(createTelegramChannel(api).retire(questionRecord(), delivery)).resolves.toBeUndefined();
  });

  it("still fails on any other refusal, for the caller to report", async () => {
    const api = refusing("Bad Request: message to edit not found");
    await expect(createTelegramChannel(api).retire(questionRecord(), delivery)).rejects.toThrow(
      "message to edit not found",
    );
  });
});
