import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "#lib/config.ts";
import { isPlaceholder, secretProblem } from "#lib/secrets/secret-catalog.ts";

const TABLE = { HANDRAISE_TABLE: "t" };
const TELEGRAM = { TELEGRAM_BOT_TOKEN: "123456:AAH-test_token", TELEGRAM_WEBHOOK_SECRET: "tg_Secret-123" };
const SLACK = { SLACK_BOT_TOKEN: "xoxb-1-2-abc", SLACK_SIGNING_SECRET: "0123456789abcdef0123456789abcdef" };
const DISCORD = {
  DISCORD_BOT_TOKEN: "MTA5.test-bot-token",
  DISCORD_APPLICATION_ID: "111111111111111111",
  DISCORD_PUBLIC_KEY: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
};
const MATTERMOST = {
  MATTERMOST_URL: "https://chat.example.com",
  MATTERMOST_BOT_TOKEN: "mmbottoken0123456789abcdef",
  MATTERMOST_ACTION_SECRET: "0123456789abcdef",
  MATTERMOST_COMMAND_TOKEN: "cmdtoken1234567890abcdefgh",
  HANDRAISE_PUBLIC_URL: "https://api.example.com",
};

/** The ConfigError's message for this environment (fails the test when it loads). */
function problemsOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("loadConfig accepted it");
}

describe("loadConfig", () => {
  it("applies the defaults: no channel on, secrets from the environment", () => {
    const config = loadConfig(TABLE);
    expect(config).toMatchObject({
      tableName: "t",
      limits: { minTimeoutSeconds: 30, maxTimeoutSeconds: 3600 },
      consoleChannel: false,
      channels: {},
      secrets: { kind: "env", values: {} },
    });
    expect([...config.enabledChannels]).toEqual([]);
  });

  it("treats empty strings as unset", () => {
    expect(loadConfig({ ...TABLE, HANDRAISE_API_KEY: "", TELEGRAM_BOT_TOKEN: "" }).secrets).toEqual({
      kind: "env",
      values: {},
    });
  });

  it("refuses a missing table, a short API key, and a ceiling above one year, naming each variable", () => {
    expect(problemsOf({})).toMatch(/HANDRAISE_TABLE/);
    expect(problemsOf({ ...TABLE, HANDRAISE_API_KEY: "short" })).toMatch(/HANDRAISE_API_KEY/);
    expect(problemsOf({ ...TABLE, HANDRAISE_MAX_TIMEOUT_SECONDS: "31536001" })).toMatch(
      /HANDRAISE_MAX_TIMEOUT_SECONDS.*one year/,
    );
  });

  it("accepts a ceiling of exactly one year and refuses min above max", () => {
    expect(loadConfig({ ...TABLE, HANDRAISE_MAX_TIMEOUT_SECONDS: "31536000" }).limits.maxTimeoutSeconds).toBe(
      31_536_000,
    );
    expect(
      problemsOf({ ...TABLE, HANDRAISE_MIN_TIMEOUT_SECONDS: "100", HANDRAISE_MAX_TIMEOUT_SECONDS: "50" }),
    ).toMatch(/HANDRAISE_MIN_TIMEOUT_SECONDS/);
  });

  it("reads the default reminders, in order without repeats; refuses a malformed list", () => {
    expect(loadConfig(TABLE).remindAfterSeconds).toEqual([]);
    expect(
      loadConfig({ ...TABLE, HANDRAISE_REMIND_AFTER_SECONDS: "1800, 600,600" }).remindAfterSeconds,
    ).toEqual([600, 1800]);
    expect(problemsOf({ ...TABLE, HANDRAISE_REMIND_AFTER_SECONDS: "10m" })).toMatch(
      /HANDRAISE_REMIND_AFTER_SECONDS must be whole seconds/,
    );
    expect(problemsOf({ ...TABLE, HANDRAISE_REMIND_AFTER_SECONDS: "0" })).toMatch(/at least 1 second/);
    expect(problemsOf({ ...TABLE, HANDRAISE_REMIND_AFTER_SECONDS: "1,2,3,4,5,6" })).toMatch(/at most 5/);
  });

  it("turns the question timers on with all four settings, off with none, and refuses a part", () => {
    const timers = {
      HANDRAISE_SCHEDULE_GROUP: "handraise-prod",
      HANDRAISE_TIMER_FUNCTION_ARN:
        "arn:aws:lambda:us-east-1:123456789012:function:handraise-prod-questionTimer",
      HANDRAISE_TIMER_ROLE_ARN:
        "arn:aws:iam::123456789012:role/handraise-prod-QuestionTimerSchedulerRole-1AB",
      HANDRAISE_TIMER_DEAD_LETTER_ARN:
        "arn:aws:sqs:us-east-1:123456789012:handraise-prod-QuestionTimerDeadLetterQueue-1AB",
    };
    expect(loadConfig(TABLE).timers).toBeUndefined();
    expect(loadConfig({ ...TABLE, ...timers }).timers).toEqual({
      group: "handraise-prod",
      targetArn: timers.HANDRAISE_TIMER_FUNCTION_ARN,
      roleArn: timers.HANDRAISE_TIMER_ROLE_ARN,
      deadLetterArn: timers.HANDRAISE_TIMER_DEAD_LETTER_ARN,
    });
    expect(problemsOf({ ...TABLE, HANDRAISE_SCHEDULE_GROUP: "handraise-prod" })).toMatch(
      /HANDRAISE_TIMER_FUNCTION_ARN, HANDRAISE_TIMER_ROLE_ARN, HANDRAISE_TIMER_DEAD_LETTER_ARN are required/,
    );
    // No timer without a dead-letter queue: what Scheduler cannot deliver must be kept.
    const { HANDRAISE_TIMER_DEAD_LETTER_ARN: _, ...withoutQueue } = timers;
    expect(problemsOf({ ...TABLE, ...withoutQueue })).toMatch(
      /HANDRAISE_TIMER_DEAD_LETTER_ARN is required: question timers need all four/,
    );
    expect(problemsOf({ ...TABLE, ...timers, HANDRAISE_TIMER_ROLE_ARN: "role" })).toMatch(
      /HANDRAISE_TIMER_ROLE_ARN must be an IAM role ARN/,
    );
    expect(problemsOf({ ...TABLE, ...timers, HANDRAISE_TIMER_DEAD_LETTER_ARN: "queue" })).toMatch(
      /HANDRAISE_TIMER_DEAD_LETTER_ARN must be an SQS queue ARN/,
    );
  });

  it("refuses a non-URL API base", () => {
    expect(problemsOf({ ...TABLE, TELEGRAM_API_BASE: "not a url" })).toMatch(/TELEGRAM_API_BASE/);
  });

  it("reads the MCP server's default context, and refuses one that breaks the context's rules", () => {
    expect(loadConfig({ ...TABLE, HANDRAISE_MCP_CONTEXT: "The release agent" }).mcp.context).toBe(
      "The release agent",
    );
    expect(problemsOf({ ...TABLE, HANDRAISE_MCP_CONTEXT: "x".repeat(501) })).toMatch(
      /HANDRAISE_MCP_CONTEXT: context must be at most 500 characters/,
    );
  });
});

describe("channels are all-or-nothing", () => {
  it("turns a channel on by its bot token, with every setting it needs", () => {
    const config = loadConfig({ ...TABLE, ...TELEGRAM, ...SLACK, ...DISCORD, ...MATTERMOST });
    expect([...config.enabledChannels].sort()).toEqual(["discord", "mattermost", "slack", "telegram"]);
    expect(config.channels.mattermost).toEqual({
      url: "https://chat.example.com",
      publicUrl: "https://api.example.com",
    });
    expect(config.secrets).toMatchObject({
      kind: "env",
      values: {
        "telegram/bot-token": TELEGRAM.TELEGRAM_BOT_TOKEN,
        "slack/signing-secret": SLACK.SLACK_SIGNING_SECRET,
      },
    });
  });

  it("refuses a channel that is on with a setting missing, naming every missing one", () => {
    const message = problemsOf({
      ...TABLE,
      TELEGRAM_BOT_TOKEN: TELEGRAM.TELEGRAM_BOT_TOKEN,
      MATTERMOST_BOT_TOKEN: "mmbot",
    });
    expect(message).toMatch(/TELEGRAM_WEBHOOK_SECRET is required: the telegram channel is on/);
    for (const name of [
      "MATTERMOST_URL",
      "MATTERMOST_ACTION_SECRET",
      "MATTERMOST_COMMAND_TOKEN",
      "HANDRAISE_PUBLIC_URL",
    ]) {
      expect(message).toContain(`${name} is required: the mattermost channel is on`);
    }
    // Optional: without it, no typed message is read.
    expect(message).not.toContain("MATTERMOST_OUTGOING_TOKEN");
  });

  it("keeps Mattermost's outgoing-webhook tokens apart from the command token, and needs none", () => {
    const without = loadConfig({ ...TABLE, ...MATTERMOST });
    expect([...without.enabledChannels]).toEqual(["mattermost"]);
    expect(without.secrets).toMatchObject({ kind: "env" });
    const values = without.secrets.kind === "env" ? without.secrets.values : {};
    expect(values["mattermost/command-token"]).toBe(MATTERMOST.MATTERMOST_COMMAND_TOKEN);
    expect(values["mattermost/outgoing-token"]).toBeUndefined();
    const withHooks = loadConfig({
      ...TABLE,
      ...MATTERMOST,
      MATTERMOST_OUTGOING_TOKEN: "hooktoken234567890abcdefgh, hooktoken2nd567890abcdefgh",
    });
    expect(withHooks.secrets.kind === "env" && withHooks.secrets.values).toMatchObject({
      "mattermost/command-token": MATTERMOST.MATTERMOST_COMMAND_TOKEN,
      "mattermost/outgoing-token": "hooktoken234567890abcdefgh, hooktoken2nd567890abcdefgh",
    });
  });

  it("turns Teams on with its app password, and then needs its app id and tenant", () => {
    const message = problemsOf({ ...TABLE, TEAMS_APP_PASSWORD: "teams-app-password~01" });
    expect(message).toContain("TEAMS_APP_ID is required: the teams channel is on");
    expect(message).toContain("TEAMS_TENANT_ID is required: the teams channel is on");
    expect(problemsOf({ ...TABLE, HANDRAISE_CHANNELS: "teams" })).toMatch(/TEAMS_APP_PASSWORD is required/);
    expect(problemsOf({ ...TABLE, TEAMS_APP_ID: "not-a-guid" })).toMatch(
      /TEAMS_APP_ID must be a Microsoft App ID/,
    );
    const config = loadConfig({
      ...TABLE,
      TEAMS_APP_PASSWORD: "teams-app-password~01",
      TEAMS_APP_ID: "7d3b1a2c-0f4e-4b6a-9c8d-112233445566",
      TEAMS_TENANT_ID: "contoso.onmicrosoft.com",
    });
    expect(config.channels.teams).toEqual({
      appId: "7d3b1a2c-0f4e-4b6a-9c8d-112233445566",
      tenantId: "contoso.onmicrosoft.com",
      apiBase: "https://smba.trafficmanager.net/teams/",
      loginBase: "https://login.microsoftonline.com",
      openIdMetadataUrl: "https://login.botframework.com/v1/.well-known/openidconfiguration",
    });
  });

  it("takes Teams endpoints (they get the app token, or vouch for tokens) over https, http only on loopback", () => {
    // A bad app id keeps every case failing, so each message lists whatever else is wrong.
    const env = { ...TABLE, TEAMS_APP_ID: "not-a-guid" };
    for (const name of ["TEAMS_API_BASE", "TEAMS_LOGIN_BASE", "TEAMS_OPENID_METADATA_URL"]) {
      expect(problemsOf({ ...env, [name]: "http://login.example/" })).toContain(
        `${name} must be an https URL (http only on localhost / 127.0.0.1 / [::1])`,
      );
      expect(problemsOf({ ...env, [name]: "http://127.0.0.1:8080/x" })).not.toContain(name);
      expect(problemsOf({ ...env, [name]: "https://login.example/" })).not.toContain(name);
    }
  });

  it.each([
    ["TELEGRAM_WEBHOOK_SECRET", "unset", TELEGRAM],
    ["TELEGRAM_WEBHOOK_SECRET", "NONE", TELEGRAM],
    ["TELEGRAM_BOT_TOKEN", "changeme", TELEGRAM],
    ["SLACK_SIGNING_SECRET", "unset", SLACK],
    ["SLACK_SIGNING_SECRET", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", SLACK],
    ["SLACK_BOT_TOKEN", "TODO", SLACK],
    ["DISCORD_BOT_TOKEN", "placeholder", DISCORD],
    ["MATTERMOST_ACTION_SECRET", "----------------", MATTERMOST],
    ["MATTERMOST_COMMAND_TOKEN", "tbd", MATTERMOST],
    ["MATTERMOST_OUTGOING_TOKEN", "unset", MATTERMOST],
  ])("refuses %s=%s as a placeholder, naming the variable", (name, value, channel) => {
    expect(problemsOf({ ...TABLE, ...channel, [name]: value })).toContain(`${name} is a placeholder`);
  });

  it.each([
    ["TELEGRAM_WEBHOOK_SECRET", "has spaces in it", TELEGRAM, /1-256 of A-Z a-z 0-9 _ -/],
    ["TELEGRAM_WEBHOOK_SECRET", "a".repeat(257), TELEGRAM, /1-256/],
    ["TELEGRAM_BOT_TOKEN", "no-colon-here", TELEGRAM, /<bot id>:<secret>/],
    ["SLACK_SIGNING_SECRET", "test-signing-secret-5d41402abc4b2a76", SLACK, /32 hexadecimal/],
    ["DISCORD_PUBLIC_KEY", "abc", DISCORD, /64 hexadecimal/],
    ["DISCORD_APPLICATION_ID", "app-1", DISCORD, /digits/],
    ["MATTERMOST_URL", "chat.example.com", MATTERMOST, /http\(s\) URL/],
    ["MATTERMOST_COMMAND_TOKEN", "cmd token", MATTERMOST, /Mattermost tokens/],
    ["MATTERMOST_OUTGOING_TOKEN", "hook;token", MATTERMOST, /Mattermost tokens/],
  ])("refuses a malformed %s", (name, value, channel, rule) => {
    const message = problemsOf({ ...TABLE, ...channel, [name]: value });
    expect(message).toContain(name);
    expect(message).toMatch(rule);
  });

  it("HANDRAISE_CHANNELS decides which channels are on; a listed one without settings is refused", () => {
    const config = loadConfig({ ...TABLE, ...TELEGRAM, ...SLACK, HANDRAISE_CHANNELS: "slack" });
    expect([...config.enabledChannels]).toEqual(["slack"]);
    expect(config.channels).toEqual({ slack: { apiBase: "https://slack.com/api" } });
    expect(problemsOf({ ...TABLE, HANDRAISE_CHANNELS: "discord" })).toMatch(/DISCORD_BOT_TOKEN is required/);
    expect(problemsOf({ ...TABLE, HANDRAISE_CHANNELS: "telegram,carrier-pigeon" })).toMatch(
      /unknown channel "carrier-pigeon"/,
    );
  });

  it("with HANDRAISE_SSM_PREFIX, reads secrets from SSM and refuses any in the environment", () => {
    const config = loadConfig({
      ...TABLE,
      HANDRAISE_SSM_PREFIX: "/handraise/prod",
      HANDRAISE_CHANNELS: "telegram",
    });
    expect(config.secrets).toEqual({ kind: "ssm", prefix: "/handraise/prod", maxAgeSeconds: 300 });
    expect([...config.enabledChannels]).toEqual(["telegram"]);
    const message = problemsOf({ ...TABLE, HANDRAISE_SSM_PREFIX: "/handraise/prod", ...TELEGRAM });
    expect(message).toContain("TELEGRAM_BOT_TOKEN must not be set");
    expect(message).toContain("TELEGRAM_WEBHOOK_SECRET must not be set");
    // Without a list, an SSM deployment enables nothing.
    expect([...loadConfig({ ...TABLE, HANDRAISE_SSM_PREFIX: "/handraise/prod" }).enabledChannels]).toEqual(
      [],
    );
  });

  it("never shows a real secret's value in a problem, only a placeholder's", () => {
    const message = problemsOf({
      ...TABLE,
      ...SLACK,
      SLACK_SIGNING_SECRET: "not-hex-but-secret-value-1234567",
    });
    expect(message).not.toContain("not-hex-but-secret-value-1234567");
    // Refused as looking like a placeholder, yet possibly real: named, not shown.
    const xxx = problemsOf({ ...TABLE, ...TELEGRAM, TELEGRAM_WEBHOOK_SECRET: "xxxReal_Secret-value" });
    expect(xxx).toContain("TELEGRAM_WEBHOOK_SECRET is a placeholder");
    expect(xxx).not.toContain("xxxReal_Secret-value");
  });
});

describe("placeholders", () => {
  it.each([
    "unset",
    "UNSET",
    " none ",
    "null",
    "changeme",
    "Change-Me",
    "todo",
    "TBD",
    "placeholder",
    "xxx",
    "XXXXXXXX",
    "xxx-yyy",
    "---",
    "<your token>",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: an unresolved template variable is the case under test
    "${TOKEN}",
  ])("%j is a placeholder", (value) => expect(isPlaceholder(value)).toBe(true));
  it.each(["tg_Secret-123", "0123456789abcdef0123456789abcdef", "nonexistent", "todos-app-key", "untested"])(
    "%j is not",
    (value) => expect(isPlaceholder(value)).toBe(false),
  );
  it("a placeholder is refused for every secret, whatever its format", () => {
    expect(secretProblem("api-key", "changeme-changeme")).toBeUndefined();
    expect(secretProblem("api-key", "CHANGEME")).toMatch(/placeholder/);
    expect(secretProblem("discord/bot-token", "xxx")).toMatch(/placeholder/);
  });
});

describe("named API keys (HANDRAISE_API_KEYS)", () => {
  const ASK = "ask-key-0123456789abcdef";
  const ANSWER = "answer-key-0123456789abcdef";

  it("reads comma-separated <name>:<scope>:<key>, by name as <scope>:<key>", () => {
    const config = loadConfig({
      ...TABLE,
      HANDRAISE_API_KEY: "admin-key-0123456789abcdef",
      HANDRAISE_API_KEYS: ` ci-agent:ask:${ASK} , ops_bot:answer:${ANSWER},`,
    });
    expect(config.secrets).toMatchObject({
      kind: "env",
      values: { "api-key": "admin-key-0123456789abcdef" },
      apiKeys: { "ci-agent": `ask:${ASK}`, ops_bot: `answer:${ANSWER}` },
    });
  });

  it("keeps everything after the second colon as the key", () => {
    const config = loadConfig({ ...TABLE, HANDRAISE_API_KEYS: "a:admin:with:colons-0123456789" });
    expect(config.secrets).toMatchObject({ apiKeys: { a: "admin:with:colons-0123456789" } });
  });

  it("refuses a malformed entry, a bad name or scope, a short or placeholder key — by position, never the key", () => {
    const message = problemsOf({
      ...TABLE,
      HANDRAISE_API_KEYS: [
        "no-scope-here",
        `Bad.Name:ask:${ASK}`,
        `agent:owner:${ANSWER}`,
        "short:ask:tooshort",
        "lazy:ask:changeme",
      ].join(","),
    });
    expect(message).toContain("HANDRAISE_API_KEYS entry 1 must be <name>:<scope>:<key>");
    expect(message).toContain("HANDRAISE_API_KEYS entry 2 is not a key name");
    expect(message).toContain(
      "HANDRAISE_API_KEYS entry 3 must be <scope>:<key>, the scope one of ask, answer, admin",
    );
    expect(message).toContain("HANDRAISE_API_KEYS entry 4 holds a key that must be at least 16 characters");
    expect(message).toContain('HANDRAISE_API_KEYS entry 5 holds a key that is a placeholder ("changeme")');
    for (const key of [ASK, ANSWER, "tooshort"]) expect(message).not.toContain(key);
  });

  it("refuses the name default (HANDRAISE_API_KEY's), a repeated name, and a key used twice", () => {
    const message = problemsOf({
      ...TABLE,
      HANDRAISE_API_KEY: ANSWER,
      HANDRAISE_API_KEYS: `default:ask:${ASK},a:ask:${ASK}1,a:answer:${ASK}2,b:ask:${ANSWER}`,
    });
    expect(message).toContain(
      'HANDRAISE_API_KEYS entry 1 is named "default", which is HANDRAISE_API_KEY\'s name',
    );
    expect(message).toContain('HANDRAISE_API_KEYS entry 3 repeats the name "a"');
    expect(message).toContain('HANDRAISE_API_KEYS entry 4 ("b") has the same key as another');
    expect(message).not.toContain(ANSWER);
  });

  it("must not be set with HANDRAISE_SSM_PREFIX (deployed, the keys are SSM parameters)", () => {
    expect(
      problemsOf({ ...TABLE, HANDRAISE_SSM_PREFIX: "/handraise/prod", HANDRAISE_API_KEYS: `a:ask:${ASK}` }),
    ).toContain("HANDRAISE_API_KEYS must not be set");
  });
});
