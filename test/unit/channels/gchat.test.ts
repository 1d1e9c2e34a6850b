/**
 * Google Chat's pure parts: the service account key's format check (the manifest's pattern, which every
 * secret reader applies, and the field-by-field check where the key is used, agree), the escaping of what
 * is shown, and which events are said to the app.
 */
import { describe, expect, it } from "vitest";
import { parseServiceAccountKey } from "#lib/channels/gchat/gchat-api.ts";
import { eventToInbound, type GchatEvent } from "#lib/channels/gchat/gchat-event.ts";
import { escapeCardText, escapeMessageText } from "#lib/channels/gchat/gchat-render.ts";
import { serviceAccountKeyProblem } from "#lib/channels/gchat/gchat-token.ts";
import { loadConfig } from "#lib/config.ts";
import { ConfigError } from "#lib/config-error.ts";
import { secretProblem } from "#lib/secrets/secret-catalog.ts";

const PEM = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n";
const key = (fields: Record<string, unknown> = {}) => ({
  type: "service_account",
  project_id: "handraise-test",
  private_key_id: "0123456789abcdef",
  private_key: PEM,
  client_email: "handraise@handraise-test.iam.gserviceaccount.com",
  ...fields,
});

describe("the service account key's format", () => {
  it.each([
    ["as the console downloads it (indented, one field a line)", JSON.stringify(key(), null, 2)],
    ["on one line", JSON.stringify(key())],
  ])("is accepted %s, by both checks", (_, text) => {
    expect(secretProblem("gchat/service-account", text)).toBeUndefined();
    expect(serviceAccountKeyProblem(text)).toBeUndefined();
  });

  it.each([
    ["not JSON", "not-a-key"],
    ["another kind of credential", JSON.stringify(key({ type: "authorized_user" }))],
    ["no client_email", JSON.stringify(key({ client_email: undefined }))],
    ["no PKCS#8 private key", JSON.stringify(key({ private_key: "-----BEGIN RSA PRIVATE KEY-----" }))],
  ])("is refused when %s, by both checks, naming the rule and never the key", (_, text) => {
    const problem = secretProblem("gchat/service-account", text);
    expect(problem).toMatch(/^must be the service account's JSON key/);
    expect(serviceAccountKeyProblem(text)).toBeDefined();
    expect(() => parseServiceAccountKey(text)).toThrow(ConfigError);
    expect(() => parseServiceAccountKey(text)).toThrow(/^GOOGLE_CHAT_SERVICE_ACCOUNT /);
    try {
      parseServiceAccountKey(text);
    } catch (error) {
      expect(String(error)).not.toContain("MIIE");
    }
  });
});

describe("what Google Chat shows", () => {
  it("card text is Chat's HTML subset: what the question says shows literally", () => {
    expect(escapeCardText('<a href="x">go</a> & <b>\nnext')).toBe(
      '&lt;a href="x"&gt;go&lt;/a&gt; &amp; &lt;b&gt;<br>next',
    );
  });

  it("a plain message cannot mention everyone or make a link out of what a person wrote", () => {
    const shown = escapeMessageText("ping <users/all> and <https://evil.example|your bank>");
    expect(shown).not.toContain("<users/all>");
    expect(shown).not.toContain("<https://");
    expect(shown.replaceAll("\u200b", "")).toBe("ping <users/all> and <https://evil.example|your bank>");
  });
});

describe("which events are said to the app", () => {
  const event = (fields: Partial<GchatEvent>): GchatEvent => ({
    type: "MESSAGE",
    space: { name: "spaces/AAAA", spaceType: "SPACE" },
    user: { name: "users/42", type: "HUMAN" },
    message: { name: "spaces/AAAA/messages/m1", text: "2" },
    ...fields,
  });

  it("in a shared space only a mention of the app or a slash command addresses it", () => {
    const plain = eventToInbound(event({}))?.inbound;
    expect(plain).toMatchObject({
      kind: "text",
      addressed: false,
      actor: "gchat:users/42",
      chatId: "spaces/AAAA",
    });
    const mentioned = eventToInbound(
      event({
        message: {
          name: "spaces/AAAA/messages/m2",
          text: "@Handraise 2",
          argumentText: " 2",
          annotations: [{ type: "USER_MENTION", userMention: { user: { name: "users/app", type: "BOT" } } }],
        },
      }),
    )?.inbound;
    expect(mentioned).toMatchObject({ kind: "text", text: "2", addressed: true });
  });

  it("in the app's direct message everything addresses it; in a DM with another person, only a mention", () => {
    const direct = eventToInbound(
      event({ space: { name: "spaces/DDDD", spaceType: "DIRECT_MESSAGE", singleUserBotDm: true } }),
    );
    expect(direct?.inbound).toMatchObject({ kind: "text", addressed: true });
    const withSomeoneElse = eventToInbound(
      event({ space: { name: "spaces/DDDD", spaceType: "DIRECT_MESSAGE", singleUserBotDm: false } }),
    );
    expect(withSomeoneElse?.inbound).toMatchObject({ kind: "text", addressed: false });
  });

  it("nothing from another app, from a name that is no user, or outside a space is an answer", () => {
    expect(eventToInbound(event({ user: { name: "users/42", type: "BOT" } }))).toBeUndefined();
    expect(eventToInbound(event({ user: { name: "users/app@example.com", type: "HUMAN" } }))).toBeUndefined();
    expect(eventToInbound(event({ space: { name: "spaces/../x" } }))).toBeUndefined();
    expect(
      eventToInbound(event({ type: "CARD_CLICKED", common: { parameters: { control: "not a control" } } })),
    ).toBeUndefined();
  });
});

describe("Google Chat's settings", () => {
  const problemsOf = (env: Record<string, string>) => {
    try {
      loadConfig({ HANDRAISE_TABLE: "t", ...env });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error("loadConfig accepted it");
  };
  const KEY = JSON.stringify(key(), null, 2);

  it("are on with the service account's key, and then need the project number; the rest default", () => {
    expect(problemsOf({ GOOGLE_CHAT_SERVICE_ACCOUNT: KEY })).toContain(
      "GOOGLE_CHAT_PROJECT_NUMBER is required: the gchat channel is on",
    );
    expect(problemsOf({ HANDRAISE_CHANNELS: "gchat", GOOGLE_CHAT_PROJECT_NUMBER: "1234" })).toMatch(
      /GOOGLE_CHAT_SERVICE_ACCOUNT is required/,
    );
    expect(problemsOf({ GOOGLE_CHAT_SERVICE_ACCOUNT: '{"type": "authorized_user"}' })).toMatch(
      /GOOGLE_CHAT_SERVICE_ACCOUNT must be the service account's JSON key/,
    );
    expect(
      problemsOf({ GOOGLE_CHAT_SERVICE_ACCOUNT: KEY, GOOGLE_CHAT_PROJECT_NUMBER: "my-project" }),
    ).toMatch(/GOOGLE_CHAT_PROJECT_NUMBER must be a project number/);
    const config = loadConfig({
      HANDRAISE_TABLE: "t",
      GOOGLE_CHAT_SERVICE_ACCOUNT: KEY,
      GOOGLE_CHAT_PROJECT_NUMBER: "123456789012",
    });
    expect(config.channels.gchat).toEqual({
      projectNumber: "123456789012",
      apiBase: "https://chat.googleapis.com",
      certsUrl:
        "https://www.googleapis.com/service_accounts/v1/metadata/x509/chat@system.gserviceaccount.com",
      tokenUrl: "https://oauth2.googleapis.com/token",
    });
  });

  it("take endpoints (sent the token, or vouching for Chat's) over https, http only on loopback", () => {
    const env = { GOOGLE_CHAT_SERVICE_ACCOUNT: KEY, GOOGLE_CHAT_PROJECT_NUMBER: "not digits" };
    for (const name of ["GOOGLE_CHAT_API_BASE", "GOOGLE_CHAT_CERTS_URL", "GOOGLE_OAUTH_TOKEN_URL"]) {
      expect(problemsOf({ ...env, [name]: "http://chat.example/" })).toContain(
        `${name} must be an https URL (http only on localhost / 127.0.0.1 / [::1])`,
      );
      expect(problemsOf({ ...env, [name]: "http://127.0.0.1:8080/x" })).not.toContain(name);
    }
  });
});
