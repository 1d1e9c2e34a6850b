/**
 * `npm run doctor` against the local stack with all six channels on, each platform a local fake, the
 * credentials read from the environment as `npm run local` reads them: every check passes on a healthy
 * stack, and each ✗ names its fix — a wrong key, a webhook registered elsewhere, a missing secret, a platform
 * refusing its token, the end-to-end question answered or timed out. Most runs call the script's function
 * with its streams; one runs `npm run -s doctor` as a process.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportPKCS8, generateKeyPair } from "jose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "#infra/local/stack.ts";
import { type DoctorIo, runDoctor } from "../../scripts/lib/doctor.ts";
import vectors from "../fixtures/signature-vectors.json" with { type: "json" };
import {
  type FakePlatform,
  type FakeReply,
  type RecordedCall,
  startFakePlatform,
} from "./support/fake-platform.ts";
import { allItems, startTestStack, TEST_API_KEY, type TestStack, waitFor } from "./support/test-stack.ts";

const PUBLIC_URL = "https://handraise.example.com";
const TELEGRAM_TOKEN = "4242:doctor-bot-token";
const SLACK_TOKEN = "xoxb-doctor-token";
const DISCORD_TOKEN = "discord-doctor-token";
const DISCORD_APP = "110011";
const DISCORD_KEY = vectors.discord_generated.public_key;
const MATTERMOST_TOKEN = "mattermostbottoken1";
const TEAMS_APP = "00000000-0000-4000-8000-0000000000d0";
const TEAMS_TENANT = "contoso.onmicrosoft.com";
const TEAMS_PASSWORD = "teams-doctor-password";
const AGENT_KEY = "doctor-agent-key-0123456789";
const GCHAT_ACCOUNT = "handraise@doctor-project.iam.gserviceaccount.com";

let platform: FakePlatform;
let stack: TestStack;
/** The channels' settings and secrets: the stack's environment, and the doctor's. */
let channelEnv: Record<string, string>;
/** Per test: a platform answer other than the healthy one (undefined: as the healthy default). */
let override: ((call: RecordedCall) => FakeReply | undefined) | undefined;

/** A healthy platform of each kind, told apart by the path prefix each `*_API_BASE` gives it. */
function healthy(call: RecordedCall): FakeReply {
  const { path, method } = call;
  if (path.startsWith("/telegram/")) {
    if (method === "getWebhookInfo") {
      return {
        body: { ok: true, result: { url: `${PUBLIC_URL}/webhooks/telegram`, pending_update_count: 0 } },
      };
    }
    if (method === "sendMessage") {
      return {
        body: { ok: true, result: { message_id: 11, chat: { id: call.body.chat_id, type: "private" } } },
      };
    }
    return { body: { ok: true, result: true } };
  }
  if (path.startsWith("/slack/")) {
    if (method === "auth.test") {
      return { body: { ok: true, user: "handraise", team: "Acme", team_id: "T0DOCTOR", user_id: "U0BOT" } };
    }
    return { body: { ok: true } };
  }
  if (path === "/discord/applications/@me") {
    return {
      body: {
        id: DISCORD_APP,
        name: "Handraise",
        verify_key: DISCORD_KEY,
        interactions_endpoint_url: `${PUBLIC_URL}/webhooks/discord`,
      },
    };
  }
  if (path === "/mattermost/api/v4/users/me") return { body: { id: "bot0user", username: "handraise-bot" } };
  if (path === "/google/token") {
    return { body: { access_token: "chat-token", expires_in: 3599, token_type: "Bearer" } };
  }
  if (path === `/login/${TEAMS_TENANT}/oauth2/v2.0/token`) {
    return { body: { access_token: "app-token", expires_in: 3599, token_type: "Bearer" } };
  }
  return { status: 404, body: { message: `no fake for ${call.verb} ${path}` } };
}

beforeAll(async () => {
  platform = await startFakePlatform((call) => override?.(call) ?? healthy(call));
  channelEnv = {
    HANDRAISE_PUBLIC_URL: PUBLIC_URL,
    TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN,
    TELEGRAM_WEBHOOK_SECRET: "doctor_webhook_secret",
    TELEGRAM_API_BASE: `${platform.url}/telegram`,
    SLACK_BOT_TOKEN: SLACK_TOKEN,
    SLACK_SIGNING_SECRET: "0123456789abcdef0123456789abcdef",
    SLACK_API_BASE: `${platform.url}/slack`,
    DISCORD_BOT_TOKEN: DISCORD_TOKEN,
    DISCORD_APPLICATION_ID: DISCORD_APP,
    DISCORD_PUBLIC_KEY: DISCORD_KEY,
    DISCORD_API_BASE: `${platform.url}/discord`,
    MATTERMOST_URL: `${platform.url}/mattermost`,
    MATTERMOST_BOT_TOKEN: MATTERMOST_TOKEN,
    MATTERMOST_ACTION_SECRET: "doctor-action-secret-0123",
    MATTERMOST_COMMAND_TOKEN: "doctorcommandtoken1",
    TEAMS_APP_ID: TEAMS_APP,
    TEAMS_APP_PASSWORD: TEAMS_PASSWORD,
    TEAMS_TENANT_ID: TEAMS_TENANT,
    TEAMS_LOGIN_BASE: `${platform.url}/login`,
    TEAMS_API_BASE: `${platform.url}/teams/`,
    TEAMS_OPENID_METADATA_URL: `${platform.url}/openid`,
    GOOGLE_CHAT_SERVICE_ACCOUNT: JSON.stringify({
      type: "service_account",
      private_key: await exportPKCS8((await generateKeyPair("RS256", { extractable: true })).privateKey),
      client_email: GCHAT_ACCOUNT,
    }),
    GOOGLE_CHAT_PROJECT_NUMBER: "123456789012",
    GOOGLE_CHAT_API_BASE: `${platform.url}/gchat`,
    GOOGLE_CHAT_CERTS_URL: `${platform.url}/gchat-certs`,
    GOOGLE_OAUTH_TOKEN_URL: `${platform.url}/google/token`,
  };
  stack = await startTestStack({ ...channelEnv, HANDRAISE_API_KEYS: `agent:ask:${AGENT_KEY}` });
});
afterAll(async () => {
  await stack?.stop();
  await platform?.stop();
});
beforeEach(() => {
  override = undefined;
  platform.calls.length = 0;
});

/** The doctor's environment: the channels' as the stack has them, the stack's URL and key. */
const doctorEnv = (): Record<string, string> => ({
  ...channelEnv,
  HANDRAISE_URL: stack.httpUrl,
  HANDRAISE_API_KEY: TEST_API_KEY,
});

/** Runs the script's function with captured streams; `lines` are the check lines it printed. */
function doctor(argv: string[] = [], options: Partial<DoctorIo> & { env?: Record<string, string> } = {}) {
  let stdout = "";
  let stderr = "";
  const exit = runDoctor({
    argv,
    env: options.env ?? doctorEnv(),
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    ...(options.interrupt && { interrupt: options.interrupt }),
  });
  return {
    exit,
    lines: () => stdout.trim().split("\n"),
    failures: () =>
      stdout
        .trim()
        .split("\n")
        .filter((line) => line.startsWith("✗")),
    stderr: () => stderr,
  };
}

/** The one line that starts with `start`. */
function lineStarting(lines: string[], start: string): string {
  const found = lines.filter((line) => line.startsWith(start));
  expect(found, `one line starting "${start}" in:\n${lines.join("\n")}`).toHaveLength(1);
  return found[0] as string;
}

describe("npm run doctor, credentials from the environment", () => {
  it("a healthy stack: one ✓ line per check, each platform asked as its API documents, nothing stored, exit 0", async () => {
    const before = await allItems(stack);
    const run = doctor();
    expect(await run.exit, run.lines().join("\n")).toBe(0);
    expect(run.lines()).toEqual([
      `✓ the API at ${stack.httpUrl} answers`,
      `✓ the key is accepted: "default", scope admin: it may do anything (the operator's key: never give it to an agent)`,
      "✓ channels on: telegram, slack, discord, mattermost, teams, gchat; off: whatsapp",
      "✓ answer page on",
      "✓ telegram secrets in this environment: TELEGRAM_BOT_TOKEN, TELEGRAM_WEBHOOK_SECRET",
      `✓ telegram: the bot's webhook is ${PUBLIC_URL}/webhooks/telegram, with no delivery error`,
      "✓ slack secrets in this environment: SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET",
      "✓ slack: the bot token is @handraise's, in workspace Acme (T0DOCTOR)",
      "✓ discord secrets in this environment: DISCORD_BOT_TOKEN",
      `✓ discord: application Handraise (${DISCORD_APP}) sends its interactions to ${PUBLIC_URL}/webhooks/discord`,
      "✓ mattermost secrets in this environment: MATTERMOST_BOT_TOKEN, MATTERMOST_ACTION_SECRET, MATTERMOST_COMMAND_TOKEN",
      `✓ mattermost: the bot token is @handraise-bot's on ${platform.url}/mattermost`,
      "✓ teams secrets in this environment: TEAMS_APP_PASSWORD",
      `✓ teams: tenant ${TEAMS_TENANT} issues app ${TEAMS_APP} a token`,
      "✓ gchat secrets in this environment: GOOGLE_CHAT_SERVICE_ACCOUNT",
      `✓ gchat: Google issues ${GCHAT_ACCOUNT} a Chat token`,
    ]);

    const [webhookInfo] = platform.calls.filter((call) => call.method === "getWebhookInfo");
    expect(webhookInfo).toMatchObject({
      verb: "POST",
      path: `/telegram/bot${TELEGRAM_TOKEN}/getWebhookInfo`,
    });
    const [authTest] = platform.calls.filter((call) => call.method === "auth.test");
    expect(authTest).toMatchObject({ verb: "GET", headers: { authorization: `Bearer ${SLACK_TOKEN}` } });
    const [app] = platform.calls.filter((call) => call.path === "/discord/applications/@me");
    expect(app).toMatchObject({ verb: "GET", headers: { authorization: `Bot ${DISCORD_TOKEN}` } });
    const [me] = platform.calls.filter((call) => call.path === "/mattermost/api/v4/users/me");
    expect(me).toMatchObject({ verb: "GET", headers: { authorization: `Bearer ${MATTERMOST_TOKEN}` } });
    const [token] = platform.calls.filter((call) => call.path.startsWith("/login/"));
    expect(token).toMatchObject({
      verb: "POST",
      body: {
        grant_type: "client_credentials",
        client_id: TEAMS_APP,
        client_secret: TEAMS_PASSWORD,
        scope: "https://api.botframework.com/.default",
      },
    });
    // Google's token: the JWT-bearer grant with an assertion the service account signed.
    const [grant] = platform.calls.filter((call) => call.path === "/google/token");
    expect(grant).toMatchObject({
      verb: "POST",
      body: { grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer" },
    });
    // Reads only: no platform was asked to change anything, and the stack stored nothing.
    expect(platform.calls.map((call) => call.method).sort()).toEqual(
      ["getWebhookInfo", "auth.test", "@me", "me", "token", "token"].sort(),
    );
    expect(await allItems(stack)).toEqual(before);
  });

  it("a wrong key: ✗ naming where the stack's key is and how to make one; the other checks still run; exit 1", async () => {
    const run = doctor(["--key", "not-the-stack-key-000"]);
    expect(await run.exit).toBe(1);
    expect(run.failures()).toEqual([
      "✗ the API refused the key (401) — give the stack's key with --key or HANDRAISE_API_KEY (locally, the key npm run local prints; deployed, the /handraise/<stage>/api-key parameter, or a key of its own: npm run secrets:put -- --stage <stage> --api-key <name> --scope ask)",
    ]);
    expect(run.lines()).toContain(`✓ the API at ${stack.httpUrl} answers`);
    expect(run.lines()).toContain(
      "✓ channels on: telegram, slack, discord, mattermost, teams, gchat; off: whatsapp",
    );
  });

  it("an ask key: says what it may do — ask, and read its own questions — and that it may not answer", async () => {
    // Named from this environment's key list when it holds the key, as the stack names it.
    const named = doctor(["--key", AGENT_KEY], {
      env: { ...doctorEnv(), HANDRAISE_API_KEYS: `agent:ask:${AGENT_KEY}` },
    });
    expect(await named.exit, named.lines().join("\n")).toBe(0);
    expect(named.lines()[1]).toBe(
      `✓ the key is accepted: "agent", scope ask: it may ask, and read, wait for and cancel its own questions; it may not answer`,
    );
    // Otherwise from the API alone: it refuses the key an answer before reading anything.
    const unnamed = doctor(["--key", AGENT_KEY]);
    expect(await unnamed.exit).toBe(0);
    expect(unnamed.lines()[1]).toBe(
      "✓ the key is accepted, scope ask: it may ask, and read, wait for and cancel its own questions; it may not answer",
    );
  });

  it("Telegram's webhook elsewhere, missing, or failing: ✗ telegram:setup with the stack's URL", async () => {
    const setUp = `run npm run telegram:setup -- ${PUBLIC_URL}/webhooks/telegram (with TELEGRAM_BOT_TOKEN and TELEGRAM_WEBHOOK_SECRET as stored)`;
    const cases: [Record<string, unknown>, string][] = [
      [
        { url: "https://old.example.com/hook", pending_update_count: 3 },
        `✗ telegram: the bot's webhook is https://old.example.com/hook, not ${PUBLIC_URL}/webhooks/telegram — ${setUp}`,
      ],
      [{ url: "", pending_update_count: 0 }, `✗ telegram: the bot has no webhook — ${setUp}`],
      [
        {
          url: `${PUBLIC_URL}/webhooks/telegram`,
          pending_update_count: 5,
          last_error_date: 1_767_225_600,
          last_error_message: "Wrong response from the webhook: 401 Unauthorized",
        },
        `✗ telegram: Telegram's last delivery to ${PUBLIC_URL}/webhooks/telegram failed at 2026-01-01T00:00:00.000Z: Wrong response from the webhook: 401 Unauthorized — the stack refused Telegram's secret token: ${setUp}`,
      ],
    ];
    for (const [result, line] of cases) {
      override = (call) => (call.method === "getWebhookInfo" ? { body: { ok: true, result } } : undefined);
      const run = doctor();
      expect(await run.exit).toBe(1);
      expect(run.failures()).toEqual([line]);
    }
  });

  it("Discord's interactions endpoint elsewhere, or another application's key: ✗ with the value to set", async () => {
    override = (call) =>
      call.path === "/discord/applications/@me"
        ? {
            body: {
              id: DISCORD_APP,
              name: "Handraise",
              verify_key: DISCORD_KEY,
              interactions_endpoint_url: "https://old.example.com/interactions",
            },
          }
        : undefined;
    const elsewhere = doctor();
    expect(await elsewhere.exit).toBe(1);
    expect(elsewhere.failures()).toEqual([
      `✗ discord: application Handraise's interactions endpoint is https://old.example.com/interactions, not ${PUBLIC_URL}/webhooks/discord — set it to ${PUBLIC_URL}/webhooks/discord (Developer Portal → General Information → Interactions Endpoint URL; npm run discord:register -- ${PUBLIC_URL}/webhooks/discord prints it)`,
    ]);

    const otherKey = "ab".repeat(32);
    override = (call) =>
      call.path === "/discord/applications/@me"
        ? {
            body: {
              id: DISCORD_APP,
              name: "Handraise",
              verify_key: otherKey,
              interactions_endpoint_url: null,
            },
          }
        : undefined;
    const wrongKey = doctor();
    expect(await wrongKey.exit).toBe(1);
    expect(wrongKey.failures()).toEqual([
      `✗ discord: the application's public key is not DISCORD_PUBLIC_KEY — DISCORD_PUBLIC_KEY=${otherKey} (Developer Portal → General Information → Public Key; set them here as where npm run local runs (docs/channels.md))`,
    ]);
  });

  it("each platform refusing its token: one ✗ per channel, naming the credential to set", async () => {
    override = (call) => {
      if (call.method === "getWebhookInfo") {
        return { status: 401, body: { ok: false, error_code: 401, description: "Unauthorized" } };
      }
      if (call.method === "auth.test") return { body: { ok: false, error: "invalid_auth" } };
      if (call.path === "/discord/applications/@me")
        return { status: 401, body: { message: "401: Unauthorized", code: 0 } };
      if (call.path === "/mattermost/api/v4/users/me") {
        return {
          status: 401,
          body: { id: "api.context.session_expired.app_error", message: "Invalid or expired session" },
        };
      }
      if (call.path.startsWith("/login/")) return { status: 401, body: { error: "invalid_client" } };
      if (call.path === "/google/token") return { status: 400, body: { error: "invalid_grant" } };
      return undefined;
    };
    const run = doctor();
    expect(await run.exit).toBe(1);
    const where = "here and where npm run local runs (docs/channels.md)";
    expect(run.failures()).toEqual([
      `✗ telegram: the platform refused the bot token (getWebhookInfo: Unauthorized) — set TELEGRAM_BOT_TOKEN and TELEGRAM_WEBHOOK_SECRET, ${where}`,
      `✗ slack: the platform refused the bot token (auth.test: invalid_auth) — set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET, ${where}`,
      `✗ discord: the platform refused the bot token (GET /applications/@me: 401: Unauthorized (code 0)) — set DISCORD_BOT_TOKEN, ${where}`,
      `✗ mattermost: the platform refused the bot token (GET /users/me: Invalid or expired session) — set MATTERMOST_BOT_TOKEN and MATTERMOST_ACTION_SECRET and MATTERMOST_COMMAND_TOKEN, ${where}`,
      `✗ teams: the platform refused the app's id, tenant or password (token: invalid_client) — set TEAMS_APP_PASSWORD, ${where}; and check TEAMS_APP_ID and TEAMS_TENANT_ID (set them here as where npm run local runs (docs/channels.md))`,
      `✗ gchat: the platform refused the service account's key (token: invalid_grant) — set GOOGLE_CHAT_SERVICE_ACCOUNT, ${where}`,
    ]);
  });

  it("a missing secret: ✗ naming it and where it goes, and that channel's platform is not asked", async () => {
    const { SLACK_SIGNING_SECRET: _dropped, ...env } = doctorEnv();
    const run = doctor([], { env });
    expect(await run.exit).toBe(1);
    expect(run.failures()).toEqual([
      "✗ slack secret is missing in this environment: SLACK_SIGNING_SECRET — set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET, here and where npm run local runs (docs/channels.md)",
    ]);
    expect(run.lines().filter((line) => line.startsWith("✓ slack"))).toEqual([]);
    expect(platform.calls.filter((call) => call.method === "auth.test")).toEqual([]);
  });

  it("a missing setting: ✗ naming the variable, and that channel's platform is not asked", async () => {
    const { MATTERMOST_URL: _dropped, ...env } = doctorEnv();
    const run = doctor([], { env });
    expect(await run.exit).toBe(1);
    expect(run.failures()).toEqual([
      "✗ mattermost settings: MATTERMOST_URL is required: the mattermost channel is on — set them here as where npm run local runs (docs/channels.md)",
    ]);
    expect(platform.calls.filter((call) => call.path.startsWith("/mattermost/"))).toEqual([]);
  });

  it("--ask: one real question end to end — where it went, its answer link, and ✓ once it is answered", async () => {
    const run = doctor(["--ask", "telegram:42", "--deliver-to", "telegram:42"]);
    const question = await waitFor(
      async () => (await stack.api("GET", "/questions?owner=telegram:42")).body.questions[0],
      { what: "the doctor's question" },
    );
    const asked = await waitFor(async () => run.lines().find((line) => line.startsWith("✓ asked")), {
      what: "the asked line",
    });
    const { answerUrl } = (await stack.api("GET", `/questions/${question.id}`)).body;
    expect(answerUrl).toMatch(new RegExp(`^${PUBLIC_URL}/answer/${question.id}\\?sig=`));
    expect(asked).toBe(
      `✓ asked telegram:42 question ${question.id}: posted to telegram:42 (message 11); answer link ${answerUrl}`,
    );
    expect(question.id).toMatch(/^doctor_[0-9a-f]{24}$/);
    const [sent] = platform.calls.filter((call) => call.method === "sendMessage");
    expect(sent?.body).toMatchObject({ chat_id: "42" });

    const answered = await stack.api("POST", `/questions/${question.id}/answer`, {
      answers: { works: ["It reached me"] },
    });
    expect(answered.status).toBe(200);
    expect(await run.exit, run.lines().join("\n")).toBe(0);
    expect(run.lines().at(-1)).toMatch(/^✓ answered by api after \d+ s$/);
    expect(run.stderr()).toContain("for telegram:42 to answer (Ctrl-C cancels the question)");
  });

  it("--ask: ✗ when nobody answers in time, naming what to check", async () => {
    // The test stack's shortest timeout is 1 s (HANDRAISE_MIN_TIMEOUT_SECONDS=1).
    const run = doctor(["--ask", "web:nobody-doctor", "--timeout", "1"]);
    expect(await run.exit).toBe(1);
    expect(lineStarting(run.lines(), "✓ asked web:nobody-doctor")).toContain(
      "in no chat (answer it by its link)",
    );
    expect(run.failures()).toEqual([
      expect.stringMatching(
        /^✗ no answer from web:nobody-doctor within 1 s: question doctor_[0-9a-f]{24} expired — answer it by its link within the time, post it to a chat with --deliver-to <channel>:<chat id>, or allow more time with --timeout <seconds>$/,
      ),
    ]);
  });

  it("--ask interrupted (Ctrl-C): the question is cancelled, exit 130", async () => {
    const interrupt = new AbortController();
    const run = doctor(["--ask", "web:interrupted-doctor"], { interrupt: interrupt.signal });
    const question = await waitFor(
      async () => (await stack.api("GET", "/questions?owner=web:interrupted-doctor")).body.questions[0],
      { what: "the doctor's question" },
    );
    await waitFor(async () => (run.stderr().includes("Waiting until") ? true : undefined), {
      what: "the wait",
    });
    interrupt.abort("SIGINT");
    expect(await run.exit).toBe(130);
    expect(run.stderr()).toContain(`Interrupted: question ${question.id} is cancelled.`);
    const read = await stack.api("GET", `/questions/${question.id}`);
    expect(read.body.question).toMatchObject({ status: "cancelled", resolvedBy: "api:doctor-interrupted" });
  });

  it("an API it cannot reach, or a URL that is not Handraise's API: ✗ naming the stack output to give, and nothing else", async () => {
    // A port that was free a moment ago: nothing listens there.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const nobody = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await new Promise((resolve) => server.close(resolve));
    const closed = doctor(["--url", nobody]);
    expect(await closed.exit).toBe(1);
    expect(closed.lines()).toEqual([
      `✗ the API at ${nobody} cannot be reached (ECONNREFUSED) — check --url: the stack output HttpApiUrl (locally, the URL npm run local prints)`,
    ]);
    // Another service answers there (the fake platform: 404 to every path it does not know).
    const other = doctor(["--url", platform.url]);
    expect(await other.exit).toBe(1);
    expect(other.lines()).toEqual([
      `✗ ${platform.url} does not answer as Handraise's API does (GET /questions: HTTP 404) — give --url the stack output HttpApiUrl, without a path`,
    ]);
  });

  it("refuses a URL it would send the key to in clear text, before any request", async () => {
    const run = doctor(["--url", "http://handraise.example.com"]);
    expect(await run.exit).toBe(1);
    expect(run.stderr()).toContain("doctor: --url must be https (http only on localhost / 127.0.0.1)");
    expect(run.lines()).toEqual([""]);
  });
});

describe("npm run doctor as a process", { timeout: 120_000 }, () => {
  it("prints the lines and exits 1 with a wrong key", async () => {
    const child = spawn("npm", ["run", "-s", "doctor", "--", "--key", "not-the-stack-key-000"], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ...doctorEnv() },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code, output).toBe(1);
    expect(output).toContain(`✓ the API at ${stack.httpUrl} answers\n✗ the API refused the key (401) — `);
  });
});
