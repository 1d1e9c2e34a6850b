import { describe, expect, it } from "vitest";
import {
  createMattermostWebhook,
  type MattermostWebhookDeps,
} from "#lib/channels/mattermost/mattermost-webhook.ts";

const COMMAND = "cmdtoken1234567890abcdefgh";
const HOOK = "hooktoken234567890abcdefgh";
const form = { "content-type": "application/x-www-form-urlencoded" };
const command = (token: string) =>
  Buffer.from(`token=${token}&user_id=u1&channel_id=c1&command=%2Fhandraise&text=cancel`);
const message = (token: string) => Buffer.from(`token=${token}&user_id=u1&channel_id=c1&post_id=p1&text=2`);

/** The webhook's verification only: it reads the tokens and the body, nothing else. */
function verifier(commandTokens: string, outgoingTokens: string | undefined) {
  const errors: string[] = [];
  const webhook = createMattermostWebhook({
    actionSecret: async () => "mm-action-secret-0123456789",
    commandTokens: async () => commandTokens,
    outgoingTokens: async () => outgoingTokens,
    onError: (error: unknown) => errors.push(String(error)),
  } as unknown as MattermostWebhookDeps);
  const verify = (body: Buffer) => webhook.verify({ headers: form, body, nowMs: 0 });
  return { verify, errors };
}

describe("the Mattermost webhook's tokens", () => {
  it("a command token verifies commands only, an outgoing webhook's token messages only", async () => {
    const { verify } = verifier(COMMAND, HOOK);
    expect(await verify(command(COMMAND))).toBe(true);
    expect(await verify(message(HOOK))).toBe(true);
    expect(await verify(command(HOOK))).toBe(false);
    expect(await verify(message(COMMAND))).toBe(false);
  });

  it("without outgoing-webhook tokens no message verifies", async () => {
    const { verify } = verifier(COMMAND, undefined);
    expect(await verify(message(COMMAND))).toBe(false);
    expect(await verify(command(COMMAND))).toBe(true);
  });

  it("a token configured as both kinds proves neither, and is reported; the others still work", async () => {
    const { verify, errors } = verifier(`${COMMAND},${HOOK}`, HOOK);
    expect(await verify(command(HOOK))).toBe(false);
    expect(await verify(message(HOOK))).toBe(false);
    expect(await verify(command(COMMAND))).toBe(true);
    expect(errors[0]).toContain("MATTERMOST_COMMAND_TOKEN and MATTERMOST_OUTGOING_TOKEN");
    // The report names the variables, never a token.
    expect(errors.join("\n")).not.toContain(HOOK);
  });
});
