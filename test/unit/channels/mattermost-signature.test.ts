/**
 * Mattermost signs nothing, so Handraise signs its buttons and dialogs (docs/channels.md, "Mattermost"): a
 * button's context carries a control of the one codec and `hex(HMAC-SHA256(MATTERMOST_ACTION_SECRET,
 * "action|<control>"))`; a dialog's state the control that opened it, its post, the tapper, the tap's channel,
 * when, and the HMAC of `"dialog|<control>|<post id>|<user id>|<channel id>|<issued at ms>"`. The expected values below were computed independently with
 * `openssl dgst -sha256 -hmac`.
 */
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Control } from "#lib/channels/control-codec.ts";
import {
  findMention,
  postText,
  readMattermostRequest,
  withoutLeadingMention,
} from "#lib/channels/mattermost/mattermost-request.ts";
import {
  dialogStateProblem,
  MAX_DIALOG_AGE_MS,
  parseTokenList,
  signControl,
  signDialogState,
  tokenFromAuthorization,
  tokenMatches,
  verifyControl,
  verifyDialogState,
} from "#lib/channels/mattermost/mattermost-signature.ts";

const KEY = "mm-action-secret-0123456789";
const QUESTION_ID = "ask_0123456789abcdef0123456789abcdef";
const option1: Control = { kind: "option", questionId: QUESTION_ID, questionIndex: 0, optionIndex: 1 };
const CONTROL = `o|0|1|${QUESTION_ID}`;
/** printf '%s' 'action|o|0|1|ask_0123…cdef' | openssl dgst -sha256 -hmac 'mm-action-secret-0123456789' */
const EXPECTED_SIG = "8fe3319e61fa008a600997fc9e81b06d6530fb4656ffc817c58e7dded909a91a";
const other: Control = { kind: "other", questionId: QUESTION_ID, questionIndex: 0, optionIndex: 0 };
const ISSUED = 1_700_000_000_000;
const opened = { control: other, postId: "p1", userId: "u1", channelId: "c1", issuedAtMs: ISSUED };
/**
 * printf '%s' 'dialog|x|0|0|ask_0123…cdef|p1|u1|c1|1700000000000' |
 *   openssl dgst -sha256 -hmac 'mm-action-secret-0123456789'
 */
const EXPECTED_DIALOG_SIG = "d1effbcfc1b63e125cab848f83d780bd3b02b42cd648a359f50185e8a0afb76c";

describe("the action signature (M1)", () => {
  it("a button's context is the codec's control and HMAC-SHA256 of action|<control>, lowercase hex", () => {
    expect(signControl(KEY, option1)).toEqual({ control: CONTROL, sig: EXPECTED_SIG });
    expect(verifyControl(KEY, { control: CONTROL, sig: EXPECTED_SIG })).toEqual(option1);
  });

  it("rejects a tampered context: another option, sub-question or question under the same signature", () => {
    for (const control of [`o|0|0|${QUESTION_ID}`, `o|1|1|${QUESTION_ID}`, "o|0|1|ask_other"]) {
      expect(verifyControl(KEY, { control, sig: EXPECTED_SIG })).toBeUndefined();
    }
    expect(verifyControl(KEY, { control: CONTROL, sig: EXPECTED_SIG.toUpperCase() })).toBeUndefined();
    expect(verifyControl(KEY, { control: CONTROL, sig: EXPECTED_SIG.slice(0, -1) })).toBeUndefined();
  });

  it("rejects a missing or non-string signature, a string that is no control, a missing or another key", () => {
    expect(verifyControl(KEY, { control: CONTROL })).toBeUndefined();
    expect(verifyControl(KEY, { control: CONTROL, sig: 42 })).toBeUndefined();
    expect(verifyControl(KEY, undefined)).toBeUndefined();
    expect(verifyControl(undefined, { control: CONTROL, sig: EXPECTED_SIG })).toBeUndefined();
    expect(verifyControl(KEY, signControl("another-secret-0123456789", option1))).toBeUndefined();
    // Signed, but not a control of the codec: refused all the same.
    const odd = "z|0|1|ask_1";
    const sig = createHmac("sha256", KEY).update(`action|${odd}`).digest("hex");
    expect(verifyControl(KEY, { control: odd, sig })).toBeUndefined();
  });

  it("a dialog's state names its control, post, tapper, channel and time under its own signature; a button's does not pass for one", () => {
    const state = signDialogState(KEY, opened);
    expect(JSON.parse(state)).toEqual({
      control: `x|0|0|${QUESTION_ID}`,
      postId: "p1",
      userId: "u1",
      channelId: "c1",
      issuedAtMs: ISSUED,
      sig: EXPECTED_DIALOG_SIG,
    });
    expect(verifyDialogState(KEY, state)).toEqual(opened);
    // Another post, user, channel or time under the same signature, or a button's context as a state.
    for (const [from, to] of [
      ['"p1"', '"p2"'],
      ['"u1"', '"u2"'],
      ['"c1"', '"c2"'],
      [String(ISSUED), String(ISSUED + 1)],
    ]) {
      expect(verifyDialogState(KEY, state.replace(from as string, to as string))).toBeUndefined();
    }
    // The old shape (control and post only) signs nothing a submission could be checked against.
    const unbound = createHmac("sha256", KEY).update(`dialog|x|0|0|${QUESTION_ID}|p1`).digest("hex");
    const old = JSON.stringify({ control: `x|0|0|${QUESTION_ID}`, postId: "p1", sig: unbound });
    expect(verifyDialogState(KEY, old)).toBeUndefined();
    const button = signControl(KEY, other);
    expect(verifyDialogState(KEY, JSON.stringify({ ...button, postId: "p1" }))).toBeUndefined();
    expect(verifyDialogState(KEY, "{not json")).toBeUndefined();
    expect(verifyDialogState(undefined, state)).toBeUndefined();
  });

  it("a dialog's state serves only its tapper, in the tap's channel, for 15 minutes", () => {
    const by = { userId: "u1", channelId: "c1" };
    expect(dialogStateProblem(opened, by, ISSUED)).toBeUndefined();
    expect(dialogStateProblem(opened, by, ISSUED + MAX_DIALOG_AGE_MS)).toBeUndefined();
    expect(MAX_DIALOG_AGE_MS).toBe(15 * 60_000);
    expect(dialogStateProblem(opened, by, ISSUED + MAX_DIALOG_AGE_MS + 1)).toBe("expired");
    expect(dialogStateProblem(opened, { ...by, userId: "u2" }, ISSUED)).toBe("another user");
    expect(dialogStateProblem(opened, { ...by, channelId: "c2" }, ISSUED)).toBe("another channel");
  });
});

describe("the command and outgoing tokens", () => {
  const tokens = parseTokenList(" cmdtoken1234567890abcdefgh , hooktoken234567890abcdefgh ,");

  it("reads a comma-separated list of tokens", () => {
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
  const verification = {
    actionSecret: KEY,
    commandTokens: ["cmdtoken1234567890abcdefgh"],
    outgoingTokens: ["hooktoken234567890abcdefgh"],
  };
  const read = (headers: Record<string, string>, body: Buffer, v = verification) =>
    readMattermostRequest({ headers, body }, v);
  const tap = (ctx: unknown) =>
    Buffer.from(
      JSON.stringify({ user_id: "u1", channel_id: "c1", post_id: "p1", trigger_id: "t", context: ctx }),
    );
  const json = { "content-type": "application/json" };
  const form = { "content-type": "application/x-www-form-urlencoded" };

  it("a signed tap reads as its control; unsigned, tampered or foreign-key taps do not verify", () => {
    expect(read(json, tap({ control: CONTROL, sig: EXPECTED_SIG }))).toMatchObject({
      kind: "action",
      userId: "u1",
      postId: "p1",
      control: option1,
    });
    for (const ctx of [
      { control: CONTROL },
      { control: `o|0|0|${QUESTION_ID}`, sig: EXPECTED_SIG },
      signControl("x".repeat(20), option1),
    ]) {
      expect(read(json, tap(ctx))).toBeUndefined();
    }
  });

  it("a dialog state is only accepted when signed as one; a button's signature is not a state", () => {
    const submission = (state: string) =>
      Buffer.from(
        JSON.stringify({
          type: "dialog_submission",
          callback_id: "handraise",
          state,
          user_id: "u1",
          channel_id: "c1",
          submission: { deploy_target: "Production", "deploy_target:other": "" },
        }),
      );
    expect(read(json, submission(signDialogState(KEY, opened)))).toMatchObject({
      kind: "dialog",
      state: opened,
      answers: { deploy_target: ["Production"] },
    });
    expect(read(json, submission(JSON.stringify(signControl(KEY, other))))).toBeUndefined();
  });

  it("a slash command needs the token, from the header or the form; a wrong one does not verify", () => {
    const body = (token: string) =>
      Buffer.from(`token=${token}&user_id=u1&channel_id=c1&command=%2Fhandraise&text=cancel&trigger_id=t`);
    expect(read(form, body("cmdtoken1234567890abcdefgh"))).toMatchObject({ kind: "command", text: "cancel" });
    expect(read({ ...form, authorization: "Token cmdtoken1234567890abcdefgh" }, body(""))?.kind).toBe(
      "command",
    );
    expect(read(form, body("wrong"))).toBeUndefined();
    expect(
      read({ ...form, authorization: "Token wrong" }, body("cmdtoken1234567890abcdefgh")),
    ).toBeUndefined();
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
    expect(read(json, Buffer.from(JSON.stringify(hook("hooktoken234567890abcdefgh"))))).toEqual({
      kind: "message",
      userId: "u1",
      channelId: "c1",
      postId: "p1",
      triggerWord: "answer",
    });
    // The text is the post's, read back from the API; the trigger word is not part of the answer.
    expect(postText("answer Production", "answer")).toBe(" Production");
    expect(postText("Production", "")).toBe("Production");
    const formBody = Buffer.from(new URLSearchParams(hook("hooktoken234567890abcdefgh")).toString());
    expect(read(form, formBody)?.kind).toBe("message");
    expect(read(json, Buffer.from(JSON.stringify(hook("nope"))))).toBeUndefined();
    // Without outgoing tokens, no message verifies.
    expect(read(form, formBody, { ...verification, outgoingTokens: [] })).toBeUndefined();
  });

  it("a token proves its own kind only: a command token is no outgoing webhook's, nor the reverse", () => {
    const command = (token: string) =>
      Buffer.from(`token=${token}&user_id=u1&channel_id=c1&command=%2Fhandraise&text=cancel&trigger_id=t`);
    const message = (token: string) => ({ token, channel_id: "c1", user_id: "u1", post_id: "p1", text: "2" });
    // The outgoing webhook's token, as a command: in the form, in the header, or both.
    expect(read(form, command("hooktoken234567890abcdefgh"))).toBeUndefined();
    expect(read({ ...form, authorization: "Token hooktoken234567890abcdefgh" }, command(""))).toBeUndefined();
    // The command's token, as an outgoing webhook's message: form or JSON.
    const asForm = Buffer.from(new URLSearchParams(message("cmdtoken1234567890abcdefgh")).toString());
    expect(read(form, asForm)).toBeUndefined();
    expect(read(json, Buffer.from(JSON.stringify(message("cmdtoken1234567890abcdefgh"))))).toBeUndefined();
  });

  it("a body that is neither does not verify; a verified body of the wrong shape is 400", () => {
    expect(read(json, Buffer.from("{not json"))).toBeUndefined();
    expect(read(json, Buffer.from("{}"))).toBeUndefined();
    const signedButBroken = Buffer.from(JSON.stringify({ context: { control: CONTROL, sig: EXPECTED_SIG } }));
    expect(() => read(json, signedButBroken)).toThrow(expect.objectContaining({ statusCode: 400 }));
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
