/**
 * Mattermost signs nothing, so Handraise signs its buttons and dialogs (docs/channels.md, "Mattermost"):
 * `context.sig = hex(HMAC-SHA256(MATTERMOST_ACTION_SECRET, "<questionId>|<sub>|<option>"))`. The expected
 * values below were computed independently with `openssl dgst -sha256 -hmac`.
 */
import { describe, expect, it } from "vitest";
import {
  findMention,
  postText,
  readMattermostRequest,
  withoutLeadingMention,
} from "#lib/channels/mattermost/mattermost-request.ts";
import {
  actionBasestring,
  parseTokenList,
  signAction,
  signContext,
  tokenFromAuthorization,
  tokenMatches,
  verifyContext,
} from "#lib/channels/mattermost/mattermost-signature.ts";

const KEY = "mm-action-secret-0123456789";
const QUESTION_ID = "ask_0123456789abcdef0123456789abcdef";
const context = { questionId: QUESTION_ID, sub: 0, option: "1" };
/** printf '%s' 'ask_0123…cdef|0|1' | openssl dgst -sha256 -hmac 'mm-action-secret-0123456789' */
const EXPECTED_SIG = "612178737069cca7684da018527a3fbad126cb661622516a33c81fbb77ce0615";
/** The same for option "dialog" (a dialog's state). */
const EXPECTED_DIALOG_SIG = "54e1964ce44f5b8a146d1af8d446f8002b3b7dd7b1edc158af97a44d23ae76f6";

describe("the action signature (M1)", () => {
  it("signs questionId|sub|option with HMAC-SHA256, lowercase hex", () => {
    expect(actionBasestring(context)).toBe(`${QUESTION_ID}|0|1`);
    expect(signAction(KEY, context)).toBe(EXPECTED_SIG);
    expect(signAction(KEY, { ...context, option: "dialog" })).toBe(EXPECTED_DIALOG_SIG);
    expect(signContext(KEY, context)).toEqual({ ...context, sig: EXPECTED_SIG });
  });

  it("accepts a valid signed context", () => {
    expect(verifyContext(KEY, { ...context, sig: EXPECTED_SIG })).toEqual({ ...context, sig: EXPECTED_SIG });
  });

  it("rejects a tampered context: another option, sub-question or question under the same signature", () => {
    expect(verifyContext(KEY, { ...context, option: "0", sig: EXPECTED_SIG })).toBeUndefined();
    expect(verifyContext(KEY, { ...context, sub: 1, sig: EXPECTED_SIG })).toBeUndefined();
    expect(verifyContext(KEY, { ...context, questionId: "ask_other", sig: EXPECTED_SIG })).toBeUndefined();
    expect(verifyContext(KEY, { ...context, sig: EXPECTED_SIG.toUpperCase() })).toBeUndefined();
    expect(verifyContext(KEY, { ...context, sig: EXPECTED_SIG.slice(0, -1) })).toBeUndefined();
  });

  it("rejects a missing or non-string signature, a malformed context and a missing key", () => {
    expect(verifyContext(KEY, context)).toBeUndefined();
    expect(verifyContext(KEY, { ...context, sig: 42 })).toBeUndefined();
    expect(
      verifyContext(KEY, { ...context, option: "9", sig: signAction(KEY, { ...context, option: "9" }) }),
    ).toBeUndefined();
    expect(verifyContext(KEY, undefined)).toBeUndefined();
    expect(verifyContext(undefined, { ...context, sig: EXPECTED_SIG })).toBeUndefined();
  });

  it("rejects a context signed with another key", () => {
    const forged = signContext("another-secret-0123456789", context);
    expect(forged.sig).not.toBe(EXPECTED_SIG);
    expect(verifyContext(KEY, forged)).toBeUndefined();
  });
});

describe("the command token", () => {
  const tokens = parseTokenList(" cmdtoken1234567890abcdefgh , hooktoken234567890abcdefgh ,");

  it("reads the slash command token and, comma-separated, outgoing webhook tokens", () => {
    expect(tokens).toEqual(["cmdtoken1234567890abcdefgh", "hooktoken234567890abcdefgh"]);
    expect(parseTokenList(undefined)).toEqual([]);
  });

  it("matches any configured token exactly, and nothing else", () => {
    expect(tokenMatches("cmdtoken1234567890abcdefgh", tokens)).toBe(true);
    expect(tokenMatches("hooktoken234567890abcdefgh", tokens)).toBe(true);
    expect(tokenMatches("cmdtoken1234567890abcdefgX", tokens)).toBe(false);
    expect(tokenMatches("cmdtoken1234567890abcdefg", tokens)).toBe(false);
    expect(tokenMatches("", tokens)).toBe(false);
    expect(tokenMatches(undefined, tokens)).toBe(false);
    expect(tokenMatches("cmdtoken1234567890abcdefgh", [])).toBe(false);
  });

  it("takes the token from `Authorization: Token <token>`", () => {
    expect(tokenFromAuthorization("Token cmdtoken1234567890abcdefgh")).toBe("cmdtoken1234567890abcdefgh");
    expect(tokenFromAuthorization("Bearer cmdtoken1234567890abcdefgh")).toBeUndefined();
    expect(tokenFromAuthorization(undefined)).toBeUndefined();
  });
});

describe("verification of a request, before anything is parsed", () => {
  const verification = { actionSecret: KEY, tokens: ["cmdtoken1234567890abcdefgh"] };
  const tap = (ctx: unknown) =>
    Buffer.from(
      JSON.stringify({ user_id: "u1", channel_id: "c1", post_id: "p1", trigger_id: "t", context: ctx }),
    );
  const json = { "content-type": "application/json" };
  const form = { "content-type": "application/x-www-form-urlencoded" };

  it("a signed tap passes; unsigned, tampered or foreign-key taps are 401", () => {
    expect(readMattermostRequest(json, tap({ ...context, sig: EXPECTED_SIG }), verification)).toMatchObject({
      kind: "action",
      userId: "u1",
      context,
    });
    for (const ctx of [
      context,
      { ...context, option: "0", sig: EXPECTED_SIG },
      signContext("x".repeat(20), context),
    ]) {
      expect(() => readMattermostRequest(json, tap(ctx), verification)).toThrow(
        expect.objectContaining({ statusCode: 401 }),
      );
    }
  });

  it("a dialog state is only accepted when signed for option dialog; a button's signature is not a state", () => {
    const submission = (state: unknown) =>
      Buffer.from(
        JSON.stringify({
          type: "dialog_submission",
          callback_id: "handraise",
          state: JSON.stringify(state),
          user_id: "u1",
          channel_id: "c1",
          submission: { deploy_target: "Production", "deploy_target:other": "" },
        }),
      );
    const state = { ...context, option: "dialog", sig: EXPECTED_DIALOG_SIG };
    expect(readMattermostRequest(json, submission(state), verification)).toMatchObject({
      kind: "dialog",
      answers: { deploy_target: ["Production"] },
    });
    expect(() =>
      readMattermostRequest(json, submission({ ...context, sig: EXPECTED_SIG }), verification),
    ).toThrow(expect.objectContaining({ statusCode: 401 }));
  });

  it("a slash command needs the token, from the header or the form; a wrong one is 401", () => {
    const body = (token: string) =>
      Buffer.from(`token=${token}&user_id=u1&channel_id=c1&command=%2Fhandraise&text=cancel&trigger_id=t`);
    expect(readMattermostRequest(form, body("cmdtoken1234567890abcdefgh"), verification)).toMatchObject({
      kind: "command",
      text: "cancel",
    });
    expect(
      readMattermostRequest(
        { ...form, authorization: "Token cmdtoken1234567890abcdefgh" },
        body(""),
        verification,
      ).kind,
    ).toBe("command");
    expect(() => readMattermostRequest(form, body("wrong"), verification)).toThrow(
      expect.objectContaining({ statusCode: 401 }),
    );
    expect(() =>
      readMattermostRequest(
        { ...form, authorization: "Token wrong" },
        body("cmdtoken1234567890abcdefgh"),
        verification,
      ),
    ).toThrow(expect.objectContaining({ statusCode: 401 }));
  });

  it("an outgoing webhook (JSON or form) needs a configured token; the trigger word is not part of the answer", () => {
    const hook = (token: string) => ({
      token,
      channel_id: "c1",
      user_id: "u1",
      post_id: "p1",
      text: "answer Production",
      trigger_word: "answer",
    });
    const tokens = { ...verification, tokens: ["cmdtoken1234567890abcdefgh", "hooktoken234567890abcdefgh"] };
    expect(
      readMattermostRequest(json, Buffer.from(JSON.stringify(hook("hooktoken234567890abcdefgh"))), tokens),
    ).toEqual({ kind: "message", userId: "u1", channelId: "c1", postId: "p1", triggerWord: "answer" });
    // The text is the post's, read back from the API; the trigger word is not part of the answer.
    expect(postText("answer Production", "answer")).toBe(" Production");
    expect(postText("Production", "")).toBe("Production");
    expect(
      readMattermostRequest(
        form,
        Buffer.from(new URLSearchParams(hook("hooktoken234567890abcdefgh")).toString()),
        tokens,
      ).kind,
    ).toBe("message");
    expect(() => readMattermostRequest(json, Buffer.from(JSON.stringify(hook("nope"))), tokens)).toThrow(
      expect.objectContaining({ statusCode: 401 }),
    );
  });

  it("a body that is neither is 401; a verified body of the wrong shape is 400", () => {
    expect(() => readMattermostRequest(json, Buffer.from("{not json"), verification)).toThrow(
      expect.objectContaining({ statusCode: 401 }),
    );
    expect(() => readMattermostRequest(json, Buffer.from("{}"), verification)).toThrow(
      expect.objectContaining({ statusCode: 401 }),
    );
    const signedButBroken = Buffer.from(JSON.stringify({ context: { ...context, sig: EXPECTED_SIG } }));
    expect(() => readMattermostRequest(json, signedButBroken, verification)).toThrow(
      expect.objectContaining({ statusCode: 400 }),
    );
  });
});

describe("a mention of the bot in a Mattermost message", () => {
  it("is @username as a whole name, case-insensitive; a leading one is not part of the answer", () => {
    expect(findMention("@handraise 2", "handraise")).toEqual({ index: 0, length: 10 });
    expect(findMention("ok @HandRaise.", "handraise")).toEqual({ index: 3, length: 10 });
    expect(findMention("2 (@handraise)", "handraise")).toBeDefined();
    for (const other of [
      "@handraise2 2",
      "@handraise.bot 2",
      "@handraise-x",
      "me@handraise",
      "handraise 2",
    ]) {
      expect(findMention(other, "handraise")).toBeUndefined();
    }
    expect(findMention("@hand.raise 2", "hand.raise")).toBeDefined();
    expect(findMention("@handxraise 2", "hand.raise")).toBeUndefined();
    expect(withoutLeadingMention("@handraise: 2", "handraise")).toBe("2");
    expect(withoutLeadingMention("  @handraise 2", "handraise")).toBe("2");
    expect(withoutLeadingMention("2 @handraise", "handraise")).toBe("2 @handraise");
  });
});
